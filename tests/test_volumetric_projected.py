"""The projected volumetric wall's tables (solver/volumetric_projected.py) streamed by the NumPy
oracle (tests/oracle.py, projected_stream): a fluid at rest kept at rest, mass kept from a random
state with random slopes, a uniform gradient away from the body carried unchanged; and the CPU
kernels (cuda/lbm_projected.cuh) against the oracle, means, slopes and the body's exchange, with
no slip and with the free slip's profile (solver/volumetric_profile.py), which adds no mass (the
laminar pipe's flow rate against Hagen-Poiseuille is in tests/test_volumetric_wall.py)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from conftest import ROOT
from one_step import TAU, box_values, cpu_step, flowing_state
from oracle import equilibrium, moments, projected_collide_slopes, projected_stream

from shapes.case_geometry import CASE_SCHEMA
from shapes.solids import box, icosphere
from solver import lattice
from solver import volumetric_projected as projected
from solver.config import load_case
from solver.errors import ConfigError
from solver.kernel_params import projected_wall_values
from solver.lattice import C, W
from solver.volumetric_law import law_values, volumetric_law
from solver.volumetric_projected import (
    BALANCE_TOLERANCE,
    _balance_turned,
    _return_over_arrivals,
    build_projected_wall,
)
from solver.volumetric_turn import TurnedPieces

SHAPE = (16, 16, 16)
PERIODIC = np.ones(3, bool)


@pytest.fixture(scope="module")
def sphere():
    """An icosphere of radius 5.3 cells off the cells' centres in a periodic 16^3 box."""
    mesh = icosphere(5.3, (8.2, 8.45, 7.9), subdivisions=3)
    return build_projected_wall(mesh.vertices_m[mesh.faces], SHAPE, PERIODIC)


@pytest.fixture(scope="module")
def sphere_over_floor():
    """The sphere with walls at z = 0 and 15 (periodic along x and y): slots at z = 1 lie on the
    floor's face."""
    mesh = icosphere(5.3, (8.2, 8.45, 7.9), subdivisions=3)
    walls = np.zeros(SHAPE, bool)
    walls[[0, -1]] = True
    periodic = np.array([True, True, False])
    return build_projected_wall(mesh.vertices_m[mesh.faces], SHAPE, periodic, walls), walls


def _random(wall, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    fluid = wall.wall.volume > 0
    f = W[:, None, None, None] * rng.uniform(0.5, 1.5, (len(C), *SHAPE)) * fluid
    slope = 0.05 * W[None, :, None] * rng.standard_normal((len(wall.slot_cell), len(C), 3))
    return f, slope


def test_rest_kept(sphere):
    """A fluid at rest stays at rest in every cell with no slope (to 1e-9, the smallest cut
    cells magnifying rounding), and the body feels nothing."""
    fluid = sphere.wall.volume > 0
    f = W[:, None, None, None] * np.ones((len(C), *SHAPE)) * fluid
    new, slope, force = projected_stream(f, np.zeros((len(sphere.slot_cell), len(C), 3)), sphere)
    np.testing.assert_allclose(new, f, rtol=1e-9, atol=0)
    np.testing.assert_allclose(slope, 0.0, atol=1e-9)
    np.testing.assert_allclose(force, 0.0, atol=1e-12)
    assert sphere.stray_volume == 0.0
    assert sphere.overlap.links == 0 and sphere.overlap.rest_error < 1e-9
    assert sphere.overlap.balanced_volume == 0.0


def test_mass_kept(sphere):
    """sum V m (a linear field's mass in a cell is V times its mean) before the step equals it
    after, to rounding, from random means and slopes; a changed map breaks it."""
    volume = sphere.wall.volume
    f, slope = _random(sphere, seed=4)
    new, _, _ = projected_stream(f, slope, sphere)
    assert (new * volume).sum() == pytest.approx((f * volume).sum(), rel=1e-13)
    broken = sphere.keep_map.copy()
    broken[5, 3, 0, 0] += 0.01
    new, _, _ = projected_stream(f, slope, replace(sphere, keep_map=broken))
    assert abs((new * volume).sum() / (f * volume).sum() - 1) > 1e-9


def test_a_uniform_gradient_streams_exactly_away_from_the_body(sphere):
    """Whole slots whose sources no surfel intercepts take their source's mean and slope
    unchanged: a linear field translates."""
    f, slope = _random(sphere, seed=5)
    new, new_slope, _ = projected_stream(f, slope, sphere)
    keep = sphere.keep_map
    plain = np.all(np.abs(keep[:, :, 1:, 1:] - np.eye(3)) < 1e-12, axis=(2, 3)) & (
        np.abs(keep[:, :, 0, 0] - 1) < 1e-12
    )
    assert plain[:, 1:].sum() > 1000
    slot_of = np.full(np.prod(SHAPE), -1)
    slot_of[sphere.slot_cell] = np.arange(len(sphere.slot_cell))
    z, y, x = np.unravel_index(sphere.slot_cell, SHAPE)
    checked = 0
    for q in range(1, len(C)):
        source = np.ravel_multi_index(
            ((z - C[q, 2]) % 16, (y - C[q, 1]) % 16, (x - C[q, 0]) % 16), SHAPE
        )
        no_turned = np.diff(sphere.turn_start)[np.arange(len(sphere.slot_cell)) * len(C) + q] == 0
        pick = plain[:, q] & no_turned & (slot_of[source] >= 0)
        np.testing.assert_allclose(new_slope[pick, q], slope[slot_of[source[pick]], q], atol=1e-12)
        checked += pick.sum()
    assert checked > 1000


def test_the_free_slip_profile_adds_no_mass(sphere):
    """g is measured from each (element, link) prism's centroid: over each element's parcels of a
    link the integral of g vanishes (a uniform population has no profile), and so does the
    scatter's over each outgoing prism (the profile adds no mass to any link)."""
    profile = sphere.profile
    element = np.repeat(np.arange(len(sphere.gather_start) - 1), np.diff(sphere.gather_start))
    gathered = np.zeros((len(sphere.gather_start) - 1, len(C), 3))
    np.add.at(gathered, (element, sphere.gather_q), profile.gather[:, :3])
    scale = np.abs(profile.gather[:, :3]).max()
    np.testing.assert_allclose(gathered, 0.0, atol=1e-12 * scale)
    slot = np.repeat(sphere.slot_cell, np.diff(sphere.scatter_start))
    volume = sphere.wall.volume.ravel()[slot]
    sent = np.zeros_like(gathered)
    np.add.at(
        sent, (sphere.scatter_element, sphere.scatter_q), profile.scatter[:, :3] * volume[:, None]
    )
    scale = (np.abs(profile.scatter[:, :3]) * volume[:, None]).max()
    np.testing.assert_allclose(sent, 0.0, atol=1e-12 * scale)
    assert np.abs(profile.scatter[:, :3]).max() > 0.1  # the profile is there


def _collided(pulled: np.ndarray) -> np.ndarray:
    """BGK at TAU on pulled populations [q, z, y, x]."""
    rho, momentum = moments(pulled)
    return pulled - (pulled - equilibrium(rho, momentum)) / TAU


@pytest.mark.parametrize("case", ["no slip", "free slip", "floor"])
def test_kernel_step_matches_the_oracle(cpu, sphere, sphere_over_floor, case):
    """One step of the CPU kernels past the sphere's projected wall (BGK, tau 0.7) from a flow
    at 0.05 with random non-equilibrium parts and random slopes: the oracle's projected stream,
    its BGK collision and the collision's derivative along the slopes, to float32 rounding
    (means 2e-6 of w_q; slopes 2e-5 of the largest, the kernel's central difference, 2.5e-6
    measured), and the body's exchange to 1e-5 of its size. With the law on and its stress
    left out (the free slip alone) the elements hand back the tangential momentum they gather
    with its profile, and the same step with the profile's tables zeroed differs from the
    kernel's by far more than that. Over a floor, the slots on its face take their links from it
    by halfway bounce-back."""
    wall, walls = sphere_over_floor if case == "floor" else (sphere, None)
    fluid = wall.wall.volume > 0
    f = flowing_state(fluid, seed=7)
    _, slope = _random(wall, seed=8)
    values = box_values(fluid, wall.slot_cell, walls)
    values.update(projected_wall_values(wall, lattice.plane_stride(fluid.size)))
    law = None
    if case == "free slip":
        law = volumetric_law(wall.wall, 1.5, PERIODIC)
        law = replace(law, stress=np.zeros_like(law.stress))
        values.update(law_values(law, 1.5))
    values["vol_slope_in"][:] = slope.astype(np.float32).ravel()
    got, force = cpu_step(cpu, values, f, fluid)
    pulled, pulled_slope, exchange = projected_stream(f, slope, wall, slip=law, walls=walls)
    error = np.max(np.abs(got - _collided(pulled))[:, fluid] / W[:, None])
    assert error < 2e-6
    collided = projected_collide_slopes(pulled, pulled_slope, wall.slot_cell, TAU)
    np.testing.assert_allclose(
        values["vol_slope_in"].reshape(-1, 19, 3),
        collided,
        rtol=0,
        atol=2e-5 * np.abs(collided).max(),
    )
    np.testing.assert_allclose(force[0], exchange, rtol=0, atol=1e-5 * np.abs(exchange).max())
    assert abs(exchange[0]) > 1e-3  # the flow pushes the sphere
    if case == "free slip":
        flat = replace(wall, profile=replace(wall.profile, gram=np.zeros_like(wall.profile.gram)))
        even = _collided(projected_stream(f, slope, flat, slip=law)[0])
        assert np.max(np.abs(got - even)[:, fluid] / W[:, None]) > 100 * max(error, 1e-7)


def test_what_the_projected_wall_needs_is_one_line(monkeypatch):
    """A primitive body ends in a ConfigError naming the key. A surface within a cell of itself
    (a slab 0.001 cells over a post's top in a periodic box, as the Ahmed body stands on its
    stilts) builds: its
    prisms overlap so much that, unbalanced, a fluid at rest would change by far more than the 2%
    allowed, and the balance of the landings brings that under 1e-3 with the sources' mass kept
    (mass is kept in a step from random means and slopes to 1e-9: the overlaps' sharing leaves
    6e-10 of it, balanced or not). With the balance taken away the
    guard refuses it in one line naming the key and the cell where the change is largest, at
    the post's top."""
    with pytest.raises(ConfigError, match="body.bounce_back.*a mesh body"):
        load_case(
            ROOT / "cases" / "sphere.yaml",
            overrides=["body.bounce_back=projected"],
            schema=CASE_SCHEMA,
        )
    post = box((4.3, 2.7, 6.0), (8.2, 7.9, 4.0), divisions=4)
    slab = box((10.8, 9.6, 3.3), (8.0, 7.9, 7.001 + 1.65), divisions=4)
    triangles = np.concatenate([post.vertices_m[post.faces], slab.vertices_m[slab.faces]])
    wall = build_projected_wall(triangles, SHAPE, PERIODIC)
    assert wall.overlap.links > 100 and wall.overlap.balanced_volume > 1.0
    assert wall.overlap.rest_error < 1e-3
    volume = wall.wall.volume
    f, slope = _random(wall, seed=7)
    new, _, _ = projected_stream(f, slope, wall)
    assert (new * volume).sum() == pytest.approx((f * volume).sum(), rel=1e-9)
    monkeypatch.setattr(projected, "BALANCE_ITERATIONS", 0)
    with pytest.raises(ConfigError, match="body.bounce_back.*within a cell of itself") as refused:
        build_projected_wall(triangles, SHAPE, PERIODIC)
    # it names where: a cell next to the post's top (x 6.05-10.35, y 6.55-9.25, z 7)
    x, y, z = map(int, re.search(r"near cell \((\d+), (\d+), (\d+)\)", str(refused.value)).groups())
    assert 5 <= x <= 11 and 5 <= y <= 10 and 6 <= z <= 7


def _two_sources_into_a_sliver(sliver_share: float) -> tuple:
    """Two sources (cells 0 and 2, link 1) each turning a piece into a sliver (cell 1, V 1e-3
    cells^3, as where the car's backlight meets its tail deck at 128 cells) and one into cell 3
    (V 0.8); sliver_share of what the sliver's fluid asks comes its way."""
    q = 1
    flat_volume = np.array([1.0, 1e-3, 0.5, 0.8])
    into_sliver = 1e-3 * sliver_share * np.array([2.0, 1.0]) / 3.0
    into_cell_3 = (0.801 - into_sliver.sum()) * np.array([5.0, 3.0]) / 8.0
    volume = np.concatenate([into_sliver, into_cell_3])
    source = np.array([[0, 0, 0], [2, 0, 0], [0, 0, 0], [2, 0, 0]])
    destination = np.array([[1, 0, 0], [1, 0, 0], [3, 0, 0], [3, 0, 0]])
    first = volume[:, None] * np.array([[0.1, -0.2, 0.05]])
    pieces = TurnedPieces(
        surfel=np.arange(4),
        q=np.full(4, q),
        source=source,
        destination=destination,
        volume=volume,
        first=first,
        second=volume[:, None, None] * np.eye(3) / 12,
        p=0.3 * first,
        q_map=volume[:, None, None] * np.full((3, 3), 2e-2),
    )
    return pieces, source[:, 0], destination[:, 0], flat_volume


def test_the_turned_pieces_landings_are_balanced_to_keep_rest_and_mass():
    """Two pieces turned into a sliver would bring it three times its fluid and the other
    destination too little: scaled by the balance, every destination receives its fluid volume
    (a fluid at rest stays at rest, to the balance's tolerance) and every source sends exactly
    what it sent, its pieces' volume and first moment (mass kept, a slope's too). Each missed
    destination's pieces fill what its keep map leaves: their first moments about its centroid
    add to minus the kept part's, and each carries its slope's mass where its volume lands.
    Pieces that already land right are handed back unchanged."""
    keep_share, slot_of = np.zeros((4, len(C))), np.arange(4)
    keep_first = np.zeros((4, len(C), 3))
    keep_first[1, 2], keep_first[3, 2] = [1e-5, 0.0, -2e-5], [0.01, 0.02, 0.0]
    pieces, src, dst, flat_volume = _two_sources_into_a_sliver(3.0)
    t, p, q_map, moved = _balance_turned(
        pieces, src, dst, pieces.p, pieces.q_map, keep_share, keep_first, slot_of, flat_volume
    )
    for cell in (1, 3):
        into = dst == cell
        assert t.volume[into].sum() == pytest.approx(flat_volume[cell], rel=BALANCE_TOLERANCE)
        np.testing.assert_allclose(p[into].sum(0), -keep_first[cell, 2], rtol=1e-12)
        per_volume = t.first[into] / t.volume[into, None]
        np.testing.assert_allclose(q_map[into], np.einsum("na,nb->nab", p[into], per_volume))
    for cell in (0, 2):
        mine = src == cell
        assert t.volume[mine].sum() == pytest.approx(pieces.volume[mine].sum(), rel=1e-12)
        np.testing.assert_allclose(t.first[mine].sum(0), pieces.first[mine].sum(0), rtol=1e-12)
    scale = t.volume / pieces.volume
    assert scale[:2].max() < 0.5 < 1.0 < scale[2:].min()  # the sliver's pieces shrink
    assert moved == pytest.approx(0.5 * np.abs(t.volume - pieces.volume).sum(), rel=1e-12)
    exact, _, _, flat_volume = _two_sources_into_a_sliver(1.0)
    same, *_, none = _balance_turned(
        exact, src, dst, exact.p, exact.q_map, keep_share, keep_first, slot_of, flat_volume
    )
    assert same is exact and none == 0.0


def test_pieces_turned_past_a_slivers_fluid_go_back_to_their_sources():
    """Where no balance can help (each source's only piece lands in one sliver of V 1e-3
    cells^3, bringing it three times its fluid), the pieces are scaled to fill it, the rest of
    each goes back into its own source turned in place (its moments about the source, as a stray
    piece's), and every source still sends exactly what it sent."""
    q = 1
    flat_volume = np.array([1.0, 1e-3, 0.5])
    pieces = TurnedPieces(
        surfel=np.array([0, 1]),
        q=np.array([q, q]),
        source=np.array([[0, 0, 0], [2, 0, 0]]),
        destination=np.array([[1, 0, 0], [1, 0, 0]]),
        volume=np.array([2e-3, 1e-3]),
        first=np.array([[1e-4, 0, 0], [2e-4, 0, 0]]),
        second=np.full((2, 3, 3), 1e-5),
        p=np.array([[3e-4, 0, 0], [4e-4, 0, 0]]),
        q_map=np.full((2, 3, 3), 2e-5),
    )
    src, dst = np.array([0, 2]), np.array([1, 1])
    keep_share = np.zeros((3, len(C)))
    t, new_dst, p, _, element, returned = _return_over_arrivals(
        pieces,
        src,
        dst,
        pieces.p,
        pieces.q_map,
        np.array([5, 6]),
        keep_share,
        np.arange(3),
        flat_volume,
    )
    into = new_dst == 1
    assert t.volume[into].sum() / flat_volume[1] == pytest.approx(1.0, rel=1e-12)
    assert returned == pytest.approx(2e-3, rel=1e-12)
    for source in (0, 2):
        mine = t.source[:, 0] == source
        assert t.volume[mine].sum() == pytest.approx(pieces.volume[source // 2], rel=1e-12)
    back = ~into
    np.testing.assert_array_equal(new_dst[back], t.source[back, 0])
    np.testing.assert_allclose(p[back], t.first[back], rtol=1e-12)
    np.testing.assert_array_equal(element, [5, 6, 5, 6])


def test_links_along_a_wall_at_45_degrees_turn_nothing():
    """A box turned 45 degrees about x: links (0, 1, -1) and (0, -1, 1) run along two of its
    faces (c . n = 0), where rounding leaves |c . a| about 1e-15. Such a link has no prism: the
    free slip's profile would divide by c . n (solver/volumetric_profile.py) and send out 1e16
    times what came in (the turned channel at 45 degrees diverged in 20 steps). Every scatter
    entry stays of order one."""
    turn = (
        np.array([[1.0, 0.0, 0.0], [0.0, 1.0, -1.0], [0.0, 1.0, 1.0]])
        / np.array([1.0, np.sqrt(2.0), np.sqrt(2.0)])[:, None]
    )
    mesh = box((6.0, 5.37, 4.91), (0.0, 0.0, 0.0))
    vertices = mesh.vertices_m @ turn.T + np.array([8.3, 8.123456, 7.917])
    wall = build_projected_wall(vertices[mesh.faces], SHAPE, PERIODIC)
    assert np.isfinite(wall.profile.scatter).all()
    assert np.abs(wall.profile.scatter).max() < 100.0
    assert np.abs(wall.scatter_slope).max() < 100.0
