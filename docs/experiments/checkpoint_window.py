"""A finished window of a `run_case.py` run, re-opened for the probes beside this module
(exchange_gap.py, density_term_force.py): the command line CASE CHECKPOINT X_LO X_HI
[key=value ...], the case set up again on the CPU (one grid) and the checkpoint's window sums."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA  # noqa: E402
from slipstream.model import simulation  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.errors import ConfigError  # noqa: E402
from solver.simulation import Simulation  # noqa: E402


@dataclass(frozen=True)
class CheckpointWindow:
    """The run's simulation (set up, not stepped), the checkpoint's arrays and metadata, and the
    stretch along the body to report, in metres from its most upstream point."""

    sim: Simulation
    state: dict[str, np.ndarray]
    meta: dict
    x_lo_m: float
    x_hi_m: float


def open_window(description: str) -> CheckpointWindow:
    """Parse the command line and re-open the checkpoint; bad input: one line, exit 2."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("case", help="case YAML")
    p.add_argument("checkpoint", type=Path, help="the run's checkpoint/state.npz")
    p.add_argument("x_lo", type=float, help="metres from the body's most upstream point")
    p.add_argument("x_hi", type=float, help="metres from the body's most upstream point")
    p.add_argument("overrides", nargs="*", help="the run's key=value overrides")
    args = p.parse_args()
    try:
        case = load_case(args.case, args.overrides, schema=CASE_SCHEMA)
        if case.refinement.levels:
            raise ConfigError("refinement.levels: this probe reads one grid; give no levels")
        if not args.checkpoint.is_file():
            raise ConfigError(f"{args.checkpoint}: no such checkpoint; give a run's state.npz")
        with np.load(args.checkpoint) as npz:
            state = {k: npz[k] for k in npz.files}
        if "slot_force_sum" not in state or "rho_sum_0" not in state:
            raise ConfigError(f"{args.checkpoint}: no window sums; checkpoint after averaging")
        sim = simulation(case, "cpu")
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    meta = json.loads(bytes(state["meta"]).decode())
    return CheckpointWindow(sim, state, meta, args.x_lo, args.x_hi)
