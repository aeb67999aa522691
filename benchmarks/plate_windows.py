#!/usr/bin/env python3
"""The averaging noise of tests/test_surface.py's plate: the force split over each half of its
fixed window, so the test's tolerances rest on a measurement.

    python benchmarks/plate_windows.py [--windows 2]
    SLIPSTREAM_CPU_ARCH=x86-64-v3 python benchmarks/plate_windows.py   # AVX2 rounding

Runs cases/plate.yaml once (3000 steps, averaging from step 1800) on the CPU and prints, for the
whole window and each of its parts: Cd by momentum exchange, the pressure and friction parts
integrated over the plate's surface, (pressure + friction) / Cd - 1 beside the test's 5%, and
friction / Cd beside its 5%; Cp at the stagnation point from the window's mean fields; whether
the convergence test passed. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shapes.solids import box  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.backends.host_build import cpu_arch  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.run import Runner  # noqa: E402
from solver.simulation import FORCE_FRICTION, FORCE_PRESSURE, FORCE_TOTAL, Simulation  # noqa: E402
from solver.surface import surface_pressure  # noqa: E402

TOLERANCE = 0.05  # the test's bound on the split and on friction / Cd


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--windows", type=int, default=2, help="parts the averaging window is split into"
    )
    args = p.parse_args()
    case = load_case(ROOT / "cases" / "plate.yaml")
    backend = select_backend("cpu")
    sim = Simulation(case, backend)
    plate = box(case.body.size_m, tuple(case.body.center_m), divisions=24)
    sim.attach_surface(plate.vertices_m, plate.faces)
    result = Runner(sim).run()
    cp_max = float(
        surface_pressure(sim, result.best_fields, plate.vertices_m, plate.faces).cp_vertices.max()
    )
    start, end = case.run.average_from_step, result.steps
    cd = result.coefficients[:, :, 0]  # [step, kind]
    edges = np.linspace(start, end, args.windows + 1).astype(int)
    rows = [(start, end)] + list(zip(edges[:-1], edges[1:], strict=False))
    print(f"device: {backend.describe()}; -march={cpu_arch()}")
    print(
        f"convergence test passed: {result.converged} (step {result.converged_step}); Cp max "
        f"{cp_max:.4f} (test: 1 +- 0.15)"
    )
    print(
        "| steps | Cd | pressure | friction | split / Cd - 1 (test < 5%) | friction / Cd (test < "
        "5%) |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    windows = []
    for a, b in rows:
        total, pressure, friction = (
            float(cd[a:b, kind].mean()) for kind in (FORCE_TOTAL, FORCE_PRESSURE, FORCE_FRICTION)
        )
        split = (pressure + friction) / total - 1
        windows.append(
            {
                "steps": [int(a), int(b)],
                "cd": total,
                "cd_pressure": pressure,
                "cd_friction": friction,
                "split_error": split,
                "friction_share": friction / total,
            }
        )
        print(
            f"| {a}-{b} | {total:.4f} | {pressure:.4f} | {friction:.4f} | {100 * split:+.2f}% | "
            f"{100 * friction / total:.2f}% |"
        )
    ok = all(
        abs(w["split_error"]) < TOLERANCE and abs(w["friction_share"]) < TOLERANCE for w in windows
    )
    print(
        json.dumps(
            {
                "benchmark": "plate_windows",
                "device": backend.describe(),
                "march": cpu_arch(),
                "converged": result.converged,
                "cp_max": cp_max,
                "windows": windows,
                "within_tolerance": ok,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
