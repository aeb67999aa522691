#!/usr/bin/env python3
"""Two refinement levels in a periodic box (solver/refinement.py): the Taylor-Green vortex's
fitted viscosity across a refined box, a density pulse's reflection at the interface and a
uniform flow's drift, for both collision operators and several relaxation times: the table of
docs/solver.md, "Grid refinement".

    python benchmarks/refinement_checks.py [--backend cpu|cuda]

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
from solver.refinement import RefinedBox  # noqa: E402
from solver.refinement_checks import pulse_reflection, taylor_green, uniform_flow  # noqa: E402


def boxes(n: int) -> dict[str, RefinedBox]:
    """The refined boxes of the vortex at n coarse cells per wavelength."""
    return {
        "fine everywhere": RefinedBox((0, 0, 0), (n, n, 2)),
        "half (a slab)": RefinedBox((n // 4, 0, 0), (3 * n // 4, n, 2)),
        "quarter (a box)": RefinedBox((n // 4, n // 4, 0), (3 * n // 4, 3 * n // 4, 2)),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
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
