"""Errors a user can cause and fix: each carries one line that names the cause and the fix."""


class SlipstreamError(Exception):
    """Base of the errors that end a command with one clear line and exit code 2."""


class ConfigError(SlipstreamError):
    """Invalid YAML, an unknown key, a wrong type or an out-of-range value."""


class UnstableSettingsError(SlipstreamError):
    """Lattice settings that cannot run stably (Mach too high, tau too close to 1/2)."""


class CompileError(SlipstreamError):
    """The host kernel library could not be built; the message shows the command and its output."""


class BackendUnavailableError(SlipstreamError):
    """The requested backend cannot run on this machine."""


class DivergenceError(SlipstreamError):
    """The simulation blew up (NaN or runaway velocity)."""


class CheckpointError(SlipstreamError):
    """A checkpoint is missing, damaged or belongs to another configuration."""


class OutputError(SlipstreamError):
    """The results folder cannot be written."""
