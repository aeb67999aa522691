"""The error of serving an exported surrogate (shared by the Predictor and its runtimes)."""

from solver.errors import SlipstreamError


class PredictorError(SlipstreamError):
    """A model folder that cannot be served, a runtime that is missing, or inputs it cannot take."""
