"""run_case.py end to end: outputs, bad input, refused settings, divergence, resume."""

from __future__ import annotations

import json
import logging

import numpy as np
import pytest
from conftest import ROOT, read_vtk_xml

import run_case

BOX = str(ROOT / "cases" / "windtunnel_box.yaml")
SMALL = [
    "resolution.cells_per_length=8",
    "resolution.min_gap_cells=0",
    "run.max_steps=300",
    "run.check_every=50",
    "run.convergence.window_steps=100",
    "output.images=false",
]


def run(args: list[str]) -> int:
    return run_case.main(args)


def test_run_writes_every_output(tmp_path, capsys):
    out = tmp_path / "box"
    assert run([BOX, *SMALL, "--backend", "cpu", "--out", str(out)]) == 0
    for name in ("config.yaml", "forces.csv", "summary.json", "fields.vti"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    for key in (
        "cd",
        "cl",
        "steps",
        "converged",
        "mlups",
        "backend",
        "reynolds",
        "mach",
        "cells",
        "wall_seconds",
    ):
        assert key in summary
    assert summary["steps"] == 300
    assert summary["reynolds"] == pytest.approx(20.0 * 0.4 / 1.5e-5)
    assert summary["mach"] == pytest.approx(0.1 * 3**0.5)
    rows = np.loadtxt(out / "forces.csv", delimiter=",", skiprows=1)
    assert rows.shape == (300, 10)
    assert (out / "forces.csv").read_text().splitlines()[
        0
    ] == "step,fx_n,fy_n,fz_n,cd,cl,cd_pressure,cl_pressure,cd_friction,cl_friction"
    assert np.all(np.isfinite(rows))
    assert rows[-100:, 4].mean() == pytest.approx(summary["cd"], rel=1e-6)
    assert rows[-100:, 6].mean() == pytest.approx(summary["cd_pressure"], rel=1e-6)
    assert rows[-100:, 8].mean() == pytest.approx(summary["cd_friction"], rel=1e-6)


def test_fields_vti_reads_back_in_metres(tmp_path):
    from vtk.util.numpy_support import vtk_to_numpy

    out = tmp_path / "box"
    assert run([BOX, *SMALL, "--backend", "cpu", "--out", str(out)]) == 0
    image = read_vtk_xml(out / "fields.vti")
    dx = 0.4 / 8
    assert image.GetDimensions() == (48, 20, 13)  # 2.4 x 1.0 x 0.65 m at dx = 0.05 m
    assert image.GetSpacing() == pytest.approx((dx, dx, dx))
    assert image.GetOrigin() == pytest.approx((dx / 2, dx / 2, dx / 2))
    data = image.GetPointData()
    names = {data.GetArrayName(i) for i in range(data.GetNumberOfArrays())}
    assert names == {"velocity", "pressure", "Cp", "vorticity", "solid"}
    velocity = vtk_to_numpy(data.GetArray("velocity")).reshape(13, 20, 48, 3)
    solid = vtk_to_numpy(data.GetArray("solid")).reshape(13, 20, 48)
    # The box (solid = 1) spans x 0.6-1.0 m, y 0.4-0.6 m, z 0.03-0.18 m.
    assert solid[2, 8, 15] == 1 and solid[2, 8, 11] == 0
    assert np.all(velocity[solid == 1] == 0)
    # The first plane after the inlet carries the free stream, 20 m/s along x, on average.
    assert velocity[:, :, 0, 0].mean() == pytest.approx(20.0, rel=0.01)


@pytest.mark.parametrize(
    "args, key",
    [
        (["run.max_step=5"], "run.max_step"),
        (["run.max_steps=many"], "run.max_steps"),
        (["resolution.cells_per_length=2"], "resolution.cells_per_length"),
        (["domain.boundaries.y_min=wall"], "domain.boundaries.y_min"),
        (["resolution.u_lattice=0.2"], "resolution.u_lattice"),
        (["resolution.smagorinsky_cs=0"], "resolution.smagorinsky_cs"),
        (["flow.reynolds=100"], "flow.nu_m2_s"),
    ],
)
def test_bad_input_is_one_line_exit_2_nothing_written(tmp_path, capsys, args, key):
    out = tmp_path / "never"
    assert run([BOX, *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and key in err
    assert not out.exists()


def test_invalid_yaml_and_missing_file(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\nflow: {speed_m_s: 1\n")
    assert run([str(broken), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "broken.yaml" in err and "line 3, column 1" in err
    assert run([str(tmp_path / "absent.yaml"), "--out", str(tmp_path / "o")]) == 2
    assert "absent.yaml" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("storage", ["fp32", "fp16s", "fp16c"])
def test_divergence_stops_with_step_and_cause(tmp_path, capsys, storage):
    """BGK at tau 0.51 and Mach 0.29 around a sharp box: blows up; nothing NaN is written. With
    16-bit storage too: a population past the format's range is stored as infinite (binary16) or
    NaN (FP16C), not clamped."""
    out = tmp_path / "div"
    args = [
        BOX,
        f"resolution.storage={storage}",
        "resolution.smagorinsky_cs=0",
        "resolution.u_lattice=0.17",
        "flow.nu_m2_s=0.008",
        "resolution.min_gap_cells=0",
        "run.max_steps=3000",
        "--backend",
        "cpu",
        "--out",
        str(out),
    ]
    assert run(args) == 2
    err = capsys.readouterr().err
    assert "diverged by step" in err and "smagorinsky_cs" in err
    assert not (out / "summary.json").exists() and not (out / "fields.vti").exists()


@pytest.mark.parametrize("storage", ["fp32", "fp16s", "fp16c"])
def test_resume_continues_bit_identically(tmp_path, storage):
    """Stop at step 200 with a checkpoint, inside the averaging window (steps 100-400), resume to
    400: forces, fields and the drag breakdown (the per-slot forces summed over the window) equal
    a straight run to 400 bit for bit (same backend), with either population storage (the inlet
    cells' density state is checkpointed beside the populations)."""
    common = [
        BOX,
        f"resolution.storage={storage}",
        "resolution.cells_per_length=8",
        "resolution.min_gap_cells=0",
        "run.check_every=50",
        "run.checkpoint_every=100",
        "run.convergence.window_steps=1000",
        "run.average_from_step=100",
        "run.average_steps=300",
        "output.images=false",
        "--backend",
        "cpu",
    ]
    straight, split = tmp_path / "straight", tmp_path / "split"
    assert run([*common, "run.max_steps=400", "--out", str(straight)]) == 0
    assert run([*common, "run.max_steps=200", "--out", str(split)]) == 0
    assert (split / "checkpoint" / "state.npz").is_file()
    assert run([*common, "run.max_steps=400", "--out", str(split), "--resume"]) == 0
    assert (straight / "forces.csv").read_bytes() == (split / "forces.csv").read_bytes()
    assert (straight / "fields.vti").read_bytes() == (split / "fields.vti").read_bytes()
    summaries = [json.loads((out / "summary.json").read_text()) for out in (straight, split)]
    assert summaries[0]["cd_parts"] is not None and summaries[0]["averaged_steps"] == 300
    for key in ("cd_parts", "cd_cumulative"):
        assert summaries[0][key] == summaries[1][key]


@pytest.mark.parametrize(
    ("levels", "wall"),
    [
        ("refinement.levels=[]", "volumetric"),
        ("refinement.levels=[{margin_m: 0.4}]", "volumetric"),
        ("refinement.levels=[{margin_m: 0.4}]", "projected"),
    ],
)
def test_volumetric_resume_continues_bit_identically(tmp_path, levels, wall):
    """The same with the volumetric wall (the Ahmed body without stilts at 16 cells per length),
    on one grid and on two levels (the body's box at 16, the tunnel at 8), and with its projected
    form on two levels: its elements' forces summed over the window are checkpointed, and the
    projected wall's slopes, so the drag breakdown they give resumes bit for bit."""
    common = [
        str(ROOT / "cases" / "ahmed.yaml"),
        levels,
        f"body.bounce_back={wall}",
        "resolution.cells_per_length=16",
        "geometry.ahmed.stilts=false",
        "geometry.ahmed.ground_clearance_m=0.2",
        "run.check_every=50",
        "run.checkpoint_every=100",
        "run.convergence.window_steps=1000",
        "run.average_from_step=50",
        "run.average_steps=150",
        "output.images=false",
        "output.fields=false",
        "--backend",
        "cpu",
    ]
    straight, split = tmp_path / "straight", tmp_path / "split"
    assert run([*common, "run.max_steps=200", "--out", str(straight)]) == 0
    assert run([*common, "run.max_steps=100", "--out", str(split)]) == 0
    assert run([*common, "run.max_steps=200", "--out", str(split), "--resume"]) == 0
    assert (straight / "forces.csv").read_bytes() == (split / "forces.csv").read_bytes()
    summaries = [json.loads((out / "summary.json").read_text()) for out in (straight, split)]
    assert summaries[0]["cd_parts"]["forebody"]["pressure"] > 0
    for key in ("cd_parts", "cd_cumulative"):
        assert summaries[0][key] == summaries[1][key]


@pytest.mark.parametrize(
    ("override", "message"),
    [("flow.speed_m_s=30", "different case"), ("resolution.storage=fp16s", "storage=fp32")],
)
def test_resume_refuses_another_case(tmp_path, capsys, override, message):
    """A checkpoint resumed under another case is refused in one line, exit 2: another speed
    (the case hash), or another population storage (named, with what to do)."""
    common = [
        BOX,
        "resolution.cells_per_length=8",
        "resolution.min_gap_cells=0",
        "run.max_steps=100",
        "run.checkpoint_every=100",
        "output.images=false",
        "--backend",
        "cpu",
        "--out",
        str(tmp_path / "r"),
    ]
    assert run(common) == 0
    assert run([*common, override, "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err


def test_the_case_hash_leaves_the_storage_to_its_own_check():
    """Checkpoints written before resolution.storage and resolution.streaming existed still
    resume: the case hash leaves both keys out; the storage is checked on its own (the test
    above), and the streaming needs no check (a checkpoint holds the two-buffer layout in either
    mode, tests/test_streaming.py)."""
    from solver.checkpoint import case_hash
    from solver.config import load_case

    plain = load_case(BOX, [])
    assert case_hash(plain) == case_hash(load_case(BOX, ["resolution.storage=fp16s"]))
    assert case_hash(plain) == case_hash(load_case(BOX, ["resolution.streaming=aa"]))
    assert case_hash(plain) != case_hash(load_case(BOX, ["resolution.smagorinsky_cs=0.1"]))


def test_damaged_checkpoint_is_one_line(tmp_path, capsys):
    out = tmp_path / "r"
    args = [
        BOX,
        "resolution.cells_per_length=8",
        "resolution.min_gap_cells=0",
        "run.max_steps=100",
        "run.checkpoint_every=100",
        "output.images=false",
        "--backend",
        "cpu",
        "--out",
        str(out),
    ]
    assert run(args) == 0
    state = out / "checkpoint" / "state.npz"
    state.write_bytes(state.read_bytes()[: state.stat().st_size // 2])
    assert run([*args, "--resume"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "damaged" in err


def test_out_must_be_a_folder(tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    assert run([BOX, "--out", str(target)]) == 2
    assert "is a file" in capsys.readouterr().err


MESH = str(ROOT / "cases" / "mesh.yaml")
MESH_SMALL = [
    "resolution.cells_per_length=12",
    "resolution.min_gap_cells=0",
    "run.max_steps=60",
    "run.check_every=20",
    "output.images=false",
]


def test_mesh_case_runs_on_the_shipped_stl(tmp_path):
    out = tmp_path / "mesh"
    assert run([MESH, *MESH_SMALL, "--backend", "cpu", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    # The shipped Ahmed body: W x H plus the shadows of two stilts, from the mesh's shadow.
    assert summary["reference_area_m2"] == pytest.approx(
        0.389 * 0.288 + 2 * 0.03 * 0.0499, rel=0.02
    )
    assert np.isfinite(summary["cd"])


def test_user_mesh_errors_are_one_line(tmp_path, capsys):
    import meshio

    from shapes.solids import box

    assert (
        run([MESH, f"geometry.path={tmp_path / 'absent.stl'}", "--out", str(tmp_path / "a")]) == 2
    )
    assert "absent.stl" in capsys.readouterr().err
    cube = box([0.5, 0.3, 0.3], (0.0, 0.0, 0.2))
    open_mesh = tmp_path / "open.stl"
    meshio.write(open_mesh, meshio.Mesh(cube.vertices_m, [("triangle", cube.faces[2:])]))
    assert run([MESH, f"geometry.path={open_mesh}", "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "boundary edges" in err
    assert run([MESH, "geometry.source=none", "--out", str(tmp_path / "c")]) == 2
    assert "geometry.source" in capsys.readouterr().err
    # A body in millimetres read as metres: the unit is named before any resolution advice.
    millimetres = tmp_path / "mm.stl"
    meshio.write(millimetres, meshio.Mesh(cube.vertices_m * 1000, [("triangle", cube.faces)]))
    assert run([MESH, f"geometry.path={millimetres}", "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert (
        "500 x 300 x 300 m" in err
        and "set geometry.unit=mm" in err
        and "cells_per_length" not in err
    )
    assert not any((tmp_path / d).exists() for d in "abcd")


def test_surface_vtp_holds_cp_and_normals(tmp_path):
    from vtk.util.numpy_support import vtk_to_numpy

    out = tmp_path / "box"
    assert run([BOX, *SMALL, "--backend", "cpu", "--out", str(out)]) == 0
    surface = read_vtk_xml(out / "surface.vtp")
    points = vtk_to_numpy(surface.GetPoints().GetData())
    # The box in metres: x 0.6-1.0, y 0.4-0.6, z 0.03-0.18.
    assert points.min(axis=0) == pytest.approx([0.6, 0.4, 0.03]) and points.max(
        axis=0
    ) == pytest.approx([1.0, 0.6, 0.18])
    data = surface.GetPointData()
    cp = vtk_to_numpy(data.GetArray("Cp"))
    normals = vtk_to_numpy(data.GetArray("Normals"))
    assert cp.shape == (len(points),) and np.all(np.isfinite(cp))
    assert np.allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-5)
    # The wall shear lies in the surface and the air drags the box's top face downstream (+x);
    # y+ of the sample half a cell out is that of a turbulent wall at dx = 0.05 m, 20 m/s.
    shear = vtk_to_numpy(data.GetArray("wall_shear"))
    y_plus = vtk_to_numpy(data.GetArray("y_plus"))
    assert shear.shape == (len(points), 3) and np.all(np.isfinite(shear))
    assert np.max(np.abs(np.sum(shear * normals, axis=1))) < 1e-3 * np.max(np.abs(shear))
    top = np.isclose(points[:, 2], 0.18) & (points[:, 0] > 0.7) & (points[:, 0] < 0.9)
    assert np.all(shear[top, 0] > 0)
    assert 50 < np.median(y_plus[top]) < 5000
    summary = json.loads((out / "summary.json").read_text())
    assert all(
        isinstance(summary[k], float)
        for k in ("cd_pressure", "cd_friction", "cl_pressure", "cl_friction")
    )
    assert "cd_viscous" not in summary
    forces = (out / "forces.csv").read_text().splitlines()
    assert forces[0] == "step,fx_n,fy_n,fz_n,cd,cl,cd_pressure,cl_pressure,cd_friction,cl_friction"
    assert all(v != "" for v in forces[-1].split(","))


def test_car_case_takes_parameter_overrides(tmp_path):
    out = tmp_path / "car"
    args = [
        str(ROOT / "cases" / "car.yaml"),
        "resolution.cells_per_length=16",
        "resolution.min_gap_cells=0",
        "run.max_steps=40",
        "run.check_every=20",
        "geometry.car.backlight_angle_deg=40",
        "output.images=false",
        "--backend",
        "cpu",
        "--out",
        str(out),
    ]
    assert run(args) == 0
    config = (out / "config.yaml").read_text()
    assert "backlight_angle_deg: 40.0" in config
    assert (out / "surface.vtp").is_file()


def test_body_touching_the_rolling_road_is_refused(tmp_path, capsys):
    """At 10 cells along the car (dx 0.45 m) the 0.15 m gap under it holds no cell centre: the
    moving floor would slide along the body. One line naming the wall and the fix."""
    out = tmp_path / "c"
    args = [
        str(ROOT / "cases" / "car.yaml"),
        "resolution.cells_per_length=10",
        "--backend",
        "cpu",
        "--out",
        str(out),
    ]
    assert run(args) == 2
    err = capsys.readouterr().err.strip()
    assert (
        len(err.splitlines()) == 1
        and "touches the moving wall z_min" in err
        and "cells_per_length" in err
    )
    assert not (out / "summary.json").exists()
    args[2:2] = [
        "domain.boundaries.z_min=noslip",
        "resolution.min_gap_cells=0",
        "run.max_steps=20",
        "output.images=false",
    ]
    assert run(args) == 0  # a body may stand on a fixed floor


@pytest.mark.parametrize(
    "args, blocked",
    [
        (["body.radius_m=0.9"], "fills the whole tunnel"),  # a 1.8 m sphere in a 0.6 m section
        (["body.radius_m=0.4"], "of the tunnel section"),  # only the section's corners left open
    ],
)
def test_a_body_that_leaves_no_through_flow_is_refused(tmp_path, capsys, args, blocked):
    """A sphere too large for cases/sphere.yaml's 1.2 x 0.6 x 0.6 m tunnel: one line naming the
    size key and domain.size_m, exit 2, nothing written."""
    out = tmp_path / "s"
    assert (
        run([str(ROOT / "cases" / "sphere.yaml"), *args, "--backend", "cpu", "--out", str(out)])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert blocked in err and "body.radius_m" in err and "domain.size_m" in err
    assert not out.exists()


def test_car_parameter_out_of_bounds_is_one_line(tmp_path, capsys):
    args = [
        str(ROOT / "cases" / "car.yaml"),
        "geometry.car.windscreen_angle_deg=80",
        "--out",
        str(tmp_path / "c"),
    ]
    assert run(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "windscreen_angle_deg" in err


@pytest.mark.parametrize("case, steps", [("cylinder_2d1.yaml", 200), ("poiseuille.yaml", 200)])
def test_one_cell_thick_cases_write_their_fields(tmp_path, caplog, case, steps):
    """A 2D slab (one cell along z) writes fields.vti with a finite vorticity, and a cylinder
    through it has its whole side wall sampled: the end caps on the periodic faces are not
    surface, so nothing is reported missing."""
    from vtk.util.numpy_support import vtk_to_numpy

    caplog.set_level(logging.INFO)
    out = tmp_path / "slab"
    assert (
        run(
            [
                str(ROOT / "cases" / case),
                f"run.max_steps={steps}",
                "output.images=false",
                "--backend",
                "cpu",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    data = read_vtk_xml(out / "fields.vti").GetPointData()
    vorticity = vtk_to_numpy(data.GetArray("vorticity"))
    assert np.all(np.isfinite(vorticity)) and vorticity.max() > 0
    assert "surface lies more than" not in caplog.text


def test_a_grid_larger_than_memory_is_refused_before_allocating(tmp_path, capsys, monkeypatch):
    """With 1.5 GB free, windtunnel_box at 80 cells per length (12.9 M cells, about 4.9 GB at
    320 B per cell plus 0.8 GB fixed) is refused in one line naming the key; nothing written."""
    import solver.memory

    monkeypatch.setattr(solver.memory, "available_host_bytes", lambda: 1.5e9)
    out = tmp_path / "never"
    assert (
        run(
            [
                BOX,
                "resolution.cells_per_length=80",
                "run.max_steps=10",
                "--backend",
                "cpu",
                "--out",
                str(out),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "resolution.cells_per_length = 80" in err and "1.5 GB are free" in err
    assert "at most 44" in err  # 0.7 GB left for the grid: (0.7 / 4.11)^(1/3) of 80 cells
    assert not out.exists()
    # and a grid that fits is not refused
    assert run([BOX, *SMALL, "--backend", "cpu", "--out", str(tmp_path / "fits")]) == 0


def test_16_bit_storage_halves_the_populations_in_the_memory_estimate(monkeypatch):
    """resolution.storage=fp16s counts 76 B of populations per cell instead of 152: 10 M cells
    with 3.6 GB free fit on the CPU at 244 B per cell but not at 320, and with 1.2 GB of GPU
    memory at 97 B per cell on the device but not at 173."""
    import solver.memory
    from solver.errors import ConfigError

    monkeypatch.setattr(solver.memory, "available_host_bytes", lambda: 0.8e9 + 10e6 * 280)
    solver.memory.check_memory(10_000_000, 64, None, "fp16s")
    with pytest.raises(ConfigError, match="320 B per cell"):
        solver.memory.check_memory(10_000_000, 64, None, "fp32")
    monkeypatch.setattr(solver.memory, "available_host_bytes", lambda: 1e12)
    solver.memory.check_memory(10_000_000, 64, 1.2e9, "fp16s")
    with pytest.raises(ConfigError, match=r"GPU memory \(173 B per cell\)"):
        solver.memory.check_memory(10_000_000, 64, 1.2e9, "fp32")


@pytest.mark.parametrize("where", ["override", "file"])
def test_unknown_key_suggests_the_nearest(tmp_path, capsys, where):
    if where == "override":
        args = [BOX, "flow.reynold=20"]
    else:
        case = tmp_path / "typo.yaml"
        case.write_text(
            (ROOT / "cases" / "windtunnel_box.yaml")
            .read_text()
            .replace("resolution:", "resolutoin:")
        )
        args = [str(case)]
    assert run([*args, "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert (
        "did you mean 'flow.reynolds'?" if where == "override" else "did you mean 'resolution'?"
    ) in err
