"""In-place streaming (`resolution.streaming: aa`): one population buffer instead of two, the
layouts of its two parities, and which grids it runs (periodic grids, no-slip and moving
walls).

The kernels (`lbm_update_bulk_cell_in_place` in cuda/lbm_cell.cuh, after the AA pattern of
Bailey et al. 2009) alternate two layouts of the post-collision populations post(q, y) of the
cells y:

- parity 0, *swapped*: post(q, y) in plane opp(q) at y;
- parity 1, *pushed*: post(q, y) in plane q at y + c_q (periodic wrap).

The two-buffer pull (`ab`) keeps post(q, y) in plane q at y: the *canonical* layout. The
simulation hands populations out and takes them in the canonical layout in either mode, so a
checkpoint written in one mode resumes in the other, bit for bit, and needs no parity of its own.
Arrays are the planes of one buffer, [19 * plane_stride], the first n_cells of each plane a grid
[z, y, x]; `xp` is numpy or cupy, whichever holds the buffer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solver import lattice
from solver.errors import ConfigError
from solver.lattice import BULK, FLUID, GHOST, INLET, OUTFLOW, TYPE_MASK


def _planes(buffer: Any, shape_zyx: tuple[int, int, int], plane_stride: int) -> list[Any]:
    """Views of the 19 planes' grids, [z, y, x] each."""
    n = int(np.prod(shape_zyx))
    return [
        buffer[q * plane_stride : q * plane_stride + n].reshape(shape_zyx) for q in range(lattice.Q)
    ]


def swap_pairs(buffer: Any, shape_zyx: tuple[int, int, int], plane_stride: int) -> None:
    """Exchange the planes of each pair of opposite links, in place: the canonical layout to the
    swapped one and back."""
    planes = _planes(buffer, shape_zyx, plane_stride)
    for q in range(1, lattice.Q, 2):
        kept = planes[q].copy()
        planes[q][...] = planes[q + 1]
        planes[q + 1][...] = kept


def pushed_to_canonical(
    buffer: Any, shape_zyx: tuple[int, int, int], plane_stride: int, xp: Any
) -> None:
    """The pushed layout (post(q, y) in plane q at y + c_q) to the canonical one, in place: each
    plane rolled back by its link's vector."""
    for q, plane in enumerate(_planes(buffer, shape_zyx, plane_stride)):
        cx, cy, cz = (int(c) for c in lattice.C[q])
        if cx or cy or cz:
            plane[...] = xp.roll(plane, (-cz, -cy, -cx), axis=(0, 1, 2))


def to_canonical(
    buffer: Any, parity: int, shape_zyx: tuple[int, int, int], plane_stride: int, xp: Any
) -> None:
    """A buffer of in-place streaming at the given parity to the canonical layout, in place."""
    if parity == 0:
        swap_pairs(buffer, shape_zyx, plane_stride)
    else:
        pushed_to_canonical(buffer, shape_zyx, plane_stride, xp)


def check_in_place_grid(flags: np.ndarray, n_freeslip: int) -> None:
    """Refuse, with one line naming resolution.streaming, a grid that in-place streaming does not
    run yet. It updates bulk fluid cells (solver/wall_fill.py, mark_bulk) and fills the no-slip
    and moving walls next to them: so no body, inlet, outflow, free-slip wall or refinement
    ghost."""
    types = flags & TYPE_MASK
    open_cells = int(np.count_nonzero((types == INLET) | (types == OUTFLOW) | (types == GHOST)))
    not_bulk = int(np.count_nonzero((types == FLUID) & ((flags & BULK) == 0)))
    if open_cells or not_bulk or n_freeslip:
        raise ConfigError(
            "resolution.streaming=aa runs periodic grids and no-slip or moving walls only for now "
            f"(this grid has {not_bulk} cells next to the body, {n_freeslip} free-slip links and "
            f"{open_cells} inlet, outflow or ghost cells): set resolution.streaming=ab"
        )
