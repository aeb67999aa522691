#!/usr/bin/env python3
"""One factor at a time on a mesh body under the volumetric wall: the drag by part, Cd(x), and
the surface pressure of the elements on the body's centre plane over the nose.

    python docs/experiments/volumetric_ahmed.py [--case cases/ahmed_faces.yaml] [--free-slip]
        [--surfels PATH.npz] [key=value ...]

Runs the case (default the Ahmed body) on the CPU with `body.bounce_back=volumetric` (or its
projected form, with the override `body.bounce_back=projected`) and the given overrides, as the
case's run section says (with refinement.levels the body and its wall on the finest level), and
prints the run's Cd and Cl (with the per-step Cd's spread over the averaging window, its standard
deviation over its mean, and the means of the window's two halves), the drag by part (pressure,
friction; solver/drag_breakdown.py, element_drag_breakdown), Cd(x) at a few stations behind the
nose, and each element's mean Cp within half a cell of the centre plane y = body centre and less
than 0.15 m behind the nose, upper half: its gauge pressure -F . a / |a|^2 (F its mean exchange, a
its area vector) less the free stream's, over the dynamic pressure. Ends with one JSON line.

--surfels saves each surfel's pressure and friction Cd, centroid [m], area vector [m^2] and part
(solver/drag_breakdown.py, surfel_drag) to an .npz, for breakdowns the parts do not give (the
nose's drag by height, say).

--free-slip switches the law's force off on every element (a patch of the kernel's law table
for this run only, not a case key): each element hands back the tangential momentum it gathers,
so the body has no friction at all and what drag is left is the pressure of the flow the
lattice and the subgrid model make. docs/validation.md, "The volumetric wall on the Ahmed
body", reads it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA  # noqa: E402
from slipstream import run  # noqa: E402
from slipstream.model import simulation  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.drag_breakdown import element_drag_breakdown, surfel_drag  # noqa: E402
from solver.errors import ConfigError, SlipstreamError  # noqa: E402
from solver.simulation import Simulation  # noqa: E402
from solver.surface import free_stream_density  # noqa: E402

STATIONS_M = (0.05, 0.10, 0.20, 0.50, 0.80)
NOSE_M = 0.15
LAW_AREA = 9  # the area's place in an element's law record (solver/volumetric_law.py, law_values)


def switch_law_force_off(sim: Simulation) -> None:
    """Zero every element's area in the law's table: the law's force vanishes, the free slip
    stays."""
    if sim.params["vol_law_on"] != 1:
        raise ConfigError("--free-slip switches the law's force off: it needs walls.model=loglaw")
    law = sim._param_values["vol_law"].reshape(len(sim.volumetric_wall.element_cell), -1)
    law[:, LAW_AREA] = 0.0
    sim._pack_params()


def nose_cp(sim: Simulation, force: np.ndarray, p_inf: float) -> list[tuple[float, float, float]]:
    """(x - x_nose [m], z [m], Cp) of the elements on the centre plane over the nose's top half."""
    wall = sim.volumetric_wall
    area = wall.area_vector
    pressure = -np.einsum("ea,ea->e", force, area) / np.einsum("ea,ea->e", area, area)
    cp = (pressure - p_inf) / (0.5 * sim.units.u_lattice**2)
    cell0_m = sim.grid.origin_m - np.asarray(sim.grid.ghost_lo) * sim.grid.dx_m
    xyz_m = cell0_m + wall.centroid * sim.grid.dx_m
    nose_m = xyz_m[:, 0].min()
    centre_m = 0.5 * (xyz_m.min(axis=0) + xyz_m.max(axis=0))
    pick = (
        (np.abs(xyz_m[:, 1] - centre_m[1]) < 0.5 * sim.grid.dx_m)
        & (xyz_m[:, 0] - nose_m < NOSE_M)
        & (xyz_m[:, 2] > centre_m[2])
    )
    order = np.argsort(xyz_m[pick, 0])
    rows = np.stack([xyz_m[pick, 0] - nose_m, xyz_m[pick, 2], cp[pick]], axis=1)[order]
    return [tuple(round(float(v), 3) for v in row) for row in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default=str(ROOT / "cases" / "ahmed_faces.yaml"))
    parser.add_argument("--free-slip", action="store_true")
    parser.add_argument("--surfels", type=Path, help="save each surfel's drag to this .npz")
    args, overrides = parser.parse_known_args()
    try:
        case = load_case(
            args.case,
            overrides=["body.bounce_back=volumetric", "output.images=false", *overrides],
            schema=CASE_SCHEMA,
        )
        model = simulation(case, "cpu")
        sim = model.finest  # the level that holds the body (the model itself on one grid)
        if args.free_slip:
            switch_law_force_off(sim)
        start = time.perf_counter()
        result = run(model)
    except SlipstreamError as exc:  # a bad case or key, or a run that blew up: one line
        print(f"error: {exc}", file=sys.stderr)
        return 2
    force = result.element_force_mean_lattice
    if force is None:
        print(
            f"error: no averaging window: the run did not converge by run.max_steps "
            f"({result.steps}); raise it or set run.average_from_step",
            file=sys.stderr,
        )
        return 2
    breakdown = element_drag_breakdown(sim, force, result.best_fields)
    if args.surfels is not None:
        drag = surfel_drag(sim, force, result.best_fields)
        np.savez_compressed(
            args.surfels,
            pressure_cd=drag.pressure_cd,
            friction_cd=drag.friction_cd,
            centroid_m=drag.centroid_m,
            area_m2=drag.area_m2,
            reference_area_m2=sim.reference_area_m2,
            part=drag.part,
            names=np.array(drag.names),
        )
    p_inf = (free_stream_density(sim, result.best_fields) - 1.0) / 3.0
    cd_at = {
        f"{x:.2f}": round(float(np.interp(x, breakdown.x_m, breakdown.cd_cumulative)), 4)
        for x in STATIONS_M
    }
    parts = {k: [round(p, 4), round(f, 4)] for k, (p, f) in breakdown.parts.items()}
    window = result.coefficients[len(result.coefficients) - result.averaged_steps :, 0, 0]
    halves = [round(float(h.mean()), 4) for h in np.array_split(window, 2)]
    spread = float(window.std() / window.mean())
    print(
        f"Cd {result.cd:.4f}  Cl {result.cl:.4f}  converged at {result.converged_step}; "
        f"per-step Cd over the window: spread {spread:.1%}, half-window means {halves}"
    )
    for name, (p, f) in parts.items():
        print(f"  {name:10s} pressure {p:+.4f}  friction {f:+.4f}")
    print("  Cd(x) behind the nose: " + ", ".join(f"{k} m {v}" for k, v in cd_at.items()))
    print("  centre-plane elements over the nose (x - x_nose [m], z [m], Cp):")
    cp_rows = nose_cp(sim, force, p_inf)
    for row in cp_rows:
        print(f"    {row[0]:.3f}  {row[1]:.3f}  {row[2]:+.2f}")
    record = {
        "overrides": overrides,
        "free_slip": args.free_slip,
        "cd": round(result.cd, 4),
        "cl": round(result.cl, 4),
        "parts": parts,
        "cd_at_x": cd_at,
        "nose_cp": cp_rows,
        "cd_spread": round(spread, 4),
        "cd_halves": halves,
        "converged_step": result.converged_step,
        "averaged_steps": result.averaged_steps,
        "wall_s": round(time.perf_counter() - start),
    }
    print(json.dumps(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
