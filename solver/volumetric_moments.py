"""The moments the projected volumetric wall needs (docs/validation.md, "What the cut cells'
shift is"; after Hoefnagel, Casalino, Hulshoff & de Prenter 2025, arXiv:2509.05035): each cut
cell's fluid volume, centroid and second moment, exact for a closed triangle mesh.

Lengths are in cells, cell (i, j, k) the unit cube from (i, j, k); dense arrays are (z, y, x).

The solid's moments in a cell come from the surfels alone, as its volume does in
`solver/volumetric_geometry.py`: for a monomial g = x^a eta^b zeta^c (eta, zeta the offsets from
the column's centre line in y and z) the field F = (G(x) - G(X), 0, 0), dG/dx = g, has
divergence g and vanishes on the plane x = X and across the column's sides, so the solid's
integral of g left of X is the sum over the column's surfels left of X of the integral of
(G(x) - G(X)) n_x over the surfel; a cell's is the difference at its two faces. The surfel
integrals are polynomials of degree up to 3, exact by a degree-3 rule on each triangle of the
surfel's fan (Strang & Fix 1973, the six-point rule).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from solver.surfels import Polygons, Surfels

#: The six-point degree-3 triangle rule: the permutations of these barycentric coordinates,
#: each weighing a sixth of the triangle's area (Strang & Fix 1973, An Analysis of the Finite
#: Element Method, Table 4.1).
_BARYCENTRIC = np.array(
    sorted(set(itertools.permutations((0.659027622374092, 0.231933368553031, 0.109039009072877))))
)

#: The monomials x^a eta^b zeta^c of degree up to 2, as (a, b, c).
MONOMIALS = ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (2, 0, 0), (1, 1, 0), (1, 0, 1))
MONOMIALS += ((0, 2, 0), (0, 1, 1), (0, 0, 2))


def polygon_quadrature(poly: Polygons) -> tuple[np.ndarray, np.ndarray]:
    """Points [m, n, 3] and weights [m, n] [cells^2] that integrate any polynomial of degree up
    to 3 exactly over each convex polygon (its fan of triangles from the first vertex)."""
    v = poly.vertices
    a, b, c = v[:, :1], v[:, 1:-1], v[:, 2:]  # fan triangles [m, k - 2, 3]
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=2)
    area *= np.arange(area.shape[1])[None, :] + 2 < poly.count[:, None]
    lam = _BARYCENTRIC
    points = (
        lam[None, None, :, 0, None] * a[:, :, None]
        + lam[None, None, :, 1, None] * b[:, :, None]
        + lam[None, None, :, 2, None] * c[:, :, None]
    )
    weights = np.repeat(area[:, :, None] / len(lam), len(lam), axis=2)
    m = len(v)
    return points.reshape(m, -1, 3), weights.reshape(m, -1)


#: Cells with less fluid than this [cells^3] carry no slope: their second moment is too thin to
#: invert in float32 (their means stream as the volumetric wall's).
SLOPE_MIN_VOLUME = 1e-3


@dataclass(frozen=True)
class SolidMoments:
    """The solid's moments in each cell that holds a surfel: cell [n, 3] (i, j, k), volume [n]
    [cells^3], first [n, 3] about the cell's centre [cells^4] and second [n, 3, 3] about the
    cell's centre [cells^5]."""

    cell: np.ndarray
    volume: np.ndarray
    first: np.ndarray
    second: np.ndarray


def solid_moments(surfels: Surfels, shape_zyx: tuple[int, int, int]) -> SolidMoments:
    """The solid's moments in each cell that holds a surfel. The mesh is closed and
    outward-oriented and its columns along x start outside the body (surfels left of the box
    count, as in `solid_volume`)."""
    nz, ny, nx = shape_zyx
    i, j, k = surfels.cell.T
    counted = (j >= 0) & (j < ny) & (k >= 0) & (k < nz) & (i < nx)
    s = surfels.take(np.flatnonzero(counted))
    i, j, k = s.cell.T
    column_i = np.maximum(i, -1)  # what lies left of the box gathers at -1
    points, weights = polygon_quadrature(s.polygon)
    n_x = s.area_vector[:, 0] / np.maximum(s.area, 1e-300)
    x = points[..., 0]
    eta = points[..., 1] - (j[:, None] + 0.5)
    zeta = points[..., 2] - (k[:, None] + 0.5)
    # per surfel and monomial: F1 = int x^(a+1)/(a+1) eta^b zeta^c n_x, F0 = int eta^b zeta^c n_x
    f1 = np.stack(
        [(weights * x ** (a + 1) / (a + 1) * eta**b * zeta**c).sum(axis=1) for a, b, c in MONOMIALS]
    )
    f0 = np.stack([(weights * eta**b * zeta**c).sum(axis=1) for a, b, c in MONOMIALS])
    f1 *= n_x
    f0 *= n_x
    # sum per cell, then along each column: the surfels left of each cell
    key = (k.astype(np.int64) * ny + j) * (nx + 1) + (column_i + 1)
    cells, where = np.unique(key, return_inverse=True)
    own1 = np.stack([np.bincount(where, weights=f, minlength=len(cells)) for f in f1])
    own0 = np.stack([np.bincount(where, weights=f, minlength=len(cells)) for f in f0])
    column = cells // (nx + 1)
    start = np.r_[True, column[1:] != column[:-1]]
    running = np.cumsum(own0, axis=1)
    before = running - own0  # everything up to the cell before, within the whole array
    base = np.maximum.accumulate(np.where(start, np.arange(len(cells)), 0))
    left0 = before - before[:, base]  # within the column only
    ci = (cells % (nx + 1)) - 1
    keep = ci >= 0
    x0, x1 = ci.astype(float), ci + 1.0
    moments = []
    for n_m, (a, _, _) in enumerate(MONOMIALS):
        g1 = x1 ** (a + 1) / (a + 1)
        g0 = x0 ** (a + 1) / (a + 1)
        moments.append(own1[n_m] - g1 * own0[n_m] - (g1 - g0) * left0[n_m])
    mom = np.array(moments)[:, keep]
    ci, cj, ck = ci[keep], (column[keep] % ny), (column[keep] // ny)
    centre_x = ci + 0.5
    # the monomials about the cell's centre: shift x by its centre
    vol = mom[0]
    mx, my, mz = mom[1] - centre_x * vol, mom[2], mom[3]
    sxx = mom[4] - 2 * centre_x * mom[1] + centre_x**2 * vol
    sxy = mom[5] - centre_x * mom[2]
    sxz = mom[6] - centre_x * mom[3]
    second = np.stack(
        [
            np.stack([sxx, sxy, sxz], axis=-1),
            np.stack([sxy, mom[7], mom[8]], axis=-1),
            np.stack([sxz, mom[8], mom[9]], axis=-1),
        ],
        axis=-2,
    )
    return SolidMoments(
        cell=np.stack([ci, cj, ck], axis=1),
        volume=vol,
        first=np.stack([mx, my, mz], axis=1),
        second=second,
    )


@dataclass(frozen=True)
class FluidMoments:
    """Each fluid cell's centroid offset from its centre [n, 3] and the inverse of its fluid
    second moment about the centroid [n, 3, 3] (0 where it carries no slope), by flat cell,
    stored for the cut cells only (whole cells: offset 0, inverse 12 I)."""

    cut: np.ndarray  # sorted flat cells
    offset: np.ndarray
    second: np.ndarray
    second_inv: np.ndarray

    def _at(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        at = np.minimum(np.searchsorted(self.cut, cells), max(len(self.cut) - 1, 0))
        found = (self.cut[at] == cells) if len(self.cut) else np.zeros(len(cells), bool)
        return at, found

    def offset_of(self, cells: np.ndarray) -> np.ndarray:
        at, found = self._at(cells)
        return np.where(found[:, None], self.offset[at] if len(self.cut) else 0.0, 0.0)

    def second_of(self, cells: np.ndarray) -> np.ndarray:
        at, found = self._at(cells)
        whole = np.broadcast_to(np.eye(3) / 12, (len(cells), 3, 3))
        return np.where(found[:, None, None], self.second[at] if len(self.cut) else 0.0, whole)

    def inverse_of(self, cells: np.ndarray) -> np.ndarray:
        at, found = self._at(cells)
        whole = np.broadcast_to(12 * np.eye(3), (len(cells), 3, 3))
        return np.where(found[:, None, None], self.second_inv[at] if len(self.cut) else 0.0, whole)


def fluid_moments(
    surfels: Surfels, shape_zyx: tuple[int, int, int], flat_volume: np.ndarray
) -> FluidMoments:
    """The cut cells' fluid moments from the surfels (all of them, as `solid_moments` takes them)
    and every cell's fluid volume (flat)."""
    nz, ny, nx = shape_zyx
    solid = solid_moments(surfels, shape_zyx)
    flat = solid.cell[:, 0] + nx * (solid.cell[:, 1] + ny * solid.cell[:, 2])
    v = flat_volume[flat]
    cut = (v > 0) & (v < 1)
    order = np.argsort(flat[cut])
    flat, v = flat[cut][order], v[cut][order]
    first, second_solid = solid.first[cut][order], solid.second[cut][order]
    offset = -first / v[:, None]
    second = np.eye(3) / 12 - second_solid - v[:, None, None] * offset[:, :, None] * offset[:, None]
    carries = (v >= SLOPE_MIN_VOLUME) & (np.linalg.det(second) > 1e-15)
    inverse = np.zeros_like(second)
    inverse[carries] = np.linalg.inv(second[carries])
    return FluidMoments(flat, offset, second, inverse)
