"""The volumetric wall's geometry (solver/surfels.py, solver/volumetric_geometry.py) against
exact results: a sphere's volume, boxes on and off the cell faces, turned planes' cut cells in
closed form, and the transport identity the volumetric wall needs to keep a fluid at rest."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shapes.solids import box, icosphere
from shapes.turned_slabs import DX_M, OFFSET_S, box_cells, period_cells, wall_slabs
from solver.lattice import C
from solver.surfels import cut_into_cells
from solver.volumetric_geometry import fluid_volume, swept_parcels

BOX = 16


@pytest.fixture(scope="module")
def sphere():
    """An icosphere of radius 5.3 cells (1,280 faces) off the cells' centres in a 16^3 box."""
    mesh = icosphere(5.3, (8.2, 8.45, 7.9), subdivisions=3)
    triangles = mesh.vertices_m[mesh.faces]
    surfels = cut_into_cells(triangles)
    a, b, c = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    mesh_volume = np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6
    return triangles, surfels, mesh_volume


def test_surfels_tile_the_surface(sphere):
    """The surfels' areas add up to the mesh's; each lies in its cell."""
    triangles, surfels, _ = sphere
    mesh_area = (
        0.5
        * np.linalg.norm(
            np.cross(triangles[:, 1] - triangles[:, 0], triangles[:, 2] - triangles[:, 0]), axis=1
        ).sum()
    )
    assert surfels.area.sum() == pytest.approx(mesh_area, rel=1e-12)
    lower = surfels.centroid - surfels.cell
    assert lower.min() >= 0 and lower.max() <= 1


def test_sphere_fluid_volume(sphere):
    """Solid volume summed over the cells = the mesh's volume (to rounding); every cell's
    fluid volume in [0, 1], the cells far from the surface 0 inside and 1 outside."""
    _, surfels, mesh_volume = sphere
    fluid = fluid_volume(surfels, (BOX, BOX, BOX))
    assert BOX**3 - fluid.sum() == pytest.approx(mesh_volume, rel=1e-12)
    assert fluid.min() == 0.0 and fluid.max() == 1.0
    z, y, x = np.meshgrid(*(np.arange(BOX) + 0.5,) * 3, indexing="ij")
    r = np.sqrt((x - 8.2) ** 2 + (y - 8.45) ** 2 + (z - 7.9) ** 2)
    assert np.all(fluid[r < 5.3 - 1.0] == 0.0)
    assert np.all(fluid[r > 5.3 + 1.0] == 1.0)


def test_prisms_sum_to_the_swept_volume(sphere):
    """Each surfel's parcels of direction q add up to its prism's volume A |c_q . n|, outgoing
    where c_q . n > 0."""
    _, surfels, _ = sphere
    parcels = swept_parcels(surfels)
    total = np.zeros((len(surfels.cell), len(C)))
    np.add.at(total, (parcels.element, parcels.q), parcels.volume)
    c_dot_a = surfels.area_vector @ C.T.astype(float)
    np.testing.assert_allclose(total, np.abs(c_dot_a), rtol=0, atol=1e-12)
    assert np.all((c_dot_a[parcels.element, parcels.q] > 0) == parcels.outgoing)


def test_transport_identity(sphere):
    """For every cell x and direction q, V(x) = V(x - c_q) - I(x - c_q, q) + O(x, q): the fluid
    a cell holds is what its upstream neighbour's fluid keeps after the surfels intercept their
    share, plus what the surfels send into it; exact for a body no link crosses twice. It is
    what lets the volumetric wall keep a fluid at rest (and mass) to rounding."""
    _, surfels, _ = sphere
    fluid = fluid_volume(surfels, (BOX, BOX, BOX))
    parcels = swept_parcels(surfels)
    taken, given = np.zeros((2, len(C), BOX, BOX, BOX))
    for total, pick in ((taken, ~parcels.outgoing), (given, parcels.outgoing)):
        i, j, k = (parcels.cell[pick] % BOX).T
        np.add.at(total, (parcels.q[pick], k, j, i), parcels.volume[pick])
    for q in range(1, len(C)):
        upstream = np.roll(fluid - taken[q], shift=tuple(C[q][::-1]), axis=(0, 1, 2))
        np.testing.assert_allclose(fluid, upstream + given[q], rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "lo, hi",
    [((2.0, 3.0, 4.0), (9.0, 8.0, 7.0)), ((2.25, 3.5, 4.0), (9.75, 8.125, 6.5))],
    ids=["on cell faces", "across cells"],
)
def test_box_fluid_volume(lo, hi):
    """A box (each face split in 3 x 3): each cell's solid is the product of its overlaps along
    the three axes, including faces that lie on the cells' faces."""
    lo, hi = np.array(lo), np.array(hi)
    mesh = box(hi - lo, (lo + hi) / 2, divisions=3)
    fluid = fluid_volume(cut_into_cells(mesh.vertices_m[mesh.faces]), (12, 12, 12))
    g = np.arange(12)
    x, y, z = (np.clip(np.minimum(g + 1, hi[a]) - np.maximum(g, lo[a]), 0, 1) for a in range(3))
    np.testing.assert_allclose(fluid, 1 - z[:, None, None] * y[None, :, None] * x, atol=1e-12)


def _below_line(a: int, b: int, level: np.ndarray) -> np.ndarray:
    """Area of the unit square [0, 1]^2 where a y + b z <= level (a, b > 0), by inclusion and
    exclusion of its corners."""
    area = np.zeros_like(level)
    for dy in (0, 1):
        for dz in (0, 1):
            area += (-1) ** (dy + dz) * np.maximum(level - a * dy - b * dz, 0.0) ** 2
    return area / (2 * a * b)


def test_turned_slabs_cut_cells():
    """The turned channel's walls (shapes/turned_slabs.py, 26.6 degrees, closed slabs running
    past the periodic box): each cell's fluid volume in closed form, from the fluid bands of
    s = y + 2 z; the slabs' end caps lie beyond the box and enter through their projection."""
    a, b = 1, 2
    mesh = wall_slabs(a, b)
    nx, ny, nz = box_cells(a, b)
    surfels = cut_into_cells((mesh.vertices_m / DX_M)[mesh.faces], (nx, ny, nz))
    fluid = fluid_volume(surfels, (nz, ny, nx))
    period, gap = period_cells(a, b), 2 * round(1 / DX_M) * math.hypot(a, b)
    k, j = np.meshgrid(np.arange(nz), np.arange(ny), indexing="ij")
    corner = a * j + b * k
    exact = np.zeros((nz, ny))
    for m in range(-2, (a * ny + b * nz) // period + 2):
        start = OFFSET_S + m * period
        exact += _below_line(a, b, start + gap - corner) - _below_line(a, b, start - corner)
    np.testing.assert_allclose(fluid, np.broadcast_to(exact[..., None], fluid.shape), atol=1e-11)
