"""Two refinement levels in a periodic box (solver/refinement.py, cuda/lbm_refinement.cuh): the
coupling kernels against NumPy, and flows across the interface against their analytic behaviour
(docs/solver.md, "Grid refinement")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import couette_case, run_periodic_step
from oracle import entropic_equilibrium, equilibrium

from solver import lattice
from solver.backends import select_backend
from solver.backends.cuda import cuda_available
from solver.config import load_case
from solver.errors import ConfigError
from solver.refined_simulation import RefinedSimulation
from solver.refinement import RefinedBox, TwoLevelBox
from solver.refinement_checks import (
    pulse_reflection,
    refined_box_override,
    taylor_green,
    uniform_flow,
)

ROOT = Path(__file__).resolve().parent.parent
C = lattice.C.astype(float)
W = lattice.W


@pytest.fixture(
    scope="module",
    params=[
        "cpu",
        pytest.param(
            "cuda",
            marks=[
                pytest.mark.gpu,
                pytest.mark.skipif(
                    not cuda_available(), reason="needs CuPy and a CUDA GPU (none usable here)"
                ),
            ],
        ),
    ],
)
def backend(request):
    return select_backend(request.param)


def _equilibrium(rho: np.ndarray, j: np.ndarray, collision: str) -> np.ndarray:
    """The operator's equilibrium [19, n] (unshifted) at density rho [n] and momentum j [3, n]."""
    if collision == "bgk":
        return equilibrium(rho, j)
    return np.stack([entropic_equilibrium(r, u / r) for r, u in zip(rho, j.T, strict=True)], axis=1)


def _nonequilibrium(f: np.ndarray, collision: str) -> np.ndarray:
    """f - f_eq(rho, j) of unshifted populations f[19, n], the operator's equilibrium."""
    return f - _equilibrium(f.sum(axis=0), C.T @ f, collision)


def _parts(f: np.ndarray, collision: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The parts the coupling combines linearly (cuda/lbm_refinement.cuh, LbmCouplingState) of
    unshifted populations f[19, n]: density, momentum and f - f_eq."""
    return f.sum(axis=0), C.T @ f, _nonequilibrium(f, collision)


def _moved(
    parts: tuple[np.ndarray, np.ndarray, np.ndarray],
    tau0_src: float,
    tau0_dst: float,
    r: float,
    cs2: float,
    collision: str,
) -> np.ndarray:
    """f_eq(rho, j) + r (tau_dst - 1) / (tau_src - 1) neq of combined parts, float64, tau_src
    inverted from the state's stress under the Smagorinsky model and tau_dst = tau0_dst +
    r (tau_src - tau0_src) (cuda/lbm_refinement.cuh's formulas)."""
    rho, j, d = parts
    feq = _equilibrium(rho, j, collision)
    pi = np.einsum("qa,qb,qn->abn", C, C, d) / (rho if collision == "entropic" else 1.0)
    norm = np.sqrt(np.einsum("abn,abn->n", pi, pi))
    if cs2 > 0:
        disc = np.maximum((1 - tau0_src) ** 2 - 25.455844 * cs2 * norm, 0.0)
        tau_src = 0.5 * ((1 + tau0_src) - np.sqrt(disc))
    else:
        tau_src = np.full_like(rho, tau0_src)
    tau_dst = tau0_dst + r * (tau_src - tau0_src)
    return feq + r * (tau_dst - 1) / (tau_src - 1) * d


def _combined(states: list[tuple[float | np.ndarray, np.ndarray]], collision: str):
    """sum of weight * parts(f) over (weight, f[19, n]) pairs."""
    total = None
    for weight, f in states:
        parts = [weight * p for p in _parts(f, collision)]
        total = parts if total is None else [t + p for t, p in zip(total, parts, strict=True)]
    assert total is not None
    return tuple(total)


@pytest.mark.parametrize("cs_smag", [0.0, 0.16])
@pytest.mark.parametrize("collision", ["bgk", "entropic"])
def test_coupling_kernels_match_numpy(backend, collision, cs_smag):
    """Explosion (the coarse state at the fine centre, halfway in time) and coalescence (the mean
    of eight fine cells), each combining the cells' density, momentum and non-equilibrium parts
    and rescaling the last, as NumPy computes them in float64 from the same random states: to
    2e-6 of the populations."""
    rng = np.random.default_rng(3)
    tau_c = 0.56
    t = TwoLevelBox(backend, (8, 7, 6), RefinedBox((2, 2, 0), (6, 5, 6)), tau_c, collision, cs_smag)
    tau_f, cs2 = 2 * tau_c - 0.5, cs_smag**2
    states = []
    for level in (t.coarse, t.coarse, t.fine):
        n = level.flags.size
        rho = 1 + 0.01 * rng.standard_normal(n)
        u = 0.05 * rng.standard_normal((3, n))
        f = equilibrium(rho, u) + 0.002 * rng.standard_normal((19, n)) * W[:, None]
        buffer = np.zeros(19 * level.plane_stride, np.float32)
        buffer.reshape(19, level.plane_stride)[:, :n] = f - W[:, None]
        states.append(buffer)
    c_now, c_next, fine = (backend.asarray(a) for a in states)
    cs, fs = t.coarse.plane_stride, t.fine.plane_stride
    unshift = W[:, None]

    def planes(buffer, stride):
        return backend.to_host(buffer).reshape(19, stride).astype(np.float64) + unshift

    e = backend.to_host(t.coupling.explosion_cells)
    weights = backend.to_host(t.coupling.explosion_weights).astype(np.float64)
    fine_out = backend.asarray(states[2])
    backend.explode(
        c_now,
        c_next,
        0.5,
        cs,
        fine_out,
        fs,
        t.coupling.explosion_cells,
        t.coupling.explosion_weights,
        tau_c,
        tau_f,
        cs2,
        t.collision,
    )
    now, nxt = planes(c_now, cs), planes(c_next, cs)
    terms = [(0.5, now[:, e[:, 0]]), (0.5, nxt[:, e[:, 0]])]
    for a in range(3):
        terms += [
            (weights[:, a], now[:, e[:, 2 + 2 * a]]),
            (-weights[:, a], now[:, e[:, 3 + 2 * a]]),
        ]
    expected = _moved(_combined(terms, collision), tau_c, tau_f, 0.5, cs2, collision)
    got = planes(fine_out, fs)[:, e[:, 1]]
    assert np.abs(got - expected).max() < 2e-6

    cells = backend.to_host(t.coupling.coalescence_cells)
    coarse_out = backend.asarray(states[0])
    backend.coalesce(
        fine, fs, coarse_out, cs, t.coupling.coalescence_cells, tau_f, tau_c, cs2, t.collision
    )
    children = planes(fine, fs)
    parts = _combined([(0.125, children[:, cells[:, k]]) for k in range(1, 9)], collision)
    expected = _moved(parts, tau_f, tau_c, 2.0, cs2, collision)
    assert np.abs(planes(coarse_out, cs)[:, cells[:, 0]] - expected).max() < 2e-6


def _sheared_state(backend, tau0: float, cs_smag: float, strain: np.ndarray, collision: str):
    """The post-collision populations (unshifted, [19]) of a cell at rest density 1, velocity
    (0.03, -0.02, 0.01) and lattice strain rate `strain` under the kernel's collision with the
    Smagorinsky model: the pre-collision non-equilibrium part is the Hermite one of the stress
    -2/3 tau S, tau solved with the model's own rate at that stress."""
    u = np.array([0.03, -0.02, 0.01])
    norm_s = np.sqrt(np.sum(strain * strain))
    tau = tau0
    for _ in range(60):  # tau = (tau0 + sqrt(tau0^2 + A |Pi|)) / 2 with |Pi| = 2/3 tau |S|
        tau = 0.5 * (tau0 + np.sqrt(tau0**2 + 25.455844 * cs_smag**2 * (2 / 3) * tau * norm_s))
    pi = -(2 / 3) * tau * strain
    q = np.einsum("qa,qb->qab", C, C) - np.eye(3) / 3
    f_eq = (
        equilibrium(np.ones(1), u[:, None])[:, 0]
        if collision == "bgk"
        else entropic_equilibrium(1.0, u)
    )
    f = f_eq + 4.5 * W * np.einsum("qab,ab->q", q, pi)
    return run_periodic_step(backend, f.reshape(19, 1, 1, 1), tau0, cs_smag, collision)[:, 0, 0, 0]


@pytest.mark.parametrize("collision", ["bgk", "entropic"])
def test_subgrid_state_moves_between_levels_as_its_strain_does(backend, collision):
    """A cell under a strain S whose eddy viscosity is four times the molecular one: its coarse
    post-collision state exploded to the fine level is the fine level's own post-collision state
    at S / 2 (the same physical strain), and the fine one coalesced is the coarse one, within
    5e-4 of the non-equilibrium part (measured 2.5e-6 BGK, 5.7e-7 entropic). The rescaling by the
    molecular tau alone misses by 3.1e-3: near tau = 1/2 the factor (tau - 1) hardly moves."""
    if backend.name != "cpu":
        pytest.skip("the one-cell states come from the CPU step (conftest.run_periodic_step)")
    strain = 0.02 * np.array([[0.3, 0.8, -0.2], [0.8, -0.5, 0.4], [-0.2, 0.4, 0.2]])
    tau_c, cs = 0.5005, 0.16
    tau_f = 2 * tau_c - 0.5
    coarse = _sheared_state(backend, tau_c, cs, strain, collision)
    fine = _sheared_state(backend, tau_f, cs, strain / 2, collision)
    code = lattice.COLLISIONS[collision]
    one = lattice.plane_stride(1)
    eight = lattice.plane_stride(8)

    def buffer(f: np.ndarray, cells: int, stride: int):
        out = np.zeros((19, stride), np.float32)
        out[:, :cells] = (f - W)[:, None]
        return backend.asarray(out.ravel())

    def populations(device, stride: int) -> np.ndarray:
        return backend.to_host(device).reshape(19, stride)[:, 0].astype(np.float64) + W

    neq_fine = np.abs(_nonequilibrium(fine[:, None], collision))
    errors = {}
    for cs2 in (cs**2, 0.0):
        out = buffer(np.zeros(19) + W, 1, one)
        backend.explode(
            buffer(coarse, 1, one),
            buffer(coarse, 1, one),
            0.0,
            one,
            out,
            one,
            backend.asarray(np.zeros((1, 8), np.int64)),
            backend.asarray(np.zeros((1, 3), np.float32)),
            tau_c,
            tau_f,
            cs2,
            code,
        )
        errors[cs2] = np.abs(populations(out, one) - fine).max() / neq_fine.max()
    assert errors[cs**2] < 5e-4
    assert errors[0.0] > 5e-4

    out = buffer(np.zeros(19) + W, 1, one)
    cells = np.array([[0, *range(8)]], np.int64)
    backend.coalesce(
        buffer(fine, 8, eight), eight, out, one, backend.asarray(cells), tau_f, tau_c, cs**2, code
    )
    neq_coarse = np.abs(_nonequilibrium(coarse[:, None], collision))
    assert np.abs(populations(out, one) - coarse).max() < 5e-4 * neq_coarse.max()


def test_coupling_reads_only_cells_that_carry_the_flow(backend):
    """Every explosion writes a fine ghost cell from coarse cells that are stepped or coalesced;
    every coalescence writes a coarse ghost cell from eight active fine cells inside it."""
    t = TwoLevelBox(backend, (12, 11, 10), RefinedBox((3, 2, 4), (9, 8, 7)), 0.6)
    coarse_type = (t.coarse.flags & lattice.TYPE_MASK).ravel()
    fine_type = (t.fine.flags & lattice.TYPE_MASK).ravel()
    cells = backend.to_host(t.coupling.coalescence_cells)
    assert np.all(coarse_type[cells[:, 0]] == lattice.GHOST)
    assert np.all(fine_type[cells[:, 1:]] == lattice.FLUID)
    readable = (coarse_type == lattice.FLUID) | np.isin(np.arange(coarse_type.size), cells[:, 0])
    e = backend.to_host(t.coupling.explosion_cells)
    assert np.all(fine_type[e[:, 1]] == lattice.GHOST)
    assert np.all(coarse_type[e[:, 0]] == lattice.FLUID)
    assert np.all(readable[e[:, 2:]])
    # the ring is every ghost cell an active fine cell pulls from
    fz, fy, fx = t.fine.flags.shape
    active = np.argwhere(t.fine.active)
    sources = {
        tuple(p)
        for z, y, x in active
        for cx, cy, cz in lattice.C[1:]
        for p in [(z - cz, y - cy, x - cx)]
        if fine_type[(x - cx) + fx * ((y - cy) + fy * (z - cz))] == lattice.GHOST
    }
    ring = {
        tuple(p)
        for p in np.argwhere(np.isin(np.arange(fine_type.size), e[:, 1]).reshape(fz, fy, fx))
    }
    assert sources == ring
    # the coarse layer is every ghost cell an active coarse cell pulls from
    nz, ny, nx = t.coarse.flags.shape
    pulled = {
        ((x - cx) % nx) + nx * (((y - cy) % ny) + ny * ((z - cz) % nz))
        for z, y, x in np.argwhere(t.coarse.active)
        for cx, cy, cz in lattice.C[1:]
    }
    assert {n for n in pulled if coarse_type[n] == lattice.GHOST} == set(cells[:, 0].tolist())


def test_uniform_flow_through_a_refined_box(backend):
    """A uniform flow oblique to the grid through a periodic box holding a refined box (3D: faces,
    edges and corners of the interface): after five flow-throughs |u - U| < 1e-4 |U| on both
    levels, and the mass drifts by under 1e-6 per 1000 coarse steps."""
    check = uniform_flow(backend)
    assert check.velocity_error < 1e-4
    assert abs(check.mass_drift) < 1e-6 * check.coarse_steps / 1000


@pytest.mark.parametrize("collision", ["bgk", "entropic"])
@pytest.mark.parametrize(
    "box",
    [RefinedBox((8, 0, 0), (24, 32, 2)), RefinedBox((8, 8, 0), (24, 24, 2))],
    ids=["half-slab", "quarter-box"],
)
def test_taylor_green_viscosity_across_refined_box(backend, box, collision):
    """The vortex decays at the configured viscosity within 1% with half the domain refined (two
    interface planes) or a quarter (a box whose edges the vortex crosses): measured 0.9997-1.0004
    at tau 0.6 (docs/solver.md). Without the explosion's gradient term 1.06 (half) at 32 and at 64
    cells per wavelength: the test fails on a scheme that is not consistent at the interface."""
    assert abs(taylor_green(backend, box, 0.6, collision).viscosity_ratio - 1) < 0.01


def test_pulse_crossing_an_interface_reflects_little(backend):
    """A Gaussian density pulse crossing from the coarse level into the fine one: the wave
    reflected back into the coarse level under 2% of the incident one (measured 0.05% at
    tau 0.6)."""
    check = pulse_reflection(backend)
    assert check.incident > 0.4e-3  # half the pulse's 1e-3, less its spreading
    assert check.reflection < 0.02


@pytest.mark.parametrize(
    ("shape", "box", "tau", "message"),
    [
        ((16, 16, 2), RefinedBox((0, 4, 0), (8, 12, 2)), 0.6, "axis x"),
        ((16, 16, 2), RefinedBox((4, 4, 0), (5, 12, 2)), 0.6, "axis x"),
        ((16, 16, 2), RefinedBox((4, 4, 0), (12, 12, 2)), 1.0, "coarse level"),
        ((16, 16, 2), RefinedBox((4, 4, 0), (12, 12, 2)), 0.75, "fine level"),
    ],
)
def test_bad_boxes_refused(backend, shape, box, tau, message):
    with pytest.raises(ValueError, match=message):
        TwoLevelBox(backend, shape, box, tau)


@pytest.mark.parametrize(
    ("box_lo_m", "box_hi_m", "cd_measured"),
    [
        ((0.05, 0.05, -1.0), (0.8, 0.36, 1.0), 5.5610),
        ((0.05, -1.0, -1.0), (0.8, 1.0, 1.0), 5.5591),
        ((0.05, 0.0, -1.0), (0.8, 0.3, 1.0), 5.5584),
    ],
    ids=["inside", "both-walls", "lower-wall"],
)
def test_schaefer_turek_2d1_with_the_cylinder_in_a_refined_box(
    backend, box_lo_m, box_hi_m, cd_measured
):
    """Schäfer & Turek's 2D-1 (Re 20) with the tunnel at 10 cells per diameter and a box round
    the cylinder and its wake, x 0.05-0.8 m, at 20: off the channel's walls (y 0.05-0.36 m), up to
    both (the fine level takes the no-slip walls itself) or up to the lower one. Cd within 1% of
    5.5795 at under a third of the uniform 20-cell grid's cell updates (measured after 6,000 coarse
    steps: cd_measured, -0.33% to -0.38%; the uniform grid at 20 cells 5.5856, at 10 cells 5.6659;
    docs/solver.md)."""
    case = load_case(
        ROOT / "cases" / "cylinder_2d1.yaml",
        [
            "resolution.cells_per_length=20",
            "domain.size_m=[2.2,0.41,0.01]",
            refined_box_override(box_lo_m, box_hi_m),
        ],
    )
    sim = RefinedSimulation(case, backend)
    forces = sim.advance(12000)
    cd, cl = sim.coefficients(forces[-400:, 0].mean(axis=0))
    cd_before = sim.coefficients(forces[-2400:-2000, 0].mean(axis=0))[0]
    assert abs(cd / 5.5795 - 1) < 0.01
    assert abs(cd / cd_before - 1) < 1e-3  # steady
    uniform_updates = 2 * 442 * 84 * 2  # two 20-cell steps per coarse step on 442 x 84 x 2
    assert sim.cell_updates_per_coarse_step() < uniform_updates / 2.5


#: 2D-1 one tunnel cell (two fine cells) deep on two levels
CYLINDER_DEPTH = ["domain.size_m=[2.2,0.41,0.01]"]
INSIDE_BOX = refined_box_override((0.05, 0.05, -1.0), (0.8, 0.36, 1.0))


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ([refined_box_override((-1.0, 0.05, -1.0), (0.8, 0.36, 1.0))], "x_min face \\(inlet\\)"),
        ([refined_box_override((0.05, 0.05, -1.0), (2.3, 0.36, 1.0))], "x_max face \\(outflow\\)"),
        (
            [refined_box_override((0.05, 0.5, -1.0), (0.8, 0.6, 1.0))],
            "does not fit the grid of the level above",
        ),
        ([refined_box_override((0.14, 0.05, -1.0), (0.8, 0.36, 1.0))], "x_min side lies 2.0 fine"),
        ([refined_box_override((0.05, 0.05, -1.0), (0.8, 0.22, 1.0))], "y_max side lies -6.0"),
    ],
)
def test_bad_refined_boxes_refused_naming_the_key(backend, overrides, message):
    """A box reaching the inlet or the outflow, outside the tunnel, or too close to the cylinder
    (x 0.15-0.25 m, y 0.15-0.25 m; 4 fine cells of 0.005 m needed) or cutting it."""
    case = load_case(ROOT / "cases" / "cylinder_2d1.yaml", [*CYLINDER_DEPTH, *overrides])
    with pytest.raises(ConfigError, match=f"key 'refinement.levels\\[0\\]'.*{message}"):
        RefinedSimulation(case, backend)


def test_domain_not_whole_coarse_cells_refused_naming_the_key(backend):
    """A periodic axis every level spans whole must be a whole number of the tunnel level's cells
    (here 0.03 m of z at 0.01 m cells: 3 cells, while the box level's 0.005 m cells make 6): one
    line naming domain.size_m (it crashed on the ghost mask's shape before)."""
    case = load_case(
        ROOT / "cases" / "cylinder_2d1.yaml",
        ["resolution.cells_per_length=20", "domain.size_m=[2.2,0.41,0.025]", INSIDE_BOX],
    )
    with pytest.raises(ConfigError, match="key 'domain.size_m': the domain's z length 0.025 m"):
        RefinedSimulation(case, backend)


def three_levels(inner_lo_m: tuple[float, ...], inner_hi_m: tuple[float, ...]) -> list[str]:
    """2D-1 on three levels: the tunnel at 5 cells per diameter, INSIDE_BOX at 10 and the box
    [inner_lo_m, inner_hi_m) at 20."""
    boxes = refined_box_override((0.05, 0.05, -1.0), (0.8, 0.36, 1.0), (inner_lo_m, inner_hi_m))
    return [
        "resolution.cells_per_length=20",
        "domain.size_m=[2.2,0.41,0.02]",  # one tunnel cell deep
        "run.sample_every=40",
        boxes,
    ]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            three_levels((0.06, 0.08, -1.0), (0.5, 0.32, 1.0)),
            "levels\\[1\\]': the box's x_min side lies 2.0 cells of the level above inside",
        ),
        (
            three_levels((0.08, 0.08, -1.0), (0.9, 0.32, 1.0)),
            "levels\\[1\\]': the box's x_max side lies -10.0 cells of the level above",
        ),
        (
            [*three_levels((0.08, 0.08, -1.0), (0.5, 0.32, 1.0)), "resolution.u_lattice=0.16"],
            "resolution.u_lattice': between levels 1 and 2, the fine level's relaxation time 0.980",
        ),
    ],
)
def test_bad_nested_levels_refused_naming_the_key(backend, overrides, message):
    """A box that does not nest inside the box before it with 4 cells of that level to spare
    (INSIDE_BOX snaps to x 0.04-0.8 m on the tunnel's 0.02 m cells), and a lattice speed that
    puts a level's relaxation time next to 1."""
    case = load_case(ROOT / "cases" / "cylinder_2d1.yaml", overrides)
    with pytest.raises(ConfigError, match=message):
        RefinedSimulation(case, backend)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["resolution.cells_per_length=21"],
            "resolution.cells_per_length' = 21 must be a multiple of 2 on 2 levels",
        ),
        (["run.check_every=101"], "run.check_every' = 101 must be a multiple of 2"),
        (
            ["refinement.levels=[{box_lo_m: [0, 0, 0], box_hi_m: [1, 1, 1], margin_m: 0.1}]"],
            "needs either box_lo_m and box_hi_m",
        ),
        (["refinement.levels[0].margin_m=0.1"], "give a list key as a whole"),
        (["refinement.levels=[{margn_m: 0.1}]"], "unknown key 'margn_m': did you mean 'margin_m'"),
        (
            ["refinement.levels=[{box_lo_m: [1, 0, 0], box_hi_m: [0.5, 1, 1]}]"],
            "box_lo_m' must lie below box_hi_m",
        ),
        (["refinement.levels=[{margin_m: -0.1}]"], "margin_m' must be positive"),
        (
            ["refinement.levels=[" + ", ".join(f"{{margin_m: {m}}}" for m in (4, 2, 1, 0.5)) + "]"],
            "holds 4 boxes: at most 3",
        ),
        (
            [
                "resolution.cells_per_length=22",
                "refinement.levels=[{margin_m: 0.2}, {margin_m: 0.1}]",
            ],
            "resolution.cells_per_length' = 22 must be a multiple of 4 on 3 levels",
        ),
        (
            [
                "resolution.cells_per_length=40",
                "refinement.levels=[{margin_m: 0.2}, {margin_m: 0.1}]",
            ],
            "run.sample_every' = 50 must be a multiple of 4 on 3 levels",
        ),
    ],
)
def test_bad_refinement_keys_refused_on_load(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_case(ROOT / "cases" / "cylinder_2d1.yaml", [INSIDE_BOX, *overrides])


def couette_mass_change_and_error(
    sim: RefinedSimulation, case, finest_steps: int
) -> tuple[float, float]:
    """The Couette flow of couette_case on levels after twice finest_steps: the relative change
    of the total mass (each level's fluid cells, a cell of level k an 8^-k of the tunnel's) over
    the second finest_steps, and the largest |u - U (1 - y)| / U over every level's fluid cells."""

    def mass() -> float:
        pairs = enumerate(zip(sim.levels, sim.level_fields(), strict=True))
        return float(sum(f.rho[s.fluid_mask].sum(dtype=np.float64) / 8**k for k, (s, f) in pairs))

    sim.advance(finest_steps)
    mass_before = mass()
    sim.advance(finest_steps)
    error = 0.0
    for level, fields in zip(sim.levels, sim.level_fields(), strict=True):
        inner = level.grid.interior()
        u = fields.velocity[0][inner] * level.units.velocity_scale
        y = level.grid.centers(1)[inner[1]] - case.domain.origin_m[1]
        fluid = level.fluid_mask[inner]
        error = max(error, float(np.abs(u - (1 - y)[None, :, None])[fluid].max()))
    return mass() / mass_before - 1, error


@pytest.mark.parametrize(
    ("collision", "model"), [("bgk", "none"), ("entropic", "none"), ("entropic", "loglaw")]
)
def test_couette_flow_through_a_box_up_to_both_walls(collision, model):
    """Plane Couette flow, Re 10, the y_min wall moving at U and y_max at rest, 16 cells across
    on the fine level and 8 on the coarse, the box over the middle half of x and up to both walls
    (the fine level takes the walls' rules itself, its ring stops at them): after 8,000 fine
    steps both levels hold the linear profile to 1e-3 U (measured 3.7e-4 with either operator;
    the uniform grid 2.2e-4) and the total mass changes by under 3e-5 per 1,000 coarse steps
    (measured -1.3e-9 BGK, +8.6e-6 entropic; interpolating the populations instead of their
    density, momentum and non-equilibrium parts gained 3.6e-4 of the coarse level's mass, and the
    ring's cells on the walls taken as ghosts, resting walls in the moving one, left the profile
    9% U off). With the wall model on both levels (its input in the fourth cell; the first cell
    at y+ 0.3, where the law of the wall is linear) the profile holds as well: 2.3e-4."""
    case = couette_case(
        (1.0, 1.0, 0.25),
        resolution={"collision": collision},
        walls={"model": model},
        refinement={"levels": [{"box_lo_m": [0.25, -1.0, -1.0], "box_hi_m": [0.75, 2.0, 2.0]}]},
    )
    sim = RefinedSimulation(case, select_backend("cpu"))
    mass_change, profile_error = couette_mass_change_and_error(sim, case, 4000)
    assert abs(mass_change / 2) < 3e-5  # per 1,000 coarse steps: 4,000 fine steps are 2,000
    assert profile_error < 1e-3


@pytest.mark.parametrize("collision", ["bgk", "entropic"])
def test_couette_flow_through_three_nested_levels(collision):
    """The Couette flow above on three levels: 8, 16 and 32 cells across, the tunnel 2 m long,
    a box over x 0.5-1.5 m and inside it one over x 0.875-1.125 m (6 cells of the middle level
    from its box's sides), both up to both walls; u_lattice 0.04 (tau 0.596, 0.692 and 0.884 from
    the tunnel in). After 8,000 finest steps (2,000 of the tunnel level) every
    level holds the linear profile to 1e-3 U and the total mass changes by under 3e-5 per 1,000
    coarse steps, as on two levels (measured: BGK 2.7e-4 U and -8.4e-7, entropic 1.4e-4 U and
    +2.6e-6)."""
    case = couette_case(
        (2.0, 1.0, 0.25),
        resolution={"collision": collision, "cells_per_length": 32, "u_lattice": 0.04},
        run={"sample_every": 40},
        refinement={
            "levels": [
                {"box_lo_m": [0.5, -1.0, -1.0], "box_hi_m": [1.5, 2.0, 2.0]},
                {"box_lo_m": [0.875, -1.0, -1.0], "box_hi_m": [1.125, 2.0, 2.0]},
            ]
        },
    )
    sim = RefinedSimulation(case, select_backend("cpu"))
    assert [level.grid.dx_m for level in sim.levels] == pytest.approx([1 / 8, 1 / 16, 1 / 32])

    mass_change, profile_error = couette_mass_change_and_error(sim, case, 4000)
    assert abs(mass_change) < 3e-5  # per 1,000 coarse steps: 4,000 finest steps are 1,000
    assert profile_error < 1e-3
