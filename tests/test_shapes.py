"""Bodies and meshes: the Ahmed body, mesh I/O through meshio, and the mesh checks."""

from __future__ import annotations

import math

import meshio
import numpy as np
import pytest

from shapes.ahmed import AhmedBody
from shapes.errors import MeshError
from shapes.mesh import TriangleMesh, check_mesh, read_mesh, write_mesh
from shapes.solids import icosphere
from solver.voxelize import frontal_area_m2


@pytest.mark.parametrize("slant", [0.0, 12.5, 25.0, 30.0, 40.0])
@pytest.mark.parametrize("stilts", [False, True])
def test_ahmed_body_is_a_clean_closed_surface_of_the_published_size(slant, stilts):
    body = AhmedBody(slant_deg=slant, stilts=stilts)
    mesh = body.mesh()
    check_mesh(mesh)
    lo, hi = mesh.bounds_m()
    assert lo == pytest.approx([0.0, -0.1945, 0.0 if stilts else 0.05], abs=1e-9)
    assert hi == pytest.approx([1.044, 0.1945, 0.338], abs=1e-9)
    # Volume: every section is the W x H rectangle inset by d(x) = R - sqrt(R^2 - (R - x)^2) in
    # the nose, less the slant's wedge, plus the stilts (24-sided prisms).
    R, W, H, L = 0.1, 0.389, 0.288, 1.044
    x = np.linspace(0.0, R, 200_001)
    d = R - np.sqrt(R**2 - (R - x) ** 2)
    nose = np.trapezoid((W - 2 * d) * (H - 2 * d), x)
    phi = math.radians(slant)
    wedge = 0.5 * 0.222 * math.cos(phi) * 0.222 * math.sin(phi) * W
    stilt = 0.5 * 24 * 0.015**2 * math.sin(2 * math.pi / 24) * (0.05 - 1e-4)
    expected = nose + (L - R) * W * H - wedge + (4 * stilt if stilts else 0.0)
    assert mesh.volume_m3() == pytest.approx(expected, rel=2e-3)


@pytest.mark.parametrize("slant", [0.0, 25.0, 35.0])
def test_ahmed_parts_have_the_areas_of_the_drawing(slant):
    """Every face carries a part; the flat parts have the areas of Ahmed et al.'s drawing: base
    W (H - l sin phi), slant W l, underbody W (L - R), roof W (L - R - l cos phi), and the sides
    2 x (their profile less the nose), the profile H (L - R) less the slant's wedge."""
    mesh = AhmedBody(slant_deg=slant, stilts=True).mesh()
    part, names = mesh.parts()
    assert names == ("forebody", "roof", "sides", "underbody", "slant", "base", "stilts")
    assert part.shape == (len(mesh.faces),) and set(np.unique(part)) == set(range(7)) - (
        set() if slant else {4}
    )
    area = {name: float(mesh.face_areas_m2()[part == i].sum()) for i, name in enumerate(names)}
    R, W, H, L, l_s = 0.1, 0.389, 0.288, 1.044, 0.222
    phi = math.radians(slant)
    wedge = 0.5 * l_s * math.cos(phi) * l_s * math.sin(phi)
    assert area["base"] == pytest.approx(W * (H - l_s * math.sin(phi)), rel=1e-9)
    assert area["slant"] == pytest.approx(W * l_s if slant else 0.0, rel=1e-9, abs=1e-12)
    assert area["underbody"] == pytest.approx(W * (L - R), rel=1e-9)
    assert area["roof"] == pytest.approx(
        W * (L - R - (l_s * math.cos(phi) if slant else 0.0)), rel=1e-9
    )
    assert area["sides"] == pytest.approx(2 * (H * (L - R) - wedge), rel=1e-9)


def test_ahmed_frontal_area(cpu):
    body = AhmedBody(slant_deg=25.0, stilts=True)
    mesh = body.mesh()
    area = frontal_area_m2(cpu, mesh.vertices_m, mesh.faces, (-0.3, 0.3), (0.0, 0.4), 0.0005)
    assert area == pytest.approx(body.frontal_area_m2(), rel=0.01)


@pytest.mark.parametrize("suffix", [".stl", ".obj", ".vtp"])
def test_write_then_read_gives_the_same_mesh(tmp_path, suffix):
    mesh = icosphere(0.3, (1.0, 2.0, 3.0), subdivisions=2)
    path = write_mesh(mesh, tmp_path / f"sphere{suffix}")
    back = read_mesh(path)
    check_mesh(back)
    assert len(back.faces) == len(mesh.faces)
    assert back.volume_m3() == pytest.approx(mesh.volume_m3(), rel=1e-6)
    assert back.bounds_m()[0] == pytest.approx(mesh.bounds_m()[0], abs=1e-6)


def test_read_ascii_stl_and_ply_in_millimetres_with_y_up(tmp_path):
    """A file in mm, y up and the nose towards +z: read with unit mm, up +y, downstream +z."""
    mesh = AhmedBody(slant_deg=25.0, resolution=6).mesh()
    v = mesh.vertices_m * 1000.0
    file_frame = np.column_stack([v[:, 1], v[:, 2], v[:, 0]])  # (y, z, x): z downstream, y up
    for name, kwargs in (("body.stl", {"binary": False}), ("body.ply", {})):
        path = tmp_path / name
        meshio.write(path, meshio.Mesh(file_frame, [("triangle", mesh.faces)]), **kwargs)
        back = read_mesh(path, unit="mm", downstream="+z", up="+y")
        check_mesh(back)
        assert back.bounds_m()[1] == pytest.approx([1.044, 0.1945, 0.338], abs=1e-6)
        assert back.volume_m3() == pytest.approx(mesh.volume_m3(), rel=1e-6)


def _box_faces() -> TriangleMesh:
    from shapes.solids import box

    return box([1.0, 1.0, 1.0])


def test_checks_name_the_defect_and_count():
    good = _box_faces()
    check_mesh(good)
    with pytest.raises(MeshError, match="not closed, 3 boundary edges"):
        check_mesh(TriangleMesh(good.vertices_m, good.faces[1:]))
    flipped = good.faces.copy()
    flipped[0] = flipped[0, ::-1]
    with pytest.raises(MeshError, match="inconsistently oriented, 3 edges"):
        check_mesh(TriangleMesh(good.vertices_m, flipped))
    with pytest.raises(MeshError, match="faces point inwards"):
        check_mesh(TriangleMesh(good.vertices_m, good.faces[:, ::-1].copy()))
    sliver = np.vstack([good.faces, [[0, 0, 1]]])
    with pytest.raises(MeshError, match="1 degenerate"):
        check_mesh(TriangleMesh(good.vertices_m, sliver))


def test_unreadable_and_missing_files(tmp_path):
    with pytest.raises(MeshError, match="does not exist"):
        read_mesh(tmp_path / "absent.stl")
    bad = tmp_path / "bad.stl"
    bad.write_bytes(b"\x00garbage")
    with pytest.raises(MeshError, match="cannot be read"):
        read_mesh(bad)


def _car_samples() -> list:
    """64 parameter vectors from a scrambled Sobol sample of the bounds (seeded), the box's two
    extreme corners, a stressed corner (short and tall, long hood, shallow glass) and the
    baseline."""
    from scipy.stats import qmc

    from shapes.car import PARAMETERS, CarParameters

    low = np.array([p.low for p in PARAMETERS])
    high = np.array([p.high for p in PARAMETERS])
    sobol = qmc.Sobol(d=len(PARAMETERS), scramble=True, seed=3).random_base2(m=6)
    stressed = high.copy()
    stressed[[0, 4, 6, 8]] = [low[0], high[4], low[6], low[8]]
    vectors = [*qmc.scale(sobol, low, high), low, high, stressed]
    return [CarParameters.from_vector(v) for v in vectors] + [CarParameters()]


@pytest.mark.parametrize("params", _car_samples())
def test_parametric_car_is_clean_for_parameters_in_bounds(params):
    """Closed, oriented, outward, no degenerate faces; sections convex and stations increasing
    (so the loft cannot intersect itself); bounding box as the parameters say."""
    from shapes.car import car_mesh

    mesh = car_mesh(params)
    check_mesh(mesh)
    lo, hi = mesh.bounds_m()
    assert lo[0] == pytest.approx(0.0) and hi[0] == pytest.approx(params.length_m)
    assert hi[1] - lo[1] == pytest.approx(params.width_m, rel=1e-6)
    assert hi[2] <= params.height_m + params.roof_camber_m + 1e-9
    assert lo[2] == pytest.approx(params.ground_clearance_m)
    k = 4 * (8 + 6)
    rings = mesh.vertices_m[:-2].reshape(-1, k, 3)
    assert np.all(np.diff(rings[:, 0, 0]) > 0)
    for ring in rings[:, :, 1:]:
        edges = np.roll(ring, -1, axis=0) - ring
        turn = (
            edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1]
            - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
        )
        assert np.all(turn >= -1e-12)  # convex, counter-clockwise


def test_car_parameters_outside_bounds_are_named():
    from shapes.car import CarParameters, car_mesh

    with pytest.raises(MeshError, match="backlight_angle_deg"):
        car_mesh(CarParameters(backlight_angle_deg=60.0))


def test_car_parameter_table_matches_the_dataclass():
    from dataclasses import fields

    from shapes.car import PARAMETERS, CarParameters

    assert [f.name for f in fields(CarParameters)] == [p.name for p in PARAMETERS]
    assert len(PARAMETERS) >= 8
    assert CarParameters() == CarParameters.from_vector(np.array([p.baseline for p in PARAMETERS]))


def test_car_parts_cover_the_body_and_name_where_they_lie():
    """Every face of the default car carries one of its ten parts and none is empty; the base is
    the rear face (all at x = L, facing +x), the underbody and diffuser face down, and the roof
    lies above the belt line and reaches the full height."""
    from shapes.car import BELT_FRAC, CarParameters, car_mesh
    from shapes.car import PART_NAMES as car_part_names

    c = CarParameters()
    mesh = car_mesh(c)
    part, names = mesh.parts()
    assert names == car_part_names and part.shape == (len(mesh.faces),)
    area = mesh.face_areas_m2()
    per_part = np.bincount(part, weights=area, minlength=len(names))
    assert np.all(per_part > 0) and per_part.sum() == pytest.approx(area.sum(), rel=1e-12)
    normal = mesh.face_normals()
    base = part == names.index("base")
    assert np.all(normal[base, 0] > 0.999) and np.allclose(
        mesh.vertices_m[mesh.faces[base]][..., 0], c.length_m
    )
    for down in ("underbody", "diffuser"):
        assert np.all(normal[part == names.index(down), 2] < -0.5)
    roof = mesh.vertices_m[mesh.faces[part == names.index("roof")]]
    belt = c.ground_clearance_m + BELT_FRAC * (c.height_m - c.ground_clearance_m)
    assert roof[..., 2].min() > belt and roof[..., 2].max() >= c.height_m


@pytest.mark.parametrize("index", [-1, -2, -3, -4])
def test_car_with_wheels_is_one_clean_surface(index):
    """The body joined to its four wheels (shapes/wheels.py) at the baseline and at the box's
    extreme and stressed corners: closed, oriented, outward; its volume the body's plus what
    of the wheels lies outside it (more than the segments under the underbody, less than four
    whole wheels); every wheel face on a wheel's tread or sidewall, each wheel showing; the
    wheels reach CONTACT_SINK_M below the road."""
    from shapes.car import car_mesh, profile
    from shapes.wheels import (
        CONTACT_SINK_M,
        WHEEL_RADIUS_M,
        WHEEL_WIDTH_M,
        WHEELS_PART,
        wheel_centres_m,
    )

    params = _car_samples()[index]
    body = car_mesh(params)
    mesh = car_mesh(params, wheels=True)
    check_mesh(mesh)
    r, w = WHEEL_RADIUS_M, WHEEL_WIDTH_M
    # the circular segment of each wheel under the underbody plane z = ground clearance
    depth = params.ground_clearance_m + CONTACT_SINK_M
    half_angle = np.arccos((r - depth) / r)
    segment = r**2 * (half_angle - np.sin(half_angle) * np.cos(half_angle))
    added = mesh.volume_m3() - body.volume_m3()
    assert 4 * segment * w * 0.9 < added < 4 * np.pi * r**2 * w
    assert mesh.bounds_m()[0][2] == pytest.approx(-CONTACT_SINK_M)
    part, names = mesh.parts()
    assert names[-1] == WHEELS_PART
    centres = wheel_centres_m(params.length_m, lambda x: profile(params, x)[2])
    assert np.all(np.abs(centres[:, 1]) + 0.5 * w < 0.5 * params.width_m)
    corners = mesh.vertices_m[mesh.faces[part == names.index(WHEELS_PART)]]
    centre = corners.mean(axis=1)
    wheel = centres[np.argmin(np.linalg.norm(centre[:, None] - centres[None], axis=2), axis=1)]
    radial = np.hypot(corners[..., 0] - wheel[:, None, 0], corners[..., 2] - wheel[:, None, 2])
    on_tread = np.all(radial < r * (1 + 1e-9), axis=1) & np.all(
        radial > r * np.cos(np.pi / 64) - 1e-9, axis=1
    )
    on_side = np.all(np.isclose(np.abs(corners[..., 1] - wheel[:, None, 1]), 0.5 * w), axis=1)
    assert np.all(on_tread | on_side)
    shown = {(int(x > 0.5 * params.length_m), int(y > 0)) for x, y in centre[:, :2]}
    assert shown == {(0, 0), (0, 1), (1, 0), (1, 1)}
