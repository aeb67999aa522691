"""Errors in a body's geometry that the user can fix: each message names the defect and the fix."""

from solver.errors import SlipstreamError


class MeshError(SlipstreamError):
    """A mesh that cannot be read, or that is not a closed, oriented, non-degenerate surface."""
