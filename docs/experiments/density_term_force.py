#!/usr/bin/env python3
"""How much of a slip-rule run's momentum exchange is the density term's, from a checkpoint.

    python docs/experiments/density_term_force.py CASE.yaml CHECKPOINT X_LO X_HI [key=value ...]

`walls.body_rule=slip` gives each body link of a cell off the sharp edges -w_q c_q . grad_t rho
(`lbm_body_density_along`, cuda/lbm_wall_model.cuh) and books the momentum's opposite on the body,
w_q c_q (c_q . grad_t rho) per link: a push along the surface that a wall's pressure cannot give.
The term is linear in the density, so its time mean is the term of the mean density: this
evaluates it on the mean density of a `run_case.py` checkpoint (DIR/checkpoint/state.npz; the
key=value list must be the run's; one grid) with the kernel's fit (the weighted least squares
over the cell's fluid neighbours on its 18 links, through its own density) and prints its drag
coefficient over the whole body and between X_LO and X_HI metres from the body's most upstream
point, beside the exchange and pressure + friction of the checkpoint's per-slot forces
(exchange_gap.py). The mean density is the window's samples (run.sample_every apart), the slot
forces every step's: the two windows match in span, not step by step. docs/validation.md, "The
density gradient by least squares", reads it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from checkpoint_window import open_window  # noqa: E402

from solver import lattice  # noqa: E402
from solver.drag_breakdown import drag_by_entry  # noqa: E402


def density_term_force(sim, rho: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The density term's force on the body at each slot cell [n, 3] (lattice units per step)
    and the cells (z, y, x) [n, 3], for the density rho [z, y, x] on the sim's grid."""
    flags = sim.flags_host
    shape = np.array(flags.shape)
    cells = np.argwhere(sim.slot_host >= 0)
    wall = np.asarray(sim.params["slot_wall"])[sim.slot_host[tuple(cells.T)]]
    cells, wall = (
        cells[(wall[:, 4] > 0) & ~(wall[:, 5] > 0.5)],
        wall[(wall[:, 4] > 0) & ~(wall[:, 5] > 0.5)],
    )
    normal = wall[:, :3]
    c_zyx = lattice.C[:, ::-1]
    kind = flags & lattice.TYPE_MASK
    m = np.zeros((len(cells), 3, 3))
    b = np.zeros((len(cells), 3))
    rho_own = rho[tuple(cells.T)]
    body_links = []
    for q in range(1, lattice.Q):
        ahead = tuple(((cells + c_zyx[q]) % shape).T)
        fluid = kind[ahead] == lattice.FLUID
        c = lattice.C[q].astype(float)
        m += fluid[:, None, None] * lattice.W[q] * np.outer(c, c)
        b += (fluid * lattice.W[q] * (rho[ahead] - rho_own))[:, None] * c
        behind = tuple(((cells - c_zyx[q]) % shape).T)
        source = flags[behind]
        body_links.append(
            ((source & lattice.BODY) > 0)
            & (
                ((source & lattice.TYPE_MASK) == lattice.SOLID)
                | ((source & lattice.TYPE_MASK) == lattice.MOVING)
            )
        )
    det = np.linalg.det(m)
    scale = np.trace(m, axis1=1, axis2=2) / 3
    ok = det > 0.01 * scale**3
    grad = np.zeros_like(b)
    grad[ok] = np.linalg.solve(m[ok], b[ok][:, :, None])[:, :, 0]
    grad_t = grad - (grad * normal).sum(axis=1)[:, None] * normal
    force = np.zeros_like(grad)
    for q in range(1, lattice.Q):
        c = lattice.C[q].astype(float)
        force += (body_links[q - 1] * lattice.W[q] * (grad_t @ c))[:, None] * c
    return force, cells


def main() -> int:
    window = open_window(__doc__.split("\n")[0])
    sim, state, meta = window.sim, window.state, window.meta
    rho = state["rho_sum_0"] / meta["n_samples"]  # on the whole grid, boundary layers included
    force, cells = density_term_force(sim, rho)
    to_cd = sim.coefficients(np.array([1.0, 0.0, 0.0]))[0]
    x_m = sim.grid.centers(0)[cells[:, 2]] - sim.surface_x_min_m
    inside = (x_m >= window.x_lo_m) & (x_m < window.x_hi_m)
    steps = int(meta["slot_force_steps"])
    pressure, friction, exchange = drag_by_entry(sim, state["slot_force_sum"] / steps, 0.0)
    entry_x = sim.grid.centers(0)[sim.surface.entry_column] - sim.surface_x_min_m
    entry_in = (entry_x >= window.x_lo_m) & (entry_x < window.x_hi_m)
    print(
        f"checkpoint at step {meta['step']}: {meta['n_samples']} samples,",
        f"slot forces over {steps} steps",
    )
    for label, sel, esel in (
        ("whole body", np.ones_like(inside), np.ones_like(entry_in)),
        (f"x in [{window.x_lo_m}, {window.x_hi_m}) m", inside, entry_in),
    ):
        print(
            f"{label}: density term {force[sel, 0].sum() * to_cd:.4f}; exchange "
            f"{exchange[esel].sum() * to_cd:.4f}, pressure + friction "
            f"{(pressure[esel] + friction[esel]).sum() * to_cd:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
