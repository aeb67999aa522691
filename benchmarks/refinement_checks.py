#!/usr/bin/env python3
"""Two refinement levels in a periodic box (solver/refinement.py): the Taylor-Green vortex's
fitted viscosity across a refined box, a density pulse's reflection at the interface and a
uniform flow's drift, for both collision operators and several relaxation times; Schaefer &
Turek's 2D-1 on uniform grids of 10 and 20 cells per diameter, with the cylinder in a box at
20 inside a tunnel at 10, and with a third level at 40 round the cylinder: the tables of
docs/solver.md, "Grid refinement".

    python benchmarks/refinement_checks.py [--backend cpu|cuda] [--sphere]

--sphere adds cases/sphere.yaml (Re 100) at 16 cells per diameter, uniform and with the tunnel
at 8 and a box round the sphere and its near wake at 16 (a few minutes on 2 cores).

Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.backends import select_backend  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.refined_simulation import RefinedSimulation  # noqa: E402
from solver.refinement import RefinedBox  # noqa: E402
from solver.refinement_checks import (  # noqa: E402
    pulse_reflection,
    refined_box_override,
    taylor_green,
    uniform_flow,
)
from solver.simulation import Simulation  # noqa: E402


def boxes(n: int) -> dict[str, RefinedBox]:
    """The refined boxes of the vortex at n coarse cells per wavelength."""
    return {
        "fine everywhere": RefinedBox((0, 0, 0), (n, n, 2)),
        "half (a slab)": RefinedBox((n // 4, 0, 0), (3 * n // 4, n, 2)),
        "quarter (a box)": RefinedBox((n // 4, n // 4, 0), (3 * n // 4, 3 * n // 4, 2)),
    }


CYLINDER_OVERRIDES = ["domain.size_m=[2.2,0.41,0.01]"]  # two fine cells deep
#: the refined boxes round the cylinder and its wake: off the channel's walls, up to both walls,
#: up to the lower one
CYLINDER_BOXES_M = {
    "inside": ((0.05, 0.05, -1.0), (0.8, 0.36, 1.0)),
    "both walls": ((0.05, -1.0, -1.0), (0.8, 1.0, 1.0)),
    "lower wall": ((0.05, 0.0, -1.0), (0.8, 0.3, 1.0)),
}
#: a third level at 40 cells per diameter inside the "inside" box, round the cylinder and the
#: start of its recirculation (0.05 m, 20 of its cells, from the cylinder upstream and aside), and
#: a larger one (0.08 m upstream and aside, to x 0.6 m)
CYLINDER_INNER_BOXES_M = {
    "tight": ((0.1, 0.1, -1.0), (0.45, 0.3, 1.0)),
    "larger": ((0.07, 0.07, -1.0), (0.6, 0.34, 1.0)),
}


def schaefer_turek_rows(backend) -> list[dict]:
    """Cd of 2D-1 (the mean force over the last 200 steps of the 10-cell grid: 400 of the
    20-cell grid, 800 of the 40-cell one) on the uniform grids, on two levels and on three, with
    cell updates per coarse (10-cell) step and wall time."""
    rows = []
    for cells, steps in ((10, 20000), (20, 40000)):
        case = load_case(
            ROOT / "cases" / "cylinder_2d1.yaml",
            [f"resolution.cells_per_length={cells}", *CYLINDER_OVERRIDES],
        )
        t0 = time.perf_counter()
        sim = Simulation(case, backend)
        forces = sim.advance(steps)
        cd = float(sim.coefficients(forces[-400:, 0].mean(axis=0))[0])
        updates = sim.grid.n_cells * (cells // 10)  # a 20-cell grid steps twice per 10-cell step
        rows.append(
            {
                "grid": f"uniform {cells}",
                "steps": steps,
                "cd": cd,
                "updates_per_coarse_step": updates,
                "wall_seconds": time.perf_counter() - t0,
            }
        )
    for name, coarse_steps in (
        ("inside", 6000),
        ("inside", 20000),
        ("both walls", 6000),
        ("lower wall", 6000),
    ):
        case = load_case(
            ROOT / "cases" / "cylinder_2d1.yaml",
            [
                "resolution.cells_per_length=20",
                *CYLINDER_OVERRIDES,
                refined_box_override(*CYLINDER_BOXES_M[name]),
            ],
        )
        t0 = time.perf_counter()
        sim = RefinedSimulation(case, backend)
        forces = sim.advance(2 * coarse_steps)
        rows.append(
            {
                "grid": f"10, 20 in the box ({name})",
                "steps": coarse_steps,
                "cd": float(sim.coefficients(forces[-400:, 0].mean(axis=0))[0]),
                "updates_per_coarse_step": sim.cell_updates_per_coarse_step(),
                "wall_seconds": time.perf_counter() - t0,
            }
        )
    for name, inner in CYLINDER_INNER_BOXES_M.items():
        case = load_case(
            ROOT / "cases" / "cylinder_2d1.yaml",
            [
                "resolution.cells_per_length=40",
                "run.sample_every=40",
                *CYLINDER_OVERRIDES,
                refined_box_override(*CYLINDER_BOXES_M["inside"], inner),
            ],
        )
        t0 = time.perf_counter()
        sim = RefinedSimulation(case, backend)
        forces = sim.advance(4 * 6000)
        rows.append(
            {
                "grid": f"10, 20 in the box (inside), 40 round the cylinder ({name})",
                "steps": 6000,
                "cd": float(sim.coefficients(forces[-800:, 0].mean(axis=0))[0]),
                "updates_per_coarse_step": sim.cell_updates_per_coarse_step(),
                "wall_seconds": time.perf_counter() - t0,
            }
        )
    return rows


#: the box round cases/sphere.yaml's sphere (0.1 m) and its near wake: x 0.2-0.55 m, y, z 0.2-0.4 m
SPHERE_BOX = "refinement.levels=[{margin_m: 0.05, wake_m: 0.15}]"


def sphere_rows(backend, fine_steps: int = 6000) -> list[dict]:
    """Cd of the sphere at Re 100 (the mean force of the last 500 fine-grid steps) uniform at 16
    cells per diameter and refined (8 in the tunnel, 16 in SPHERE_BOX: from 1 D upstream to
    2.5 D downstream and 1 D aside), over the same flow time, with cell updates per coarse
    (8-cell) step and wall time."""
    case = load_case(ROOT / "cases" / "sphere.yaml", ["resolution.cells_per_length=16"])
    rows = []
    t0 = time.perf_counter()
    sim = Simulation(case, backend)
    forces = sim.advance(fine_steps)
    rows.append(
        {
            "grid": "uniform 16",
            "steps": fine_steps,
            "cd": float(sim.coefficients(forces[-500:, 0].mean(axis=0))[0]),
            "updates_per_coarse_step": 2 * sim.grid.n_cells,
            "wall_seconds": time.perf_counter() - t0,
        }
    )
    t0 = time.perf_counter()
    refined_case = load_case(
        ROOT / "cases" / "sphere.yaml", ["resolution.cells_per_length=16", SPHERE_BOX]
    )
    refined = RefinedSimulation(refined_case, backend)
    forces = refined.advance(fine_steps)
    rows.append(
        {
            "grid": "8, 16 in the box",
            "steps": fine_steps // 2,
            "cd": float(refined.coefficients(forces[-500:, 0].mean(axis=0))[0]),
            "updates_per_coarse_step": refined.cell_updates_per_coarse_step(),
            "wall_seconds": time.perf_counter() - t0,
        }
    )
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--sphere", action="store_true", help="also the sphere at Re 100 (minutes)")
    args = p.parse_args()
    backend = select_backend(args.backend)
    t0 = time.perf_counter()
    rows = []
    print(f"device: {backend.describe()}")
    print("Taylor-Green vortex: fitted / configured viscosity, relative mass change over the run")
    print(f"{'operator':9} {'tau':>5} {'cells':>5}  {'box':16} {'nu ratio':>9} {'mass':>9}")
    for collision, tau, n in (
        ("bgk", 0.6, 32),
        ("bgk", 0.6, 64),
        ("bgk", 0.52, 32),
        ("bgk", 0.9, 32),
        ("entropic", 0.6, 32),
        ("entropic", 0.52, 32),
    ):
        for name, box in boxes(n).items():
            check = taylor_green(backend, box, tau, collision, wavelength=n)
            rows.append(
                {
                    "check": "taylor_green",
                    "collision": collision,
                    "tau": tau,
                    "wavelength": n,
                    "box": name,
                    "viscosity_ratio": check.viscosity_ratio,
                    "mass_drift": check.mass_drift,
                    "coarse_steps": check.coarse_steps,
                }
            )
            print(
                f"{collision:9} {tau:5.2f} {n:5d}  {name:16} {check.viscosity_ratio:9.4f} "
                f"{check.mass_drift:9.1e}"
            )
    print("density pulse into the fine level: reflected / incident amplitude")
    for collision, tau in (("bgk", 0.6), ("bgk", 0.52), ("entropic", 0.52)):
        check = pulse_reflection(backend, tau, collision)
        rows.append(
            {
                "check": "pulse",
                "collision": collision,
                "tau": tau,
                "reflection": check.reflection,
            }
        )
        print(f"{collision:9} {tau:5.2f}  {check.reflection:.2%}")
    check = uniform_flow(backend)
    rows.append(
        {
            "check": "uniform_flow",
            "velocity_error": check.velocity_error,
            "mass_drift": check.mass_drift,
            "coarse_steps": check.coarse_steps,
        }
    )
    print(
        f"uniform flow, {check.coarse_steps} coarse steps: max |u - U| / |U| "
        f"{check.velocity_error:.1e}, mass change {check.mass_drift:.1e}"
    )
    body_cases = [("schaefer_turek_2d1", "Schaefer-Turek 2D-1 (Cd 5.5795)", schaefer_turek_rows)]
    if args.sphere:
        body_cases.append(("sphere_re100", "sphere, Re 100", sphere_rows))
    for check_name, title, measure in body_cases:
        print(f"{title}: grid, steps, Cd, cell updates per coarse step, wall s")
        for row in measure(backend):
            rows.append({"check": check_name, **row})
            print(
                f"{row['grid']:32} {row['steps']:6d} {row['cd']:.4f} "
                f"{row['updates_per_coarse_step']:8d} {row['wall_seconds']:6.1f}"
            )
    out = {
        "benchmark": "refinement_checks",
        "backend": backend.describe(),
        "rows": rows,
        "wall_seconds": time.perf_counter() - t0,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
