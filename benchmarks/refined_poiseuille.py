#!/usr/bin/env python3
"""Body-force-driven plane Poiseuille flow through a refined box (docs/solver.md, "A body force
across an interface"): cases/poiseuille.yaml lengthened to 0.1 m of periodic x, a box over
x 0.025-0.075 m up to both walls (and, for the mass, one inside the channel), against the uniform
grids at the same relaxation times; the relative L2 error of u(y) on each level and the relative
change of the total mass per 1,000 coarse steps over the last half of the run.

    python benchmarks/refined_poiseuille.py [--backend cpu|cuda]

Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.backends import select_backend  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.refined_simulation import RefinedSimulation  # noqa: E402
from solver.refinement_checks import refined_box_override  # noqa: E402
from solver.simulation import Simulation  # noqa: E402

DOMAIN = "domain.size_m=[0.1,0.1,0.025]"
UP_TO_WALLS = refined_box_override((0.025, -1.0, -1.0), (0.075, 2.0, 2.0))
INSIDE = refined_box_override((0.025, 0.025, -1.0), (0.075, 0.075, 2.0))


def profile_errors(sim, case) -> list[float]:
    """Relative L2 error of u against g y (H - y) / (2 nu) over each level's fluid cells."""
    H, nu, g = case.domain.size_m[1], case.flow.nu_m2_s, case.flow.body_accel_m_s2[0]
    out = []
    for level, fields in zip(sim.levels, sim.level_fields(), strict=True):
        inner = level.grid.interior()
        fluid = level.fluid_mask[inner]
        u = fields.velocity[0][inner] * level.units.velocity_scale
        y = level.grid.centers(1)[inner[1]] - case.domain.origin_m[1]
        exact = np.broadcast_to((g / (2 * nu) * y * (H - y))[None, :, None], u.shape)
        out.append(float(np.linalg.norm((u - exact)[fluid]) / np.linalg.norm(exact[fluid])))
    return out


def mass(sim) -> float:
    """Total mass, a cell of level k an 8^-k of the tunnel level's."""
    pairs = enumerate(zip(sim.levels, sim.level_fields(), strict=True))
    return float(sum(f.rho[s.fluid_mask].sum(dtype=np.float64) / 8**k for k, (s, f) in pairs))


def run(backend, label: str, overrides: list[str], steps: int) -> dict:
    """`steps` steps of the finest level (24,000 at u_lattice 0.05 and 16 cells across are 7.5
    diffusion times H^2 / nu); the mass change over the second half, per 1,000 coarse steps."""
    case = load_case(ROOT / "cases" / "poiseuille.yaml", [DOMAIN, *overrides])
    refined = bool(case.refinement.levels)
    sim = (RefinedSimulation if refined else Simulation)(case, backend)
    sim.advance(steps // 2)
    before = mass(sim)
    sim.advance(steps // 2)
    coarse_steps = steps // 2 // (sim.steps_per_coarse_step if refined else 1)
    row = {
        "grid": label,
        "tau": [level.units.tau for level in sim.levels],
        "l2_errors": profile_errors(sim, case),
        "mass_change_per_1000_coarse_steps": (mass(sim) / before - 1) * 1000 / coarse_steps,
    }
    errors = ", ".join(f"{e:.2%}" for e in row["l2_errors"])
    print(
        f"{label:44s} tau {', '.join(f'{t:.3f}' for t in row['tau']):14s} L2 {errors:16s} "
        f"mass {row['mass_change_per_1000_coarse_steps']:+.2e} per 1,000 coarse steps",
        flush=True,
    )
    return row


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=("cpu", "cuda"), default="cpu")
    args = p.parse_args()
    backend = select_backend(args.backend)
    print(f"device: {backend.describe()}")
    rows = []
    for collision in ("bgk", "entropic"):
        common = ["resolution.u_lattice=0.05", f"resolution.collision={collision}"]
        for label, overrides, steps in (
            ("uniform 8", ["resolution.cells_per_length=8"], 12000),
            ("uniform 16", ["resolution.cells_per_length=16"], 24000),
            (
                "8 / 16, box up to both walls",
                ["resolution.cells_per_length=16", UP_TO_WALLS],
                24000,
            ),
        ):
            rows.append(run(backend, f"{collision}: {label}", [*common, *overrides], steps))
    bgk = ["resolution.collision=bgk"]
    rows.append(
        run(
            backend,
            "bgk: 8 / 16, box inside the channel",
            [*bgk, "resolution.u_lattice=0.05", "resolution.cells_per_length=16", INSIDE],
            24000,
        )
    )
    rows.append(
        run(
            backend,
            "bgk: 16 / 32 at u_lattice 0.025, up to both walls",
            [*bgk, "resolution.u_lattice=0.025", "resolution.cells_per_length=32", UP_TO_WALLS],
            40000,
        )
    )
    print(json.dumps({"benchmark": "refined_poiseuille", "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
