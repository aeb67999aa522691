"""The law of the wall on the volumetric wall's elements (solver/volumetric_law.py,
cuda/lbm_volumetric.cuh) on a turned plane: free slip keeps a uniform flow along it to float32
rounding, and with the law each element takes exactly Spalding's stress, rho u_tau^2 A along the
flow, at 26.6 degrees as along the grid; a wall that moves (a rolling wheel's) takes the stress
of the flow relative to it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import equilibrium

from shapes.mesh import TriangleMesh
from shapes.solids import box
from solver import lattice
from solver.kernel_params import pack_params, plain_box_values, volumetric_wall_values
from solver.lattice import W
from solver.volumetric_law import law_values, volumetric_law
from solver.volumetric_wall import build_volumetric_wall
from solver.wall_fill import mark_bulk

NX = 4
PERIOD = 20  # of s = a y + b z, in cells
SOLID_S = 3.0  # the slabs' thickness along the normal [cells]
SAMPLE = 2.5  # the law's input, cells out along the normal


def turned_slabs(a: int, b: int) -> tuple[TriangleMesh, tuple[int, int, int]]:
    """Slabs whose faces contain x, turned about it to the normal (0, a, b) / |(a, b)|, periodic
    in a box (NX, PERIOD / a, PERIOD / b) (a = 0: (NX, 8, PERIOD / b)), closed, running past it."""
    norm = math.hypot(a, b)
    ny, nz = (PERIOD // a if a else 8), PERIOD // b
    normal, along = np.array([a, b]) / norm, np.array([-b, a]) / norm
    period = PERIOD / norm
    corners = np.array([[y, z] for y in (0.0, ny) for z in (0.0, nz)], float)
    d, t = corners @ normal, corners @ along
    vertices, faces = [], []
    for m in range(math.floor(d.min() / period) - 1, math.ceil(d.max() / period) + 2):
        lo = np.array([-4.0, 0.37 + m * period, t.min() - 3.0])  # (x, d, t)
        hi = np.array([NX + 4.0, 0.37 + m * period + SOLID_S, t.max() + 3.0])
        unit = box(hi - lo, 0.5 * (lo + hi), divisions=4)
        x, dd, tt = unit.vertices_m.T
        faces.append(unit.faces + sum(len(v) for v in vertices))
        vertices.append(np.column_stack([x, dd[:, None] * normal + tt[:, None] * along]))
    return TriangleMesh(np.concatenate(vertices), np.concatenate(faces)), (ny, nz)


def spalding_u_plus_at_re_y(re_y: float) -> float:
    """u+ of Spalding's law (kappa 0.41, B 5.2) where u+ y+ = Re_y = u y / nu, by bisection."""
    kappa, b = 0.41, 5.2
    lo, hi = 0.0, 100.0
    for _ in range(200):
        u_plus = 0.5 * (lo + hi)
        k = kappa * u_plus
        y_plus = u_plus + math.exp(-kappa * b) * (math.exp(k) - 1 - k - k * k / 2 - k**3 / 6)
        lo, hi = (u_plus, hi) if u_plus * y_plus < re_y else (lo, u_plus)
    return 0.5 * (lo + hi)


def law_step(
    cpu, a: int, b: int, u: np.ndarray, nu: float, stress: bool, wall_u: np.ndarray | None = None
):
    """One CPU kernel step (BGK) from a uniform flow u at density 1 between the turned slabs,
    whose surface moves at wall_u (lattice units; None: at rest): the unshifted populations
    before and after, the fluid mask, each element's exchange and its law's tables."""
    mesh, (ny, nz) = turned_slabs(a, b)
    shape = (nz, ny, NX)
    periodic = np.ones(3, bool)
    wall = build_volumetric_wall(mesh.vertices_m[mesh.faces], shape, periodic)
    moving = None if wall_u is None else np.tile(wall_u, (len(wall.area_vector), 1))
    law = volumetric_law(wall, SAMPLE, periodic, moving)
    if not stress:
        law.stress[:] = 0.0
    fluid = wall.volume > 0
    n = wall.volume.size
    flags = np.where(fluid, 0, lattice.SOLID | lattice.BODY).astype(np.uint8)
    mark_bulk(flags)
    flags.reshape(-1)[wall.slot_cell] &= ~np.uint8(lattice.BULK)
    stride = lattice.plane_stride(n)
    values = plain_box_values(flags, 0.5 + 3 * nu, lattice.COLLISIONS["bgk"])
    values.update(volumetric_wall_values(wall, stride), **law_values(law, SAMPLE))
    values["nu_lattice"] = nu
    f = equilibrium(np.ones(shape), np.broadcast_to(u[:, None, None, None], (3, *shape))) * fluid
    src = np.zeros(19 * stride, np.float32)
    src.reshape(19, stride)[:, :n] = (f - W[:, None, None, None] * fluid).reshape(19, n)
    dst = np.zeros_like(src)
    params = pack_params(values, cpu.address)
    cpu.step(src, dst, params, np.zeros((3, 3)))
    after = dst.reshape(19, stride)[:, :n].reshape(f.shape) + W[:, None, None, None] * fluid
    return f, after, fluid, np.array(params["vol_force"]).reshape(-1, 3), law


@pytest.mark.parametrize("a, b", [(0, 1), (1, 2)], ids=["along the grid", "26.6 degrees"])
def test_free_slip_keeps_a_uniform_flow_along_the_plane(cpu, a, b):
    """Free slip (the law's stress left out): a uniform flow along the planes, 0.05 along x and
    0.03 across, is unchanged by a step in every cell, cut or not, to float32 rounding."""
    norm = math.hypot(a, b)
    u = np.array([0.05, -0.03 * b / norm, 0.03 * a / norm])
    before, after, fluid, _, _ = law_step(cpu, a, b, u, nu=0.01, stress=False)
    assert np.max(np.abs(after - before)[:, fluid] / W[:, None]) < 1e-5


@pytest.mark.parametrize("a, b", [(0, 1), (1, 2)], ids=["along the grid", "26.6 degrees"])
def test_each_element_takes_spaldings_stress(cpu, a, b):
    """With the law, a uniform flow of 0.05 along x: each element's exchange along x is
    rho u_tau^2 A (Spalding's law at y = 2.5 cells, nu = 1e-3, Re_y 125) within 2e-3 (float32
    sums of populations 10^4 times the stress's share), the whole wall's within 1e-3, and its
    exchange along the other tangent under 1e-3 of that, at 26.6 degrees as along the grid."""
    nu = 1e-3
    _, _, _, exchange, law = law_step(cpu, a, b, np.array([0.05, 0.0, 0.0]), nu, stress=True)
    u_tau = 0.05 / spalding_u_plus_at_re_y(0.05 * SAMPLE / nu)
    expected = u_tau**2 * law.area
    across = np.cross(law.normal, [1.0, 0.0, 0.0])  # the tangent across the flow
    big = law.area > 0.05 * law.area.max()
    np.testing.assert_allclose(exchange[big, 0], expected[big], rtol=2e-3)
    assert exchange[:, 0].sum() == pytest.approx(expected.sum(), rel=1e-3)
    assert np.abs(np.einsum("ei,ei->e", exchange, across)).max() < 1e-3 * expected.max()


@pytest.mark.parametrize("wall_u, relative", [(0.05, 0.0), (0.09, -0.04)], ids=["with", "faster"])
def test_a_moving_wall_takes_the_stress_of_the_flow_relative_to_it(cpu, wall_u, relative):
    """The turned plane at 26.6 degrees moving along x under a uniform flow of 0.05: moving with
    the flow, no element takes a stress (under 10^-4 of the stress at rest); 0.04 faster, each
    takes Spalding's stress at the relative speed, pulling the fluid forward (its exchange along
    x is -rho u_tau^2 A, u_tau from u = 0.04), within 2e-3 as at rest."""
    nu = 1e-3
    u = np.array([0.05, 0.0, 0.0])
    _, _, _, exchange, law = law_step(cpu, 1, 2, u, nu, True, np.array([wall_u, 0.0, 0.0]))
    at_rest = (0.05 / spalding_u_plus_at_re_y(0.05 * SAMPLE / nu)) ** 2 * law.area
    big = law.area > 0.05 * law.area.max()
    if relative == 0.0:
        assert np.abs(exchange[:, 0]).max() < 1e-4 * at_rest.max()
        return
    speed = abs(relative)
    expected = -((speed / spalding_u_plus_at_re_y(speed * SAMPLE / nu)) ** 2) * law.area
    np.testing.assert_allclose(exchange[big, 0], expected[big], rtol=2e-3)
