"""Slipstream's Python API: build a case, run it, read its results in physical units.

    import slipstream as ss

    case = ss.Case(
        flow=ss.Flow(speed_m_s=1.0, reynolds=100.0),
        domain=ss.Domain(size_m=[1.2, 0.6, 0.6]),
        body=ss.Body(shape="sphere", center_m=[0.3, 0.3, 0.3], radius_m=0.05),
        resolution=ss.Resolution(cells_per_length=12),
    )
    sim = ss.simulation(case)                  # checked as a YAML case is; backend "auto"
    result = ss.run(sim, [ss.Callback(print_step, ss.IterationInterval(500))])
    result.cd, ss.flow_field(sim, result).velocity_m_s, ss.surface_cp(sim, result).cp
    ss.write_results(Path("results/sphere"), sim, result)   # the files run_case.py writes
    ss.run_case(case, Path("results/sphere"))   # all of the above in one call, as run_case.py

The case sections are the dataclasses the YAML loader fills (solver/config.py; cases/README.md
lists every key), so `python run_case.py case.yaml` and a script build the same objects. The
model is the Simulation (one grid, or a RefinedSimulation on levels), the time stepping the
Runner, which callbacks observe (solver/callbacks.py). examples/ has scripts that use this API.
"""

from __future__ import annotations

from collections.abc import Sequence

from slipstream.case import (
    Body,
    Boundaries,
    Case,
    Convergence,
    Domain,
    Flow,
    Geometry,
    Level,
    Output,
    Placement,
    Refinement,
    Resolution,
    Run,
    Sponge,
    Walls,
    checked_case,
)
from slipstream.fields import FlowField, Forces, SurfaceCp, flow_field, forces, surface_cp
from slipstream.job import CaseRun, run_case
from slipstream.model import simulation
from slipstream.output import write_results
from solver.boundary_conditions import BoundaryConditions, boundary_conditions
from solver.callbacks import Callback, IterationInterval
from solver.refined_simulation import RefinedSimulation
from solver.run import Runner
from solver.run_state import RunResult
from solver.simulation import Simulation


def run(sim: Simulation | RefinedSimulation, callbacks: Sequence[Callback] = ()) -> RunResult:
    """Step sim as its case's run section says (to convergence, then averaging, or the step
    limit), with callbacks observing; the forces, coefficients and fields of the run."""
    return Runner(sim, callbacks=callbacks).run()


__all__ = [
    "Body",
    "Boundaries",
    "BoundaryConditions",
    "Callback",
    "CaseRun",
    "Case",
    "Convergence",
    "Domain",
    "Flow",
    "FlowField",
    "Forces",
    "Geometry",
    "IterationInterval",
    "Level",
    "Output",
    "Placement",
    "Refinement",
    "Resolution",
    "Run",
    "RunResult",
    "Runner",
    "Simulation",
    "Sponge",
    "SurfaceCp",
    "Walls",
    "boundary_conditions",
    "checked_case",
    "flow_field",
    "forces",
    "run",
    "run_case",
    "simulation",
    "surface_cp",
    "write_results",
]
