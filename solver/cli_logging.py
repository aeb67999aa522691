"""The commands' log format, one line per record: 'INFO run_case: ...'."""

from __future__ import annotations

import logging

FORMAT = "%(levelname)s %(name)s: %(message)s"


def configure_logging(level: int = logging.INFO) -> None:
    """Log at level in FORMAT to stderr. Importing Paddle installs its own handler on the root
    logger first (timestamped, padded), which makes logging.basicConfig a no-op: plain stream
    handlers already there get FORMAT too (subclasses, such as pytest's capture, are left alone)."""
    logging.basicConfig(level=level, format=FORMAT)
    root = logging.getLogger()
    root.setLevel(level)
    for handler in root.handlers:
        if type(handler) is logging.StreamHandler:
            handler.setFormatter(logging.Formatter(FORMAT))
