"""Boundary conditions against flows whose answer is known exactly."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import couette_case, make_case

from solver.simulation import Simulation

CHANNEL = {"x_min": "periodic", "x_max": "periodic", "z_min": "periodic", "z_max": "periodic"}


def _profile(sim: Simulation) -> tuple[np.ndarray, np.ndarray]:
    """Physical y of the fluid cells and the x-velocity averaged over x and z [m/s]."""
    inner = sim.grid.interior()
    u = sim.fields().velocity[0][inner].mean(axis=(0, 2)) * sim.units.velocity_scale
    y = sim.grid.centers(1)[inner[1]] - sim.case.domain.origin_m[1]
    return y, u


@pytest.mark.parametrize("collision", ["bgk", "entropic"])
def test_moving_wall_couette(cpu, collision):
    """Plane Couette flow, 16 cells across: the y_min wall moves at U (the pair rule of
    docs/solver.md), the y_max wall rests. The steady profile u = U (1 - y/H) is linear, which
    bounce-back reproduces to round-off, with either collision operator."""
    sim = Simulation(couette_case(resolution={"collision": collision}), cpu)
    sim.advance(8000)
    y, u = _profile(sim)
    exact = 1.0 * (1 - y / 1.0)
    assert np.max(np.abs(u - exact)) < 1e-3


def test_free_slip_symmetry_plane(cpu):
    """Half a body-force-driven channel: no-slip wall at y = 0, free-slip wall at y = h. The
    free-slip wall acts as the channel's centre line: u = g / (2 nu) y (2h - y), 12 cells."""
    h, nu, g = 0.05, 1e-3, 0.04
    case = make_case(
        name="halfchannel",
        flow={
            "speed_m_s": g * h**2 / (2 * nu),
            "nu_m2_s": nu,
            "body_accel_m_s2": [g, 0.0, 0.0],
            "initial": "rest",
        },
        domain={
            "size_m": [0.0125, h, 0.00417],
            "boundaries": {**CHANNEL, "y_min": "noslip", "y_max": "freeslip"},
        },
        body={"reference_length_m": h},
        resolution={"cells_per_length": 12},
    )
    sim = Simulation(case, cpu)
    sim.advance(6000)
    y, u = _profile(sim)
    exact = g / (2 * nu) * y * (2 * h - y)
    assert np.linalg.norm(u - exact) / np.linalg.norm(exact) < 0.01


def test_empty_tunnel_keeps_uniform_flow(cpu):
    """Velocity inlet, outflow, free-slip walls and nothing inside, starting from the free
    stream: it passes unchanged, |u - U| < 0.1% of U and |rho - 1| < 1e-4 everywhere after two
    flow-throughs (no boundary injects a disturbance)."""
    case = make_case(
        name="tunnel",
        flow={"speed_m_s": 10.0, "nu_m2_s": 0.1, "initial": "inflow"},
        domain={
            "size_m": [2.0, 0.5, 0.5],
            "boundaries": {
                "x_min": "inlet",
                "x_max": "outflow",
                "y_min": "freeslip",
                "y_max": "freeslip",
                "z_min": "freeslip",
                "z_max": "freeslip",
            },
        },
        body={"reference_length_m": 0.5},
        resolution={"cells_per_length": 8, "u_lattice": 0.05},
    )
    sim = Simulation(case, cpu)
    sim.advance(2 * int(sim.grid.nx / sim.units.u_lattice))
    inner = sim.grid.interior()
    fields = sim.fields()
    u = fields.velocity[(slice(None), *inner)]
    assert np.max(np.abs(u[0] - sim.units.u_lattice)) < 1e-3 * sim.units.u_lattice
    assert np.max(np.abs(u[1:])) < 1e-3 * sim.units.u_lattice
    assert np.max(np.abs(fields.rho[inner] - 1.0)) < 1e-4


@pytest.mark.parametrize("wall_cells", [3.2, 3.7])
def test_interpolated_bounce_back_places_an_off_grid_wall(cpu, wall_cells):
    """Body-force Poiseuille flow between a box body whose top face lies at y_w = 3.2 or 3.7
    cells (wall fractions 0.3 and 0.8 on the first fluid cell's links) and a no-slip lid at
    y = 1 m, 16 cells per metre. Interpolated bounce-back puts the wall where it is: relative
    L2 error of u(y) against g/(2 nu) (y - y_w)(1 - y) under 1%; halfway bounce-back, which puts
    it on the staircase, misses by more."""
    dx, nu, g = 1 / 16, 0.1, 0.05
    y_w = wall_cells * dx
    errors = {}
    for rule in ("interpolated", "halfway"):
        case = make_case(
            name="offgrid",
            flow={
                "speed_m_s": g / (8 * nu),
                "nu_m2_s": nu,
                "body_accel_m_s2": [g, 0.0, 0.0],
                "initial": "rest",
            },
            domain={
                "size_m": [0.25, 1.0, 0.0625],
                "boundaries": {**CHANNEL, "y_min": "noslip", "y_max": "noslip"},
            },
            body={
                "shape": "box",
                "center_m": [0.125, (y_w - 1.0) / 2, 0.03125],
                "size_m": [10.0, 1.0 + y_w, 10.0],
                "reference_length_m": 1.0,
                "bounce_back": rule,
            },
            resolution={"cells_per_length": 16},
        )
        sim = Simulation(case, cpu)
        sim.advance(4000)
        y, u = _profile(sim)
        fluid = y > y_w
        exact = g / (2 * nu) * (y[fluid] - y_w) * (1.0 - y[fluid])
        errors[rule] = np.linalg.norm(u[fluid] - exact) / np.linalg.norm(exact)
    print(f"measured: off-grid wall at {wall_cells} cells, relative L2 error {errors}")
    assert errors["interpolated"] < 0.01
    assert errors["interpolated"] < errors["halfway"]


def test_free_slip_fill_is_the_specular_reflection():
    """The populations the set-up has lbm_fill_freeslip copy into free-slip wall cells before each
    step (solver/grid.py, freeslip_fill), on a box 6 x 5 x 4 (x, y, z) with free-slip walls at
    y = 0 and z = 0 and fluid elsewhere, periodic: a fluid cell pulling link q from the wall gets
    the population with the wall-normal components of c_q reversed that left its neighbour along
    the wall; in the edge where the two walls meet, both components flip."""
    from solver import lattice
    from solver.wall_fill import freeslip_fill

    flags = np.full((4, 5, 6), lattice.FLUID, np.uint8)  # [z, y, x]
    flags[:, 0, :] = lattice.FREESLIP
    flags[0, :, :] = lattice.FREESLIP
    q, wall, q_src, source = freeslip_fill(flags)
    rows = zip(q, wall, q_src, source, strict=True)
    table = {(int(a), int(b)): (int(c), int(d)) for a, b, c, d in rows}
    link = {tuple(c): k for k, c in enumerate(lattice.C)}

    def cell(x, y, z):
        return int(np.ravel_multi_index((z % 4, y % 5, x % 6), flags.shape))

    # link (1, 1, 0) into fluid cell (3, 1, 2) from the y wall cell (2, 0, 2): c_y flips; the
    # population (1, -1, 0) left (2, 1, 2)
    assert table[(link[(1, 1, 0)], cell(2, 0, 2))] == (link[(1, -1, 0)], cell(2, 1, 2))
    # link (0, 1, 1) into the fluid edge cell (3, 1, 1) from the edge wall cell (3, 0, 0): both
    # components flip; the population (0, -1, -1) left (3, 1, 1) itself
    assert table[(link[(0, 1, 1)], cell(3, 0, 0))] == (link[(0, -1, -1)], cell(3, 1, 1))
    # every filled population comes from a fluid cell, and each wall population is filled once
    assert np.all(flags.reshape(-1)[source] == lattice.FLUID)
    assert len(table) == len(q)
    # the fluid cells next to the walls are bulk cells, as the fill lets them stream plainly
    from solver.wall_fill import mark_bulk

    mark_bulk(flags)
    assert np.all(flags[1:, 1:, :] & lattice.BULK)


@pytest.mark.parametrize("model", ["none", "loglaw"])
def test_filled_walls_give_the_general_pull(cpu, model):
    """The cells next to the tunnel's no-slip walls and the road stream as bulk cells from walls
    filled before the step (lbm_fill_wall_links, cuda/lbm_cell.cuh): one entropic LES step on a
    box 20 x 7 x 6 (x, y, z; periodic along x) with a resting no-slip wall at y = 0, a free-slip
    wall at y = 6, a road moving at 0.05 along x at z = 0 and a resting wall at z = 5, a body
    force and a disturbed flow, equals the step in which every fluid cell takes the general pull
    (no cell bulk, nothing filled) to float32 round-off, with and without the wall model."""
    from solver import lattice
    from solver.kernel_params import pack_params, plain_box_values
    from solver.wall_fill import mark_bulk

    nz, ny, nx = 6, 7, 20
    flags = np.full((nz, ny, nx), lattice.FLUID, np.uint8)
    flags[:, 0, :] = lattice.SOLID
    flags[:, -1, :] = lattice.FREESLIP
    flags[0, :, :] = lattice.MOVING
    flags[-1, :, :] = lattice.SOLID
    n = flags.size
    stride = lattice.plane_stride(n)
    rng = np.random.default_rng(3)
    moments = np.zeros((4, n), np.float32)
    moments[0] = 1.0 + 0.01 * rng.standard_normal(n)
    moments[1] = 0.08 + 0.02 * rng.standard_normal(n)
    moments[2:] = 0.02 * rng.standard_normal((2, n))
    src = np.zeros(19 * stride, np.float32)
    entropic = lattice.COLLISIONS["entropic"]
    cpu.init_equilibrium(src, moments.reshape(-1), n, stride, entropic)
    cu = lattice.C[:, 0] * 0.05  # the road's polynomial equilibrium, shifted (the same for both)
    feq = (lattice.W * (3 * cu + 4.5 * cu**2 - 1.5 * 0.05**2)).astype(np.float32)

    def step(cell_flags):
        values = plain_box_values(cell_flags, 0.51, entropic, 0.16**2)
        values.update(
            wall_model=lattice.WALL_MODELS[model],
            wall_sample=2,
            wall_feq=feq,
            wall_ux=0.05,
            has_force=1,
            gx=1e-5,
        )
        dst = np.zeros_like(src)
        cpu.step(src.copy(), dst, pack_params(values, cpu.address), np.zeros((3, 3)))
        return dst.reshape(19, stride)[:, :n]

    filled = flags.copy()
    mark_bulk(filled)
    fluid = (flags == lattice.FLUID).reshape(-1)
    assert np.all(filled.reshape(-1)[fluid] & lattice.BULK)  # the fill lets them stream plainly
    general = step(flags)[:, fluid]
    bulk = step(filled)[:, fluid]
    assert np.abs(general).max() > 1e-3
    np.testing.assert_allclose(bulk, general, rtol=0, atol=2e-7)


@pytest.mark.parametrize("collision", ["bgk", "entropic"])
def test_inlet_and_outflow_cells_match_their_rules(cpu, collision):
    """One step of the open cells (the CPU shell batches them: cuda/host/lbm_host_shell.h,
    OpenBatch) against the rules of cuda/lbm_boundaries.cuh written in NumPy with the oracle's
    equilibria, on a box 12 x 5 x 4 (x, y, z; periodic in y and z) with an inlet at x = 0 and an
    outflow at x = 11 and a disturbed flow, every inlet with its own velocity and density state.
    Inlet: drho_b <- drho_b + relax (rho_nb - 1 - drho_b), f = feq(1 + drho_b, (u_in, 0, 0));
    outflow: f = feq(1, u_nb) + f_nb - feq(rho_nb, u_nb), u = j / rho for the entropic
    operator's equilibrium, j for BGK's."""
    from oracle import entropic_equilibrium, equilibrium

    from solver import lattice
    from solver.kernel_params import pack_params, plain_box_values
    from solver.wall_fill import mark_bulk

    nz, ny, nx = 4, 5, 12
    flags = np.full((nz, ny, nx), lattice.FLUID, np.uint8)
    flags[:, :, 0] = lattice.INLET
    flags[:, :, -1] = lattice.OUTFLOW
    mark_bulk(flags)
    n = flags.size
    stride = lattice.plane_stride(n)
    rng = np.random.default_rng(5)
    f = np.empty((19, nz, ny, nx))
    for z, y, x in np.ndindex(nz, ny, nx):
        u = np.array([0.06, 0.0, 0.0]) + 0.02 * rng.standard_normal(3)
        rho = 1.0 + 0.01 * rng.standard_normal()
        f[:, z, y, x] = equilibrium(np.array(rho), u) + 1e-3 * rng.standard_normal(19) * lattice.W
    src = np.zeros(19 * stride, np.float32)
    src.reshape(19, stride)[:, :n] = (f - lattice.W[:, None, None, None]).reshape(19, n)
    u_inlet = (0.05 + 0.01 * rng.standard_normal((nz, ny))).astype(np.float32)
    drho = (0.002 * rng.standard_normal((nz, ny))).astype(np.float32)
    drho_before = drho.copy()
    values = plain_box_values(flags, 0.6, lattice.COLLISIONS[collision])
    values.update(u_inlet=u_inlet, inlet_drho=drho, inlet_relax=0.1)
    dst = np.zeros_like(src)
    cpu.step(src, dst, pack_params(values, cpu.address), np.zeros((3, 3)))
    out = dst.reshape(19, stride)[:, :n].reshape(19, nz, ny, nx) + lattice.W[:, None, None, None]
    f32 = src.reshape(19, stride)[:, :n].reshape(19, nz, ny, nx).astype(float)
    f32 += lattice.W[:, None, None, None]  # the populations as the kernel read them

    def feq(rho, u):
        if collision == "bgk":
            return equilibrium(np.array(rho), u)
        return entropic_equilibrium(rho, u)

    for z, y in np.ndindex(nz, ny):
        f_nb = f32[:, z, y, 1]
        drho_b = drho_before[z, y] + 0.1 * (f_nb.sum() - 1.0 - drho_before[z, y])
        assert drho[z, y] == pytest.approx(drho_b, abs=1e-7)
        expected = feq(1.0 + drho_b, np.array([u_inlet[z, y], 0.0, 0.0]))
        np.testing.assert_allclose(out[:, z, y, 0], expected, rtol=0, atol=2e-6)
        f_nb = f32[:, z, y, -2]
        rho_nb = f_nb.sum()
        j = lattice.C.T.astype(float) @ f_nb
        u_nb = j / rho_nb if collision == "entropic" else j
        expected = feq(1.0, u_nb) + f_nb - feq(rho_nb, u_nb)
        np.testing.assert_allclose(out[:, z, y, -1], expected, rtol=0, atol=2e-6)
