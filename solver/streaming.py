"""In-place streaming (`resolution.streaming: aa`): one population buffer instead of two, the
layouts of its two parities, and which grids it runs.

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
from solver.lattice import BULK, FLUID, TYPE_MASK

STREAMINGS = ("ab", "aa")


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


def check_in_place_grid(flags: np.ndarray, n_freeslip: int, n_wall_fill: int) -> None:
    """Refuse, with one line naming resolution.streaming, a grid that in-place streaming does not
    run yet: it updates bulk fluid cells only (every neighbour a fluid cell), so no inlet,
    outflow, body, wall next to the fluid or refinement ghost."""
    types = flags & TYPE_MASK
    updated = types == FLUID
    others = int(np.count_nonzero(~updated & (types != lattice.SOLID)))
    not_bulk = int(np.count_nonzero(updated & ((flags & BULK) == 0)))
    if others or not_bulk or n_freeslip or n_wall_fill:
        raise ConfigError(
            "resolution.streaming=aa runs periodic grids of fluid cells only for now (this grid "
            f"has {not_bulk + n_wall_fill} cells next to walls or the body and {others} inlet, "
            "outflow, wall or ghost cells that touch the flow): set resolution.streaming=ab"
        )
