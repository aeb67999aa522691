"""The wall model (walls.model = loglaw, cuda/lbm_wall_model.cuh) against the law of the wall it
imposes: Spalding's (1961) y+(u+), solved here independently by bisection."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import couette_case, make_case
from test_boundaries import _profile

from solver import lattice
from solver.simulation import FORCE_TOTAL, Simulation

KAPPA, B = 0.41, 5.2
PERIODIC_XY = {"x_min": "periodic", "x_max": "periodic", "y_min": "periodic", "y_max": "periodic"}


def spalding_y_plus(u_plus: float) -> float:
    """Spalding's law of the wall, y+ as a function of u+."""
    k = KAPPA * u_plus
    return u_plus + math.exp(-KAPPA * B) * (math.exp(k) - 1 - k - k * k / 2 - k**3 / 6)


def spalding_u_tau(u: float, y: float, nu: float) -> float:
    """Friction velocity for speed u at wall distance y: bisection on u+ of u+ y+(u+) = u y / nu."""
    lo, hi, re_y = 1e-6, 100.0, u * y / nu
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if mid * spalding_y_plus(mid) < re_y else (lo, mid)
    return u / (0.5 * (lo + hi))


def couette_gap(cpu, cs: float, model: str) -> tuple[float, float]:
    """Plane Couette flow across a one-cell gap between the rolling road (z_min, at U) and a
    resting plate (a wide box, its face 1/6 cell above the gap cell's centre), car.yaml's air at
    30 m/s with dx = 0.225 m (tau0 - 1/2 = 3e-7), started at U: after 3000 steps, the plate's
    shear stress in one step from momentum exchange as Cf = tau_w / (rho U^2 / 2), and what
    Spalding's law gives for the gap cell's speed of the step before at the plate's distance."""
    case = make_case(
        name="couette_gap",
        flow={"speed_m_s": 30.0, "nu_m2_s": 1.5e-5, "initial": "inflow"},
        domain={
            "size_m": [2.25, 2.25, 2.25],
            "boundaries": {**PERIODIC_XY, "z_min": "moving", "z_max": "freeslip"},
        },
        body={
            "shape": "box",
            "center_m": [1.125, 1.125, 5.15],
            "size_m": [100.0, 100.0, 10.0],
            "reference_length_m": 4.5,
        },
        resolution={
            "cells_per_length": 20,
            "u_lattice": 0.05,
            "smagorinsky_cs": cs,
            "min_gap_cells": 0.0,
        },
        walls={"model": model},
    )
    sim = Simulation(case, cpu)
    sim.advance(2999)
    gap = float(sim.fields().velocity[0][sim.fluid_mask].mean())
    fx = sim.advance(1)[0, FORCE_TOTAL, 0]
    U = sim.units.u_lattice
    dx = sim.units.dx_m
    plate_distance = (
        0.15 - 0.5 * dx
    ) / dx  # the box's lower face above the gap cell's centre [cells]
    u_tau = spalding_u_tau(gap, plate_distance, sim.units.nu_lattice)
    return fx / (sim.grid.nx * sim.grid.ny) / (0.5 * U * U), 2 * (u_tau / U) ** 2


def test_couette_gap_follows_the_law_of_the_wall(cpu):
    """Without a wall model the one-cell gap's Cf is 2 Cs^2 / H^2 (the Smagorinsky viscosity of
    a one-cell shear layer: 0.0199 and 0.0964 at Cs 0.10 and 0.22). With it, the plate's stress
    in each step is Spalding's law at the gap cell's speed within 1%, the subgrid model does not
    enter but through the gap cell's own collision: Cf changes by 2.3% from Cs 0.10 to 0.22
    (2.11e-3 / 2.15e-3, still on its way from the start at U to the balance of the two walls)
    where plain Smagorinsky changes by 380%."""
    plain = [couette_gap(cpu, cs, "none")[0] for cs in (0.10, 0.22)]
    assert plain[0] == pytest.approx(2 * 0.10**2, rel=0.02) and plain[1] == pytest.approx(
        2 * 0.22**2, rel=0.02
    )
    modelled = [couette_gap(cpu, cs, "loglaw") for cs in (0.10, 0.22)]
    for cf, cf_law in modelled:
        assert abs(cf / cf_law - 1) < 0.01
    assert abs(modelled[1][0] / modelled[0][0] - 1) < 0.05


def test_wall_model_keeps_a_resolved_laminar_couette_flow(cpu):
    """Laminar plane Couette flow, 16 cells across, Re 10 (the first cell at y+ about 0.3): the
    stress is the same at every height and the law of the wall is linear there, so the model
    asks exactly the stress no-slip bounce-back gives and the profile stays linear to 1e-3 U,
    reading its input in the first cell or the fourth."""
    for sample in (1, 4):
        case = couette_case(
            resolution={"collision": "entropic"},
            walls={"model": "loglaw", "sample_cells": sample},
        )
        sim = Simulation(case, cpu)
        sim.advance(8000)
        y, u = _profile(sim)
        assert np.max(np.abs(u - (1 - y))) < 1e-3


def _slab(k: tuple[int, int, int], shape: tuple[int, int, int]) -> tuple[np.ndarray, float]:
    """Signed distance (cells, negative in the body) to a periodic family of planes with integer
    normal k, every other gap between them the body; and the planes' area in the box (cells^2)."""
    nz, ny, nx = shape
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    period = np.gcd.reduce([abs(v) * n for v, n in zip(k, (nx, ny, nz), strict=False) if v])
    s = (k[0] * x + k[1] * y + k[2] * z + 0.3183) % period
    norm = math.sqrt(sum(v * v for v in k))
    phi = (
        np.where(
            s < period / 2, -np.minimum(s, period / 2 - s), np.minimum(s - period / 2, period - s)
        )
        / norm
    )
    return phi, 2 * nx * ny * nz / (period / norm)


TURNED_PLANES = [
    ((0, 0, 1), (1, 0, 0), (16, 8, 8)),  # along the grid
    ((0, -1, 2), (1, 0, 0), (40, 40, 8)),  # turned about the flow by atan(1/2)
    ((0, 1, 6), (1, 0, 0), (128, 128, 4)),  # by atan(1/6)
    ((0, 1, 1), (1, 0, 0), (32, 32, 8)),  # by 45 degrees
    ((1, 1, 0), (0, 0, 1), (32, 32, 8)),  # 45 degrees, flow along z
    ((1, 2, 3), (2, -1, 0), (80, 80, 80)),  # no symmetry of the grid, flow along no axis
]


@pytest.mark.parametrize("k, t, shape", TURNED_PLANES)
def test_wall_stress_on_a_turned_plane_equals_the_aligned_one(cpu, k, t, shape):
    """walls.body_rule = surface on a plane wall at any angle under the law of the wall's own
    profile: in one step the stress the model imposes (the friction it reports) is rho u_tau^2 of
    that profile within 1% (2e-5 as written) at every angle. The profile u(y) = u_tau
    u+(y u_tau / nu) along the wall's normal gives the same u_tau at any input height, so the
    grid's cells at their different distances from a turned wall all ask the same stress.

    The links' whole exchange along the flow equals it within 1% on the planes turned about a grid
    axis; on the (1, 2, 3) plane it is -0.87 rho u_tau^2: the momentum flux rho u u of the flow
    sliding past the staircase, shared out among its cells in pieces the model leaves alone (they
    cancel along a plane only where the flow is uniform; here the cells at different heights
    move at different speeds). The same pieces hand the wall a normal force of 0.3 to 2.7 rho
    u_tau^2 on the turned planes (96 on the (1, 2, 3) one; docs/solver.md, "Wall model on
    bodies")."""
    from wall_step import spalding_u_plus, wall_step

    nu, u_tau = 1e-5, 0.002
    phi, area = _slab(k, shape)
    t = np.asarray(t, float) / np.linalg.norm(t)
    speed = u_tau * spalding_u_plus(np.maximum(phi, 0.01) * u_tau / nu)
    step = wall_step(cpu, phi, speed[None] * t[:, None, None, None], nu)
    exchange, friction = step.force[0], step.force[2]
    assert friction @ t / area / u_tau**2 == pytest.approx(1.0, abs=0.01)
    if k != (1, 2, 3):
        assert exchange @ t / area / u_tau**2 == pytest.approx(1.0, abs=0.01)


@pytest.mark.parametrize(
    "k, t, shape",
    [(k, t, (8, 32, 32) if k == (1, 1, 0) else shape) for k, t, shape in TURNED_PLANES],
)
def test_slip_rule_imposes_the_law_on_a_turned_plane(cpu, k, t, shape):
    """walls.body_rule = slip on the same planes under the law's own profile: in one step the
    friction the model reports is rho u_tau^2 within 1% at every angle, and so is the links' whole
    exchange along the flow on the planes turned about a grid axis (on the (1, 2, 3) plane it is
    -0.87 rho u_tau^2, the surface rule's figure: the rule pins the links' viscous exchange, and
    the staircase's pieces of rho u u stay). No cell of a plane is a sharp edge. (The (1, 1, 0)
    plane in a box 32 cells along x and y: in the 8-cell box of the test above its body slab is
    2.8 cells thick, every cell's fit sees both faces and the slip rule leaves them all to the
    face rule.)"""
    from wall_step import spalding_u_plus, wall_step

    nu, u_tau = 1e-5, 0.002
    phi, area = _slab(k, shape)
    t = np.asarray(t, float) / np.linalg.norm(t)
    speed = u_tau * spalding_u_plus(np.maximum(phi, 0.01) * u_tau / nu)
    step = wall_step(cpu, phi, speed[None] * t[:, None, None, None], nu, body_rule="slip")
    exchange, friction = step.force[0], step.force[2]
    assert not step.wall[:, 5].any()
    assert friction @ t / area / u_tau**2 == pytest.approx(1.0, abs=0.01)
    if k != (1, 2, 3):
        assert exchange @ t / area / u_tau**2 == pytest.approx(1.0, abs=0.01)


def test_slip_rule_gives_the_body_links_the_density_along_the_surface(cpu):
    """walls.body_rule = slip: a body link brings the density a fluid neighbour further along the
    surface would, not the cell's own. A plane turned about x by atan(1/2), a uniform flow along
    x at 0.01, the density 1 + a (x - 15.5) along the wall (a = 1e-3), one step against the
    same step at density 1: in each cell with links (away from the periodic box's jump in
    density at x = 0 | 31) the body's x force changes by a sum_links w_q c_qx^2, the pressure
    force along the surface a fluid neighbour's population, w_q (rho - a c_qx), would hand it,
    within 1% of it (1e-4 as written; 0 in the cells whose links have no x part). Under the
    surface rule, whose links return the cell's own density, it changes by under 1% of that."""
    from wall_step import wall_step

    nz, ny, nx = 40, 40, 32
    phi, _ = _slab((0, -1, 2), (nz, ny, nx))
    a = 1e-3
    x = np.broadcast_to(np.arange(nx, dtype=float), phi.shape)
    velocity = np.array([0.01, 0.0, 0.0])
    c_x = lattice.C[1:, 0].astype(float)
    for rule in ("slip", "surface"):
        flat = wall_step(cpu, phi, velocity, 1e-5, body_rule=rule)
        sloped = wall_step(cpu, phi, velocity, 1e-5, body_rule=rule, density=1 + a * (x - 15.5))
        cells, into = flat.cells, flat.into
        linked = into.any(axis=1) & (cells[:, 2] >= 2) & (cells[:, 2] <= nx - 3)
        expected = a * (into[linked] * (lattice.W[1:] * c_x**2)).sum(axis=1)
        change = sloped.cell_force[linked, 0, 0] - flat.cell_force[linked, 0, 0]
        along = expected > 0
        assert along.sum() > 1000 and np.all(np.abs(change[~along]) < 1e-3 * expected[along].min())
        if rule == "slip":
            assert np.abs(change[along] / expected[along] - 1).max() < 0.01
        else:
            assert np.abs(change).max() < 0.01 * expected[along].min()


@pytest.mark.parametrize("nu", [3e-2, 1e-3, 1e-5, 1e-7, 1e-9])
def test_wall_stress_follows_spalding_from_the_sublayer_to_high_reynolds(cpu, nu):
    """The kernel reads u+ from its table of Spalding's law (cuda/lbm_wall_model.cuh,
    lbm_spalding_u_plus): on the aligned plane under the law's own profile, the stress imposed in
    one step is rho u_tau^2 within 3e-4 for an input at y+ 0.23 to 7e6 (Re_y 0.05 to 3e8, the
    viscous sublayer to beyond a car's). The two Halley steps the table replaced gave the same
    figures to the digits printed (-1.2e-7 to 1.2e-4 from 1, float32 round-off). (At higher
    viscosity no-slip alone exchanges less than the law asks, and the model leaves it.)"""
    from wall_step import spalding_u_plus, wall_step

    u_tau = 0.002
    phi, area = _slab((0, 0, 1), (16, 8, 8))
    speed = u_tau * spalding_u_plus(np.maximum(phi, 0.01) * u_tau / nu)
    step = wall_step(cpu, phi, speed[None] * np.array([1.0, 0.0, 0.0])[:, None, None, None], nu)
    assert step.force[2][0] / area / u_tau**2 == pytest.approx(1.0, abs=3e-4)


def test_spalding_table_holds_the_root_to_float_round_off():
    """The kernels' table (solver/law_of_the_wall.py, spalding_table), evaluated as
    lbm_spalding_u_plus does (a cubic Hermite in s along each segment), against u+ by bisection
    on this file's y+(u+) at 7 points inside every segment: within 1e-7 of it everywhere (7.4e-8
    measured, the float32 coefficients' rounding included; float32's unit round-off is 6e-8)."""
    from solver.law_of_the_wall import spalding_table

    table = spalding_table().astype(np.float64)
    split, log2_min = 16, -10
    j = np.arange(len(table))
    s = np.linspace(0.125, 0.875, 7)[:, None]
    re_y = 2.0 ** (log2_min + j // split) * (1 + (j % split + s) / split)
    lo, hi = np.zeros_like(re_y), np.full_like(re_y, 100.0)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        k = KAPPA * mid
        y_plus = mid + math.exp(-KAPPA * B) * (np.exp(k) - 1 - k - k * k / 2 - k**3 / 6)
        lo, hi = np.where(mid * y_plus < re_y, mid, lo), np.where(mid * y_plus < re_y, hi, mid)
    root = 0.5 * (lo + hi)
    c = table.T
    hermite = (
        (2 * s**3 - 3 * s**2 + 1) * c[0]
        + (s**3 - 2 * s**2 + s) * c[1]
        + (3 * s**2 - 2 * s**3) * c[2]
        + (s**3 - s**2) * c[3]
    )
    assert np.max(np.abs(hermite / root - 1)) < 1e-7
