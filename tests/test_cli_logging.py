"""The commands log in one format even after Paddle's import put its own handler on the root."""

from __future__ import annotations

import io
import logging

from solver.cli_logging import configure_logging


def test_a_foreign_root_handler_takes_the_commands_format():
    root = logging.getLogger()
    level = root.level
    foreign = logging.StreamHandler(io.StringIO())
    foreign.setFormatter(
        logging.Formatter("[%(asctime)s] [%(levelname)8s] %(filename)s:%(lineno)d - %(message)s")
    )
    root.addHandler(foreign)
    try:
        configure_logging()
        logging.getLogger("run_case").info("Cd 0.3000")
        assert foreign.stream.getvalue() == "INFO run_case: Cd 0.3000\n"
    finally:
        root.removeHandler(foreign)
        root.setLevel(level)
