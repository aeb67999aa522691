#!/usr/bin/env python3
"""The mass the body's links hand each fluid cell next to the body, per step, as a transpiration
speed over the free stream: what `docs/experiments/mass_return.patch` records.

    python docs/experiments/wall_mass.py DUMP U_LATTICE [--centre X Y] [--cell X Y Z ...]
        [--line X Z ...]

DUMP is the patch's SLIP_MASS_DUMP prefix: DUMP_geom.npz (each slot's cell, the grid's shape,
the slot's fitted wall: normal, distance, marker, edge) and DUMP_state.npz (per slot: the summed
loss, the steps counted, the summed mass of the moving-wall term, the running mean; and the slot's
surface area vector in cells squared). A cell's loss in a step is what it would hold had its
body links returned what it sent them, less what it holds after the wall rule; it is the
interpolated bounce-back's defect less the mass the moving-wall term 6 w_q beta_q rho c_q . u_t
adds. Over a slot's area A (cells^2) a mean loss L per step is a flux into the wall at L / A
cells per step, the density taken as 1: v_s / U below (positive: suction; negative: blowing).
The means are over every step of the run.

--centre X Y (cells) bins the slots by angle from the front of a cylinder slab at (X, Y);
otherwise by ten bands along x. --cell prints single cells, --line the sum over the slots of one
row along y (cells X, any y, Z).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np


def load(prefix: str) -> dict[str, np.ndarray]:
    """Per tracked slot: cell coordinates, mean loss, mean moving-wall mass, area, wall row."""
    geom = np.load(prefix + "_geom.npz")
    state = np.load(prefix + "_state.npz")
    per_slot = state["state"].reshape(-1, 4)
    slots = geom["slots"]
    steps = per_slot[slots, 1]
    keep = steps > 0  # fluid cells with body links; solid surface cells hold slots too
    slots, cells, steps = slots[keep], geom["cells"][keep], steps[keep]
    z, y, x = np.unravel_index(cells, tuple(geom["shape_zyx"]))
    return {
        "x": x,
        "y": y,
        "z": z,
        "loss": per_slot[slots, 0] / steps,
        "moving_wall": per_slot[slots, 2] / steps,
        "area": np.linalg.norm(state["area"][slots], axis=1),
        "wall": geom["wall"][slots],
        "steps": steps,
    }


def flux(s: dict[str, np.ndarray], mask: np.ndarray, u: float) -> tuple[float, float]:
    """Mean transpiration over the masked slots' area, over U: all of it, the defect alone."""
    area = max(float(s["area"][mask].sum()), 1e-12)
    loss = s["loss"][mask].sum()
    return loss / area / u, (loss + s["moving_wall"][mask].sum()) / area / u


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dump")
    p.add_argument("u_lattice", type=float)
    p.add_argument("--centre", type=float, nargs=2)
    p.add_argument("--cell", type=int, nargs=3, action="append", default=[])
    p.add_argument("--line", type=int, nargs=2, action="append", default=[])
    a = p.parse_args()
    if not a.u_lattice > 0:
        print(
            "error: U_LATTICE must be the free stream's speed in lattice units, > 0",
            file=sys.stderr,
        )
        raise SystemExit(2)
    if not Path(a.dump + "_geom.npz").is_file():
        print(
            f"error: {a.dump}_geom.npz not found: run the patch with SLIP_MASS_DUMP",
            file=sys.stderr,
        )
        raise SystemExit(2)
    s, u = load(a.dump), a.u_lattice
    every = np.ones(len(s["x"]), bool)
    total, defect = flux(s, every, u)
    print(
        f"{len(s['x'])} slots, {s['steps'].max():.0f} steps; loss per step {s['loss'].sum():+.4e} "
        f"(defect {s['loss'].sum() + s['moving_wall'].sum():+.4e}, moving wall adds "
        f"{s['moving_wall'].sum():+.4e}); over the area v_s/U {total:+.3e} "
        f"(defect alone {defect:+.3e})"
    )
    vs = s["loss"] / np.maximum(s["area"], 1e-12) / u
    big = s["area"] > 0.05 * s["area"].mean()
    pct = np.percentile(vs[big], [1, 10, 50, 90, 99])
    print("per slot v_s/U, percentiles 1, 10, 50, 90, 99:", " ".join(f"{v:+.3f}" for v in pct))
    if a.centre:
        dy, dx = np.abs(s["y"] + 0.5 - a.centre[1]), a.centre[0] - s["x"] - 0.5
        angle = np.degrees(np.arctan2(dy, dx))
        bins = [(lo, (angle >= lo) & (angle < lo + 15)) for lo in range(0, 180, 15)]
        label = "deg"
    else:
        edges = np.linspace(s["x"].min(), s["x"].max() + 1, 11)
        bins = [
            (lo, (s["x"] >= lo) & (s["x"] < hi))
            for lo, hi in zip(edges[:-1], edges[1:], strict=True)
        ]
        label = "x from"
    for lo, mask in bins:
        if mask.any():
            t, d = flux(s, mask, u)
            print(f"  {label} {lo:6.1f}: {mask.sum():5d} slots, v_s/U {t:+.4f} (defect {d:+.4f})")
    for lx, lz in a.line:
        m = (s["x"] == lx) & (s["z"] == lz)
        if not m.any():
            print(f"  row ({lx}, y, {lz}): no slot with body links")
            continue
        print(
            f"  row ({lx}, y = {s['y'][m].min()}-{s['y'][m].max()}, {lz}): {m.sum()} slots, "
            f"loss per step {s['loss'][m].sum():+.4f}"
        )
    for cx, cy, cz in a.cell:
        m = np.flatnonzero((s["x"] == cx) & (s["y"] == cy) & (s["z"] == cz))
        if not m.size:
            print(f"  cell ({cx}, {cy}, {cz}): no slot with body links")
            continue
        i = m[0]
        print(
            f"  cell ({cx}, {cy}, {cz}): loss / U {s['loss'][i] / u:+.4f} (defect "
            f"{(s['loss'][i] + s['moving_wall'][i]) / u:+.4f}, moving wall adds "
            f"{s['moving_wall'][i] / u:+.4f}), v_s/U {vs[i]:+.4f}, normal "
            f"{np.round(s['wall'][i][:3], 3)}, distance {s['wall'][i][3]:.2f}"
        )


if __name__ == "__main__":
    main()
