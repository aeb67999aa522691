#!/usr/bin/env python3
"""Where a run's momentum exchange and surface integrals part: the per-slot gap from a checkpoint.

    python docs/experiments/exchange_gap.py CASE.yaml CHECKPOINT X_LO X_HI [key=value ...]

Reads the per-slot forces summed over the averaging window so far from a checkpoint of
`run_case.py` (`--out DIR` writes DIR/checkpoint/state.npz every run.checkpoint_every steps; the
key=value list must be the run's), sets the case up again on the CPU (one grid; refinement levels
are refused) and prints, in drag coefficients: the whole body's exchange, pressure + friction and
their gap (exchange - pressure - friction, as solver/drag_breakdown.py splits them over the
surface's entries; the free stream's pressure cancels in it); the same between X_LO and X_HI
metres from the body's most upstream point, by named part, by the slots' sharp-edge flag and
distance from the surface; and the twelve slots with the largest negative gap there (a thrust the
links hand over that the surface does not see), with their cell (x, y, z) and wall record
(solver/wall_geometry.py: normal, distance, area, edge). docs/validation.md, "The density gradient
by least squares", reads it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from checkpoint_window import open_window  # noqa: E402

from solver.drag_breakdown import drag_by_entry, slot_cells  # noqa: E402


def main() -> int:
    window = open_window(__doc__.split("\n")[0])
    sim, state, meta = window.sim, window.state, window.meta
    steps = int(meta["slot_force_steps"])
    print(f"checkpoint at step {meta['step']}, per-slot forces over {steps} steps")
    pressure, friction, exchange = drag_by_entry(sim, state["slot_force_sum"] / steps, 0.0)
    to_cd = sim.coefficients(np.array([1.0, 0.0, 0.0]))[0]
    pressure, friction, exchange = pressure * to_cd, friction * to_cd, exchange * to_cd
    gap = exchange - pressure - friction
    surface = sim.surface
    x_m = sim.grid.centers(0)[surface.entry_column] - sim.surface_x_min_m
    inside = (x_m >= window.x_lo_m) & (x_m < window.x_hi_m)

    def line(label: str, sel: np.ndarray) -> str:
        return (
            f"{label}: exchange {exchange[sel].sum():.4f}, pressure {pressure[sel].sum():.4f}, "
            f"friction {friction[sel].sum():.4f}, gap {gap[sel].sum():.4f}"
        )

    print(line("whole body", np.ones_like(inside)))
    print(line(f"x in [{window.x_lo_m}, {window.x_hi_m}) m", inside))
    for j, name in enumerate(sim.surface_part_names):
        sel = inside & (surface.entry_part == j)
        if sel.any():
            print("  " + line(name, sel))
    wall = np.asarray(sim.params["slot_wall"])
    slot_gap = np.bincount(surface.entry_slot[inside], weights=gap[inside], minlength=len(wall))
    edge = wall[:, 5] > 0.5
    print(
        f"  sharp-edge slots: gap {slot_gap[edge].sum():.4f};",
        f"the others {slot_gap[~edge].sum():.4f}",
    )
    for lo, hi in ((0.0, 0.1), (0.1, 0.3), (0.3, 0.6), (0.6, 2.0)):
        sel = ~edge & (wall[:, 3] >= lo) & (wall[:, 3] < hi)
        print(f"  the others {lo}-{hi} cells off the surface: gap {slot_gap[sel].sum():.4f}")
    cells = slot_cells(sim)
    for s in np.argsort(slot_gap)[:12]:
        print(
            f"  slot {s}: cell (x, y, z) {tuple(int(i) for i in cells[s])}, gap {slot_gap[s]:.5f}, "
            f"wall {np.array2string(wall[s], precision=3)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
