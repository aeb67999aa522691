"""A case run into its results folder as one call: the simulation, the run (with its checkpoints,
snapshots and any callbacks) and every result file. run_case.py is its command line; the
optimizer's verification runs its designs through it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from slipstream.model import simulation
from slipstream.output import clear_derived_outputs, snapshot_writer, write_results
from solver.callbacks import Callback
from solver.config import CaseConfig, collision_operator
from solver.refined_simulation import RefinedSimulation
from solver.results import check_output_folder
from solver.run import Runner
from solver.run_state import RunResult
from solver.simulation import Simulation

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CaseRun:
    """A finished case: its simulation, the run's result and summary.json's figures."""

    sim: Simulation | RefinedSimulation
    result: RunResult
    summary: dict


def describe_grids(sim: Simulation | RefinedSimulation) -> str:
    """'grid 64 x 32 x 32 (0.07 M cells)', one such per level on refinement levels."""
    parts = [
        f"{s.grid.nx} x {s.grid.ny} x {s.grid.nz} ({s.grid.n_cells / 1e6:.2f} M cells)"
        for s in sim.levels
    ]
    if len(parts) == 1:
        return f"grid {parts[0]}"
    return "levels " + ", ".join(f"{i}: {p}" for i, p in enumerate(parts))


def run_case(
    case: CaseConfig,
    out: Path,
    backend: str = "auto",
    resume: bool = False,
    callbacks: Sequence[Callback] = (),
) -> CaseRun:
    """Run case into the folder out (checkpoints in out/checkpoint, snapshots as the case's
    output section says, callbacks observing) and write its files; resume: go on from the
    folder's checkpoint. SlipstreamError (one line) on a bad case, folder or blow-up, before
    anything is written."""
    check_output_folder(out)
    sim = simulation(case, backend)
    u = sim.units
    log.info(
        "%s on %s: %s, Re %.4g, Mach %.3f, tau %.7f, dx %.4g m, dt %.4g s (at the body), "
        "%s collision",
        case.name,
        sim.backend.describe(),
        describe_grids(sim),
        u.reynolds,
        u.mach,
        u.tau,
        u.dx_m,
        u.dt_s,
        collision_operator(case.resolution),
    )
    log.info(sim.fidelity.describe())
    if not resume:
        clear_derived_outputs(out)
    observers = list(callbacks)
    if case.output.snapshot_every:
        observers.append(snapshot_writer(case, sim, out))
    runner = Runner(sim, out / "checkpoint", observers)
    if resume:
        runner.resume()
    result = runner.run()
    return CaseRun(sim, result, write_results(out, sim, result))
