#!/usr/bin/env python3
"""An experiment, not part of the solver: what the wheels' elements by the road exchange.

Runs `cases/car.yaml` with its wheels under the volumetric wall (the overrides given after it)
for --steps steps from the case's start, averages the elements' exchange over the next
--window steps, and prints, for every element with a wheel surfel whose centroid lies within
--band-m of the road: where it is, its wall velocity and the law's input velocity over U, its
fluid volume, and its exchange along the surface and along its normal in Cd; then their totals.
docs/solver.md, "Rolling wheels", reads it.

    python docs/experiments/wheel_contact.py [--steps 1500] [--window 100] [--band-m 0.06]
        [key=value ...]

Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA, case_mesh  # noqa: E402
from shapes.wheels import WHEELS_PART  # noqa: E402
from solver.backends.cpu import CpuBackend  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.simulation import Simulation, initial_moments  # noqa: E402
from solver.surface_elements import periodic_axes  # noqa: E402
from solver.volumetric_law import volumetric_law  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--band-m", type=float, default=0.06)
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    overrides = ["geometry.car.wheels=true", "body.bounce_back=volumetric", *args.overrides]
    case = load_case(ROOT / "cases" / "car.yaml", overrides=overrides, schema=CASE_SCHEMA)
    sim = Simulation(case, CpuBackend(), case_mesh(case))
    sim.start_from(initial_moments(case, sim.grid, sim.units))
    sim.advance(args.steps)
    wall, grid = sim.volumetric_wall, sim.grid
    sim.advance(args.window, accumulate_slot_forces=True)
    exchange = sim.element_force_sum() / sim.slot_force_steps
    law = volumetric_law(
        wall, case.walls.sample_cells - 0.5, periodic_axes(case), sim.element_velocity
    )
    face_part, names = sim.volumetric_parts
    on_wheel = face_part[wall.surfel_triangle] == names.index(WHEELS_PART)
    n_el = len(wall.area_vector)
    wheel_share = np.bincount(wall.surfel_element, on_wheel, n_el) / np.bincount(
        wall.surfel_element, minlength=n_el
    )
    cell0_m = grid.origin_m - np.asarray(grid.ghost_lo) * grid.dx_m
    centroid_m = cell0_m + wall.centroid * grid.dx_m
    height_m = centroid_m[:, 2] - grid.origin_m[2]
    chosen = np.flatnonzero((wheel_share > 0) & (height_m < args.band_m))
    chosen = chosen[np.argsort(centroid_m[chosen, 0])]
    fields = sim.fields()
    velocity = fields.velocity.reshape(3, -1)
    u = sim.units.u_lattice
    to_cd = sim.coefficients(np.array([1.0, 0.0, 0.0]))[0]
    along_cd, normal_cd = [], []
    for e in chosen:
        n = law.normal[e]
        u_in = (law.probe_weight[e][:, None] * velocity[:, law.probe_cell[e]].T).sum(axis=0)
        normal_x = (exchange[e] @ n) * n[0] * to_cd
        along_x = exchange[e, 0] * to_cd - normal_x
        along_cd.append(along_x)
        normal_cd.append(normal_x)
        print(
            f"x {centroid_m[e, 0]:.3f} m  z {height_m[e]:.3f} m  wheel share {wheel_share[e]:.2f}  "
            f"u_wall/U {np.round(law.wall_velocity[e] / u, 2)}  u_input/U {np.round(u_in / u, 2)}  "
            f"V {wall.volume.ravel()[wall.element_cell[e]]:.3f}  Cd along {along_x:+.4f}  "
            f"normal {normal_x:+.4f}"
        )
    print(
        f"{len(chosen)} elements within {args.band_m} m of the road: Cd along the surface "
        f"{sum(along_cd):+.4f}, along their normals {sum(normal_cd):+.4f}"
    )
    print(
        json.dumps(
            {
                "overrides": args.overrides,
                "steps": args.steps,
                "window": args.window,
                "band_m": args.band_m,
                "elements": int(len(chosen)),
                "cd_along_surface": round(float(sum(along_cd)), 5),
                "cd_along_normals": round(float(sum(normal_cd)), 5),
            }
        )
    )


if __name__ == "__main__":
    main()
