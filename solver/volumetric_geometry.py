"""The volumetric wall's geometry, exact for a closed triangle mesh: each cell's fluid volume
and, for each surfel and lattice direction, the volumes its one-step prisms cut from the cells
(Chen, Teixeira & Molvig 1998, Int. J. Mod. Phys. C 9, 1281; the two- and three-dimensional
models in `docs/experiments/volumetric_wall_2d.py` and `volumetric_wall_3d.py`).

Lengths are in cells, cell (i, j, k) the unit cube from (i, j, k); dense arrays are (z, y, x), as
the kernels store them.

Fluid volume. For the solid part of a column of cells along x left of a plane x = X, the
divergence theorem with F = (x - X, 0, 0) leaves only the surface's part of the boundary:
S(X) = sum over surfels left of X of (M1 - X M0), with M0 = A n_x and M1 = A n_x x_c (area A,
outward normal n, centroid x_c). The column must start outside the body; cell i's solid is
S(i + 1) - S(i).

Swept prisms. A surfel P in cell C with c . n != 0 sweeps in one step the prism {s + t v: s in P,
0 <= t <= 1}, v = c where c . n > 0 (its outgoing particles land there) and v = -c where
c . n < 0 (the particles that reach it come from there); its volume is A |c . n|. With
parametrisation by (s, t) the volume element is |c . n| dA dt, and s + t v leaves C along an axis
a with v_a != 0 at t = d_a(s) (d_a = i_a + 1 - s_a for v_a > 0, s_a - i_a for v_a < 0), linear in
s. One such axis: the volume staying in C is |c . n| A d_a(x_c), the rest lands in C + v. Two
(the diagonals of D3Q19): P is split by the plane d_a = d_b, on each side the four cells' shares
are linear (min(d_a, d_b) in C, 1 - max in C + v, |d_a - d_b| in the cell of the axis left
first), each exact from the piece's area and centroid.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from solver.grid import Grid
from solver.lattice import OPP, C
from solver.surfels import Surfels, clip_half_space, polygon_moments

#: Parcels smaller than this [cells^3] are dropped.
MIN_VOLUME = 1e-15


@dataclass(frozen=True)
class Parcels:
    """Pieces of the surface elements' swept prisms, one per (element, direction q, cell):
    volume [cells^3] of the prism of direction q of the element that lies in cell (i, j, k)
    (unwrapped: the caller wraps periodic axes). outgoing: the prism along +c_q, where the
    element's particles moving along c_q land; otherwise the prism along -c_q, the cells whose
    particles moving along c_q reach the element within the step."""

    element: np.ndarray
    q: np.ndarray
    cell: np.ndarray
    volume: np.ndarray
    outgoing: np.ndarray

    @staticmethod
    def join(parts: list[Parcels]) -> Parcels:
        return Parcels(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))

    def take(self, index: np.ndarray) -> Parcels:
        return Parcels(*(getattr(self, f)[index] for f in _FIELDS))


def solid_volume(surfels: Surfels, shape_zyx: tuple[int, int, int]) -> np.ndarray:
    """Each cell's solid volume [cells^3], (z, y, x), from the surfels of a closed mesh whose
    columns along x start outside the body (surfels left of the box count; those beyond it and
    outside its y-z extent do not)."""
    nz, ny, nx = shape_zyx
    i, j, k = surfels.cell.T
    m0 = surfels.area_vector[:, 0]
    m1 = m0 * surfels.centroid[:, 0]
    counted = (j >= 0) & (j < ny) & (k >= 0) & (k < nz) & (i < nx)
    column = np.maximum(i[counted], -1) + 1  # 0 gathers what lies left of the box
    own0, own1 = np.zeros((2, nz, ny, nx + 1))
    np.add.at(own0, (k[counted], j[counted], column), m0[counted])
    np.add.at(own1, (k[counted], j[counted], column), m1[counted])
    left0 = np.cumsum(own0, axis=-1)[..., :-1]  # M0 of every surfel left of cell x
    x = np.arange(nx)
    # solid(x) = S(x + 1) - S(x) = (M1 - (x + 1) M0 of its own surfels) - (M0 left of it)
    return own1[..., 1:] - (x + 1) * own0[..., 1:] - left0


def fluid_volume(surfels: Surfels, shape_zyx: tuple[int, int, int]) -> np.ndarray:
    """Each cell's fluid volume in [0, 1] [cells^3], (z, y, x); rounding slivers under 1e-9 of
    a cell go to 0 or 1."""
    fluid = 1.0 - solid_volume(surfels, shape_zyx)
    fluid[np.abs(fluid) < 1e-9] = 0.0
    fluid[np.abs(fluid - 1.0) < 1e-9] = 1.0
    return np.clip(fluid, 0.0, 1.0)


_FIELDS = ("element", "q", "cell", "volume", "outgoing")


def _exit_parameter(
    point: np.ndarray, cell: np.ndarray, sweep: np.ndarray, axis: int
) -> np.ndarray:
    """d_a: where s + t v leaves the cell along axis a (v_a != 0), for points s [m, 3]."""
    if sweep[axis] > 0:
        return cell[:, axis] + 1.0 - point[:, axis]
    return point[:, axis] - cell[:, axis]


def _step(sweep: np.ndarray, axes: list[int]) -> np.ndarray:
    """The cell offset of the sweep's components along axes."""
    step = np.zeros(3, np.int64)
    step[axes] = sweep[axes].astype(np.int64)
    return step


def _axis_parcels(surfels: Surfels, sweep: np.ndarray, swept: np.ndarray) -> list[tuple]:
    """(cell, volume) pairs of prisms along a grid axis: d_a at the centroid stays in the cell."""
    (a,) = np.flatnonzero(sweep)
    d = _exit_parameter(surfels.centroid, surfels.cell, sweep, a)
    return [(surfels.cell, swept * d), (surfels.cell + _step(sweep, [a]), swept * (1.0 - d))]


def _diagonal_parcels(surfels: Surfels, sweep: np.ndarray, swept: np.ndarray) -> list[tuple]:
    """(cell, volume) pairs of prisms along a diagonal (axes a, b): the surfel split where
    d_a = d_b, each side's shares linear in the point."""
    a, b = np.flatnonzero(sweep)
    cell = surfels.cell
    # d_a - d_b = g . s + h
    g = np.zeros(3)
    g[a], g[b] = -sweep[a], sweep[b]
    h = (cell[:, a] + (sweep[a] > 0)) * sweep[a] - (cell[:, b] + (sweep[b] > 0)) * sweep[b]
    per_area = swept / np.maximum(surfels.area, 1e-300)
    rows = []
    for first, other, normal, offset in ((a, b, g, -h), (b, a, -g, h)):
        side = clip_half_space(surfels.polygon, normal, offset)  # where d_first <= d_other
        _, side_area, centre = polygon_moments(side)
        d_first = _exit_parameter(centre, cell, sweep, first)
        d_other = _exit_parameter(centre, cell, sweep, other)
        volume = per_area * side_area
        rows += [
            (cell, volume * d_first),
            (cell + _step(sweep, [first]), volume * (d_other - d_first)),
            (cell + _step(sweep, [a, b]), volume * (1.0 - d_other)),
        ]
    return rows


def _surfel_parcels(surfels: Surfels) -> Parcels:
    """The prisms of every surfel and direction (with c . n != 0) split over the cells."""
    parts = []
    for q in range(1, len(C)):
        c = C[q].astype(float)
        c_dot_a = surfels.area_vector @ c
        for outgoing in (True, False):
            index = np.flatnonzero(c_dot_a > MIN_VOLUME if outgoing else c_dot_a < -MIN_VOLUME)
            sweep = c if outgoing else -c
            split = _axis_parcels if np.count_nonzero(c) == 1 else _diagonal_parcels
            for cell, volume in split(surfels.take(index), sweep, np.abs(c_dot_a[index])):
                label = np.full(len(index), q), np.full(len(index), outgoing)
                parts.append(Parcels(index, label[0], cell, volume, label[1]))
    merged = Parcels.join(parts)
    return merged.take(merged.volume > MIN_VOLUME)


def _merge(parcels: Parcels) -> Parcels:
    """One parcel per (element, q, cell, outgoing), the volumes summed."""
    key = np.stack([parcels.element, parcels.q, *parcels.cell.T, parcels.outgoing])
    order = np.lexsort(key[::-1])
    key = key[:, order]
    first = np.ones(key.shape[1], bool)
    first[1:] = (key[:, 1:] != key[:, :-1]).any(axis=0)
    start = np.flatnonzero(first)
    return Parcels(
        element=key[0, start],
        q=key[1, start],
        cell=key[2:5, start].T.copy(),
        volume=np.add.reduceat(parcels.volume[order], start),
        outgoing=key[5, start].astype(bool),
    )


def swept_parcels(
    surfels: Surfels, element: np.ndarray | None = None, chunk: int = 20_000
) -> Parcels:
    """The swept prisms' parcels, one per (element, q, cell, outgoing): element [m] gives each
    surfel's element (by default each surfel is its own). An element of surfels in different
    planes may have prisms of one direction both ways, in and out."""
    element = np.arange(len(surfels.cell)) if element is None else np.asarray(element)
    parts = []
    for i in range(0, len(surfels.cell), chunk):
        index = np.arange(i, min(i + chunk, len(surfels.cell)))
        p = _surfel_parcels(surfels.take(index))
        parts.append(_merge(Parcels(element[index][p.element], p.q, p.cell, p.volume, p.outgoing)))
    return _merge(Parcels.join(parts))


def clip_to_fluid(parcels: Parcels, cell: np.ndarray, volume: np.ndarray) -> tuple[Parcels, float]:
    """The parcels (in flat cells `cell`, of fluid `volume`, flat) with no cell's incoming
    parcels of a link claiming more than its fluid, and the volume taken off them [cells^3].

    A convex surface's prisms lie in the fluid and never overlap. Where a concave surface's do
    (a stilt under a body: one prism runs into the other surface, or across it into solid) the
    incoming parcels of link q in a cell y can add up to more than V(y), and by the transport
    identity V(x) - O(x, q) = V(y) - I(y, q) the cell x = y + c_q then keeps a negative share.
    Those parcels, and their twins (the outgoing parcels of the opposite link in the same cell,
    the same prisms), are scaled down to V(y): the identity pairs the excess with the same one at
    x, so the parcels still keep mass and rest, and no keep goes below zero. Where prisms
    overlap by less than the fluid, they are left as they are."""
    link = np.where(parcels.outgoing, OPP[parcels.q], parcels.q)  # the incoming link served
    key, where = np.unique(link * volume.size + cell, return_inverse=True)
    claimed = np.bincount(where, weights=np.where(parcels.outgoing, 0.0, parcels.volume))
    fluid = volume[key % volume.size]
    factor = np.where(claimed > fluid, fluid / np.where(claimed > 0.0, claimed, 1.0), 1.0)
    scaled = parcels.volume * factor[where]
    taken = float((parcels.volume - scaled)[~parcels.outgoing].sum())
    return replace(parcels, volume=scaled), taken


@dataclass(frozen=True)
class CellBox:
    """The grid's cells as flat indices, wrapped on its periodic axes."""

    shape_zyx: tuple[int, int, int]
    periodic: np.ndarray  # bool (x, y, z)

    @property
    def size(self) -> np.ndarray:
        return np.array(self.shape_zyx[::-1])

    def flat(self, xyz: np.ndarray) -> np.ndarray:
        """Flat indices of cells (i, j, k); -1 for a cell past a face that does not wrap."""
        size = self.size
        xyz = np.where(self.periodic, xyz % size, xyz)
        outside = ((xyz < 0) | (xyz >= size)).any(axis=1)
        return np.where(outside, -1, xyz[:, 0] + size[0] * (xyz[:, 1] + size[1] * xyz[:, 2]))

    def neighbour(self, cell: np.ndarray, step: np.ndarray) -> np.ndarray:
        """Flat indices of cell + step for flat cells (-1 past a face that does not wrap)."""
        nx, ny, _ = self.size
        return self.flat(np.stack([cell % nx, (cell // nx) % ny, cell // (nx * ny)], 1) + step)


def mesh_on_grid(
    vertices_m: np.ndarray, faces: np.ndarray, grid: Grid
) -> tuple[np.ndarray, np.ndarray]:
    """A mesh (vertices [m], faces) as triangles [m, 3, 3] in the grid's cells, and the grid's
    boundary layers, the domain's walls (bool (z, y, x))."""
    lo_cell_m = grid.origin_m - np.asarray(grid.ghost_lo) * grid.dx_m  # where cell 0 starts
    triangles = ((np.asarray(vertices_m, float) - lo_cell_m) / grid.dx_m)[np.asarray(faces)]
    walls = np.ones(grid.shape_zyx, bool)
    walls[grid.interior()] = False
    return triangles, walls
