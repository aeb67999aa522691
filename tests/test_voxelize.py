"""The mesh voxelizer (cuda/voxelize.cuh) on the CPU backend, and against the GPU where one is."""

from __future__ import annotations

import math

import numpy as np
import pytest

from shapes.mesh import TriangleMesh
from shapes.solids import box, icosphere, torus
from solver.backends.cuda import cuda_available
from solver.voxelize import CellCentres, frontal_area_m2, inside_mask, link_fractions

GRID = CellCentres((40, 40, 40), (0.5, 0.5, 0.5), 1.0)  # cell size 1: lengths in cells
C = np.arange(40) + 0.5
Z, Y, X = np.meshgrid(C, C, C, indexing="ij")


def test_sphere_mesh_volume(cpu):
    """An icosphere of radius 16 cells (20,480 faces): solid volume within 1% of 4/3 pi r^3."""
    mesh = icosphere(16.0, (20.0, 20.3, 19.7), subdivisions=5)
    inside = inside_mask(cpu, mesh.vertices_m, mesh.faces, GRID)
    assert inside.sum() == pytest.approx(4 / 3 * math.pi * 16**3, rel=0.01)


def test_torus_classified_correctly(cpu):
    """A torus (R = 12, r = 4 cells): every cell the mesh puts on the other side than the exact
    torus lies within the facets' chordal deviation (< 0.02 cells) of the surface."""
    mesh = torus(12.0, 4.0, (20.0, 20.0, 20.0))
    inside = inside_mask(cpu, mesh.vertices_m, mesh.faces, GRID).astype(bool)
    distance = np.sqrt((np.hypot(X - 20, Y - 20) - 12) ** 2 + (Z - 20) ** 2) - 4
    wrong = inside != (distance < 0)
    assert inside.sum() > 3000
    assert np.all(np.abs(distance[wrong]) < 0.02)


def test_edges_and_faces_on_grid_rays(cpu):
    """A box whose faces pass through cell centres, so its edges lie on rows of rays and its
    side faces contain whole rows: the cells on each pair of faces go to exactly one side (the
    tie rules: along x the exit face, along y the min face, along z the max face), so the mask
    is a box of exactly 10 x 8 x 6 cells."""
    inside = inside_mask(cpu, *_arrays(box([10.0, 8.0, 6.0], (20.5, 20.5, 20.5))), GRID).astype(
        bool
    )
    expected = (X > 15.5) & (X <= 25.5) & (Y >= 16.5) & (Y < 24.5) & (Z > 17.5) & (Z <= 23.5)
    assert np.array_equal(inside, expected)


def test_vertices_on_grid_rays(cpu):
    """An octahedron centred on a cell centre: its six vertices and twelve edges lie on rays.
    Every cell off the surface is classified as |x| + |y| + |z| < 9 says."""
    v = (
        np.array([[9, 0, 0], [-9, 0, 0], [0, 9, 0], [0, -9, 0], [0, 0, 9], [0, 0, -9]], float)
        + 20.5
    )
    f = np.array(
        [[0, 2, 4], [2, 1, 4], [1, 3, 4], [3, 0, 4], [2, 0, 5], [1, 2, 5], [3, 1, 5], [0, 3, 5]]
    )
    mesh = TriangleMesh(v, f)
    assert mesh.volume_m3() > 0
    inside = inside_mask(cpu, mesh.vertices_m, mesh.faces, GRID).astype(bool)
    l1 = np.abs(X - 20.5) + np.abs(Y - 20.5) + np.abs(Z - 20.5)
    off_surface = l1 != 9
    assert np.array_equal(inside[off_surface], (l1 < 9)[off_surface])


def test_link_fractions_land_on_the_surface(cpu):
    """Every link from a fluid cell into an icosphere body gets the fraction where it crosses the
    facets: the crossing lies within the facets' deviation (< 0.003 cells) of the sphere."""
    mesh = icosphere(10.0, (20.2, 19.9, 20.1), subdivisions=5)
    body = inside_mask(cpu, mesh.vertices_m, mesh.faces, GRID).astype(bool)
    from solver.grid import body_neighbour_index
    from solver.lattice import BODY, SOLID
    from solver.lattice import C as LINKS

    flags = np.where(body, SOLID | BODY, 0).astype(np.uint8)
    slot = body_neighbour_index(flags)
    q, missing = link_fractions(cpu, mesh.vertices_m, mesh.faces, GRID, slot, body)
    assert missing == 0
    cells = np.argwhere(slot >= 0)
    centres = np.stack([C[cells[:, 2]], C[cells[:, 1]], C[cells[:, 0]]], axis=1)
    used = q > 0
    assert used.sum() > 1000 and np.all(q[used] <= 1.0)
    k, link = np.nonzero(used)
    points = centres[k] - q[k, link][:, None] * LINKS[link + 1]
    radius = np.linalg.norm(points - np.array([20.2, 19.9, 20.1]), axis=1)
    assert np.all(np.abs(radius - 10.0) < 0.003)


def test_frontal_area_of_a_mesh(cpu):
    mesh = icosphere(0.5, (2.0, 1.0, 1.0), subdivisions=5)
    area = frontal_area_m2(cpu, mesh.vertices_m, mesh.faces, (0.0, 2.0), (0.0, 2.0), 0.005)
    assert area == pytest.approx(math.pi * 0.25, rel=0.005)


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU (none usable here)")
def test_cpu_and_cuda_voxelize_alike(cpu):
    from solver.backends.cuda import CudaBackend

    gpu = CudaBackend()
    mesh = torus(12.0, 4.0, (20.0, 20.0, 20.0))
    a = inside_mask(cpu, mesh.vertices_m, mesh.faces, GRID)
    b = inside_mask(gpu, mesh.vertices_m, mesh.faces, GRID)
    assert np.array_equal(a, b)


def _arrays(mesh: TriangleMesh) -> tuple[np.ndarray, np.ndarray]:
    return mesh.vertices_m, mesh.faces


@pytest.mark.parametrize("dx", [0.013, 0.03, 0.011, 0.023])
def test_shared_edges_off_the_grid_keep_the_parity(cpu, dx):
    """A box of 2 x 2 squares per face, off the grid by arbitrary fractions: every row crosses
    the surface an even number of times and the mask is the box's cells, with no slit where an
    inner edge lies within round-off of a row."""
    from solver.voxelize import row_crossing_counts

    mesh = box((20.37 * dx, 12 * dx, 12 * dx), (0.31 * dx, 0.0, 0.0), divisions=2)
    n = 32
    grid = CellCentres((n, n, n), ((-n / 2 + 0.5) * dx,) * 3, dx)
    counts = row_crossing_counts(cpu, mesh.vertices_m, mesh.faces, grid)
    assert np.all(counts % 2 == 0)
    inside = inside_mask(cpu, mesh.vertices_m, mesh.faces, grid).astype(bool)
    c = (np.arange(n) - n / 2 + 0.5) * dx
    z, y, x = np.meshgrid(c, c, c, indexing="ij")
    lo, hi = mesh.bounds_m()
    exact = (x > lo[0]) & (x < hi[0]) & (y > lo[1]) & (y < hi[1]) & (z > lo[2]) & (z < hi[2])
    on_face = (
        np.isclose(x, lo[0])
        | np.isclose(x, hi[0])
        | np.isclose(y, lo[1])
        | np.isclose(y, hi[1])
        | np.isclose(z, lo[2])
        | np.isclose(z, hi[2])
    )
    assert np.array_equal(inside[~on_face], exact[~on_face])
    assert counts.sum() > 0


def test_mesh_sphere_and_analytic_sphere_agree(cpu):
    """The same sphere as an analytic body and as an icosphere mesh (20,480 faces): the voxelizer
    marks the same cells and its wall fractions give the same drag after 600 steps, within 0.5%
    (the facets deviate from the sphere by 0.1% of the radius)."""
    from conftest import make_case

    from solver.simulation import FORCE_TOTAL, Simulation

    def case(shape: str):
        return make_case(
            name="s",
            flow={"speed_m_s": 1.0, "reynolds": 20.0},
            domain={
                "size_m": [0.6, 0.3, 0.3],
                "boundaries": {"z_min": "freeslip"},  # the default tunnel, no rolling road
            },
            body={
                "shape": shape,
                "center_m": [0.15, 0.15, 0.15],
                "radius_m": 0.05,
                "reference_length_m": 0.1,
                "reference_area_m2": math.pi * 0.05**2,
            },
            resolution={"cells_per_length": 10},
        )

    analytic = Simulation(case("sphere"), cpu)
    meshed = Simulation(case("mesh"), cpu, icosphere(0.05, (0.15, 0.15, 0.15), subdivisions=5))
    assert np.array_equal(analytic.flags_host, meshed.flags_host)
    cd = [
        sim.coefficients(sim.advance(600)[-100:, FORCE_TOTAL].mean(axis=0))[0]
        for sim in (analytic, meshed)
    ]
    assert cd[1] == pytest.approx(cd[0], rel=0.005)
