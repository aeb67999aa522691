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
