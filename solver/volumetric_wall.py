"""The volumetric wall's tables for the kernels: what each surface element gathers, and how each
cell near the body streams (Chen, Teixeira & Molvig 1998, Int. J. Mod. Phys. C 9, 1281; the
geometry from `solver/volumetric_geometry.py`; the method in `docs/solver.md`, "The volumetric
wall").

Every cell with fluid in it is a fluid cell holding its fluid volume V (cells^3); its populations
are densities, mass V f. One element per cut cell (the surfels in it, their area vectors summed)
takes, each step, the particles its prisms along -c_q hold, gamma_in[e, q] = sum v f_q(cell)
over its incoming parcels, and sends gamma_out[e, q] into its prisms along +c_q, spread by volume.
A cell x near the body then streams

    f_q(x) = keep[x, q] f_q(x - c_q) + sum over its entries (e, q, w) of w gamma_out[e, q],

keep[x, q] = (V(x - c_q) - I(x - c_q, q)) / V(x), I(y, q) the volume of the incoming parcels of
direction q in cell y (what the surface intercepts of y's fluid), and w = v / (V(x) A_out[e, q])
for an outgoing parcel of volume v in x (A_out[e, q] the element's outgoing prisms' volume).
Every other fluid cell pulls plainly (keep = 1, no entries).

Cells are flat indices n = x + nx (y + ny z); periodic axes wrap, and a mesh crossing a periodic
face must carry its images (as `shapes/turned_slabs.py` does).

The domain's walls (the floor, ...) hold no fluid: the surface and prisms inside them are left
out, and a link q from such a wall takes its rule times keep[x, q] = (V(x) - I(x, opp(q))) / V(x),
the share of x's particles along -c_q that reach the wall: exact for halfway bounce-back
(docs/solver.md, "The domain's walls").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.errors import ConfigError
from solver.grid import Grid
from solver.lattice import OPP, C, Q
from solver.surfels import Surfels, cut_into_cells
from solver.volumetric_geometry import (
    CellBox,
    clip_to_fluid,
    fluid_volume,
    mesh_on_grid,
    swept_parcels,
)


@dataclass(frozen=True)
class VolumetricWall:
    """The tables, numpy, float64 (the backends cast). volume (z, y, x) [cells^3]; per element: area
    vector [E, 3] [cells^2] (outward), centroid [E, 3] [cells], gather CSR (gather_start [E +
    1], gather_q, gather_cell, gather_volume), swept_out [E, Q] (the outgoing prisms' volume);
    per slot (a cell that does not pull plainly): slot_cell [S], keep [S, Q], scatter CSR
    (scatter_start [S + 1], scatter_element, scatter_q, scatter_weight); per surfel (the
    mesh's pieces in the fluid's cells): surfel_element, surfel_triangle (the mesh face it is
    part of), surfel_area_vector [cells^2], surfel_centroid [cells]; solid_parcel_volume,
    the prisms' volume that fell in the body's cells and was left out [cells^3] (those in the
    domain's walls are left out too, and not counted); overlap_volume, what clip_to_fluid took
    off a concave surface's overlapping parcels [cells^3]."""

    volume: np.ndarray
    element_cell: np.ndarray
    area_vector: np.ndarray
    centroid: np.ndarray
    gather_start: np.ndarray
    gather_q: np.ndarray
    gather_cell: np.ndarray
    gather_volume: np.ndarray
    swept_out: np.ndarray
    slot_cell: np.ndarray
    keep: np.ndarray
    scatter_start: np.ndarray
    scatter_element: np.ndarray
    scatter_q: np.ndarray
    scatter_weight: np.ndarray
    surfel_element: np.ndarray
    surfel_triangle: np.ndarray
    surfel_area_vector: np.ndarray
    surfel_centroid: np.ndarray
    solid_parcel_volume: float
    overlap_volume: float


def csr_start(owner: np.ndarray, n: int) -> np.ndarray:
    """Start offsets [n + 1] of rows sorted by owner."""
    return np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=n))]).astype(np.int64)


def _inside(box: CellBox, xyz: np.ndarray) -> np.ndarray:
    flat = box.flat(xyz)
    if (flat < 0).any():
        raise ConfigError(
            "key 'body.bounce_back' volumetric needs the body's surface at least a cell inside "
            "every face of the domain that is not periodic: move the body (body.center_m or the "
            "geometry's placement) or take body.bounce_back=interpolated"
        )
    return flat


def _source_volumes(
    box: CellBox,
    volume: np.ndarray,
    walls: np.ndarray,
    candidate: np.ndarray,
    incoming: tuple[np.ndarray, ...],
) -> np.ndarray:
    """V(x - c_q) - I(x - c_q, q) [len(candidate), Q] (V(x) for q = 0, whose particles stay;
    V(x) - I(x, opp(q)) for a source in the domain's walls (flat bool), whose rule returns
    them; 1 for a source past a face that does not wrap, which that face's rule fills)."""
    in_q, in_cell, in_vol = incoming
    n_cells = volume.size
    key, where = np.unique(in_q * n_cells + in_cell, return_inverse=True)
    intercepted = np.bincount(where, weights=in_vol)

    def intercepted_at(q: int, cells: np.ndarray) -> np.ndarray:
        at = np.minimum(np.searchsorted(key, q * n_cells + cells), len(key) - 1)
        return np.where(key[at] == q * n_cells + cells, intercepted[at], 0.0)

    out = np.ones((len(candidate), Q))
    out[:, 0] = volume[candidate]
    for q in range(1, Q):
        source = box.neighbour(candidate, -C[q])
        inside = np.flatnonzero(source >= 0)
        out[inside, q] = volume[source[inside]] - intercepted_at(q, source[inside])
        wall = inside[walls[source[inside]]]
        out[wall, q] = volume[candidate[wall]] - intercepted_at(int(OPP[q]), candidate[wall])
    return out


def build_volumetric_wall(
    triangles_cells: np.ndarray,
    shape_zyx: tuple[int, int, int],
    periodic: np.ndarray,
    walls: np.ndarray | None = None,
) -> VolumetricWall:
    """The tables of a closed, outward-oriented mesh, triangles [m, 3, 3] in cells (cell (i, j, k)
    the unit cube from (i, j, k)), in a box of shape (nz, ny, nx) with periodic (x, y, z);
    walls: bool (z, y, x), the domain's wall cells, which hold no fluid (None: none)."""
    nz, ny, nx = shape_zyx
    surfels = cut_into_cells(triangles_cells, (nx, ny, nz))
    return volumetric_wall_of_surfels(surfels, shape_zyx, periodic, walls)


def body_surfels(
    surfels: Surfels, shape_zyx: tuple[int, int, int], periodic: np.ndarray, walls: np.ndarray
) -> Surfels:
    """The surfels the elements are made of: those in the box's cells, not in the domain's walls
    (bool (z, y, x))."""
    box = CellBox(shape_zyx, np.asarray(periodic, bool))
    surfels = surfels.within(tuple(shape_zyx[::-1]))
    return surfels.take(np.flatnonzero(~walls.ravel()[_inside(box, surfels.cell)]))


def volumetric_wall_of_surfels(
    surfels: Surfels,
    shape_zyx: tuple[int, int, int],
    periodic: np.ndarray,
    walls: np.ndarray | None = None,
) -> VolumetricWall:
    """build_volumetric_wall from the mesh's surfels (`cut_into_cells` with the box given)."""
    box = CellBox(shape_zyx, np.asarray(periodic, bool))
    walls = np.zeros(shape_zyx, bool) if walls is None else np.asarray(walls, bool)
    flat_walls = walls.ravel()
    volume = fluid_volume(surfels, shape_zyx)
    volume[walls] = 0.0
    flat_volume = volume.ravel()
    surfels = body_surfels(surfels, shape_zyx, periodic, walls)
    element_cell, element = np.unique(_inside(box, surfels.cell), return_inverse=True)
    n_el = len(element_cell)
    area_vector, centroid = np.zeros((2, n_el, 3))
    np.add.at(area_vector, element, surfels.area_vector)
    np.add.at(centroid, element, surfels.area[:, None] * surfels.centroid)
    centroid /= np.maximum(np.bincount(element, weights=surfels.area, minlength=n_el), 1e-300)[
        :, None
    ]
    parcels = swept_parcels(surfels, element)
    target = _inside(box, parcels.cell)
    # parcels in the body's cells: rounding (1e-15) where the surface lies on the cells' faces;
    # more where prisms of a concave surface cross the body
    in_fluid = flat_volume[target] > 0
    solid_parcels = float(parcels.volume[~in_fluid & ~flat_walls[target]].sum())
    parcels, target = parcels.take(in_fluid), target[in_fluid]
    parcels, overlap = clip_to_fluid(parcels, target, flat_volume)
    inc, out = ~parcels.outgoing, parcels.outgoing
    gather = np.lexsort((parcels.q[inc], parcels.element[inc]))
    in_el, in_q = parcels.element[inc][gather], parcels.q[inc][gather]
    in_cell, in_vol = target[inc][gather], parcels.volume[inc][gather]
    out_el, out_q, out_cell = parcels.element[out], parcels.q[out], target[out]
    swept_out = np.zeros((n_el, Q))
    np.add.at(swept_out, (out_el, out_q), parcels.volume[out])
    # the cells whose pull may differ from the plain one: a cut cell, a cell whose source is cut
    # or intercepted, a cell the elements send into
    touched = np.union1d(np.flatnonzero((flat_volume < 1) & ~flat_walls), in_cell)
    near = np.concatenate([box.neighbour(touched, C[q]) for q in range(1, Q)])
    candidate = np.union1d(np.union1d(touched, near), out_cell)
    candidate = candidate[candidate >= 0]
    candidate = candidate[flat_volume[candidate] > 0]
    source_volume = _source_volumes(
        box, flat_volume, flat_walls, candidate, (in_q, in_cell, in_vol)
    )
    special = (
        (flat_volume[candidate] < 1)
        | (source_volume != 1).any(axis=1)
        | np.isin(candidate, out_cell)
    )
    slot_cell = candidate[special]
    slot_of = np.full(flat_volume.size, -1, np.int64)
    slot_of[slot_cell] = np.arange(len(slot_cell))
    weight = parcels.volume[out] / (flat_volume[out_cell] * swept_out[out_el, out_q])
    scatter = np.argsort(slot_of[out_cell], kind="stable")
    return VolumetricWall(
        volume=volume,
        element_cell=element_cell,
        area_vector=area_vector,
        centroid=centroid,
        gather_start=csr_start(in_el, n_el),
        gather_q=in_q,
        gather_cell=in_cell,
        gather_volume=in_vol,
        swept_out=swept_out,
        slot_cell=slot_cell,
        keep=source_volume[special] / flat_volume[slot_cell, None],
        scatter_start=csr_start(slot_of[out_cell], len(slot_cell)),
        scatter_element=out_el[scatter],
        scatter_q=out_q[scatter],
        scatter_weight=weight[scatter],
        surfel_element=element,
        surfel_triangle=surfels.triangle,
        surfel_area_vector=surfels.area_vector,
        surfel_centroid=surfels.centroid,
        solid_parcel_volume=solid_parcels,
        overlap_volume=overlap,
    )


def volumetric_wall_on_grid(
    vertices_m: np.ndarray, faces: np.ndarray, grid: Grid, periodic: np.ndarray
) -> VolumetricWall:
    """The tables of a mesh (vertices [m], faces) on a grid, its periodic axes (x, y, z)."""
    triangles, walls = mesh_on_grid(vertices_m, faces, grid)
    return build_volumetric_wall(triangles, grid.shape_zyx, periodic, walls)
