#!/usr/bin/env python3
"""Turbulent pipe flow through a mesh wall against the Princeton Superpipe: the Darcy friction
factor of cases/pipe.yaml (wall-modelled LES) beside McKeon et al. (2005)'s correlation.

    python benchmarks/pipe_friction.py [key=value ...]    # overrides of cases/pipe.yaml

The flow is driven at a fixed mean pressure gradient g; solver/pipe.py turns the bulk velocity
into the Darcy friction factor (the force balance tau_w = rho g R / 2, f = 8 (u_tau / U_b)^2) and
gives McKeon et al. (2005)'s f at the measured Re_D beside it. Ends with
one JSON line.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA, case_mesh  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.pipe import pipe_statistics  # noqa: E402
from solver.run import Runner  # noqa: E402
from solver.simulation import Simulation  # noqa: E402


def main() -> int:
    case = load_case(ROOT / "cases" / "pipe.yaml", sys.argv[1:], schema=CASE_SCHEMA)
    backend = select_backend("cpu")
    sim = Simulation(case, backend, case_mesh(case))
    t0 = time.perf_counter()
    result = Runner(sim).run()
    wall_s = time.perf_counter() - t0
    u = sim.units
    stats = pipe_statistics(sim, result.best_fields, case.geometry.pipe.radius_m / u.dx_m)
    f, f_ref, re_d = stats.friction_factor, stats.friction_factor_mckeon, stats.re_d
    out = {
        "benchmark": "pipe_friction",
        "overrides": sys.argv[1:],
        "cells_per_radius": case.geometry.pipe.radius_m / u.dx_m,
        "grid_zyx": list(sim.grid.shape_zyx),
        "steps": result.steps,
        "averaged_steps": result.averaged_steps,
        "re_tau": stats.re_tau,
        "u_bulk_over_u_tau": stats.u_bulk / stats.u_tau,
        "re_d": re_d,
        "friction_factor": f,
        "friction_factor_mckeon": f_ref,
        "error": f / f_ref - 1,
        "wall_seconds": wall_s,
        "mlups": result.mlups,
        "backend": backend.describe(),
    }
    print(
        f"pipe at {out['cells_per_radius']:.0f} cells per radius, Re_tau {out['re_tau']:.0f}: "
        f"U_b / u_tau {out['u_bulk_over_u_tau']:.2f}, Re_D {re_d:.0f}, Darcy f {f:.4f} against "
        f"McKeon's {f_ref:.4f} at that Re_D ({100 * out['error']:+.1f}%; the issue allows 5%); "
        f"{result.steps} steps, {result.averaged_steps} averaged, {wall_s:.0f} s"
    )
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
