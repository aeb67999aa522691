"""The dataset sweep: design points, the sample file schema, resuming after kill -9, damaged
files, failures, config changes, the Dataset reader and a sweep through a local Ray."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import ROOT, generate, tiny_sweep


# ---- design of experiments -------------------------------------------------------------------
def test_sobol_points_are_a_sequence_within_bounds_and_lhs_is_stratified():
    from surrogate.sampling import design_points
    from surrogate.sweep_config import Range

    ranges = [Range("a", "m", 1.0, 2.0), Range("b", "deg", 5.0, 5.0), Range("c", "-", -1.0, 3.0)]
    p16 = design_points(ranges, "sobol", 16, seed=4)
    p32 = design_points(ranges, "sobol", 32, seed=4)
    np.testing.assert_array_equal(p16, p32[:16])  # a dataset grows by raising n_samples
    assert np.all(p32[:, 1] == 5.0)
    assert (
        p32[:, 0].min() >= 1.0
        and p32[:, 0].max() <= 2.0
        and p32[:, 2].min() >= -1.0
        and p32[:, 2].max() <= 3.0
    )
    assert not np.array_equal(p16, design_points(ranges, "sobol", 16, seed=5))
    lhs = design_points(ranges, "lhs", 10, seed=0)
    for axis, r in ((0, ranges[0]), (2, ranges[2])):  # one point in each tenth of every open range
        bins = np.floor((lhs[:, axis] - r.low) / (r.high - r.low) * 10).astype(int)
        assert sorted(bins) == list(range(10))


@pytest.mark.parametrize(
    "override, key",
    [
        ("family=boat", "family"),
        ("+parameters.wheel_count=[1,2]", "parameters.wheel_count"),
        ("+parameters.length_m=[3.0,4.5]", "parameters.length_m"),
        ("sampler.method=grid", "sampler.method"),
        ("sampler.n_samples=0", "sampler.n_samples"),
        ("record.sdf_shape=[4,4]", "record.sdf_shape"),
        ("executor.kind=slurm", "executor.kind"),
    ],
)
def test_bad_sweep_keys_are_one_line_exit_2(tmp_path, capsys, override, key):
    out = tmp_path / "ds"
    assert generate([tiny_sweep(tmp_path), override, "--out", out]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and key in err
    assert not (out / "samples").exists()


# ---- shape features ---------------------------------------------------------------------------
def test_signed_distance_and_surface_points_on_a_sphere():
    """Against |x - c| - R: the error is the tessellation's (icosphere level 4: 1.2e-3 R)."""
    from shapes.solids import icosphere
    from surrogate.shape_features import sample_surface, signed_distance_grid

    centre = np.array([0.5, -0.2, 0.3])
    mesh = icosphere(1.0, centre, 4)
    grid = signed_distance_grid(mesh, (21, 17, 13), margin=0.2)
    nz, ny, nx = grid.distance_m.shape
    axes = [grid.origin_m[a] + grid.spacing_m[a] * np.arange(n) for a, n in enumerate((nx, ny, nz))]
    z, y, x = np.meshgrid(axes[2], axes[1], axes[0], indexing="ij")
    exact = np.sqrt((x - centre[0]) ** 2 + (y - centre[1]) ** 2 + (z - centre[2]) ** 2) - 1.0
    assert (nx, ny, nz) == (21, 17, 13) and np.abs(grid.distance_m - exact).max() < 1.5e-3
    sample = sample_surface(mesh, 4000, seed=0)
    radius = np.linalg.norm(sample.points_m - centre, axis=1)
    assert radius.min() > 0.998 and radius.max() < 1.0 + 1e-9
    assert np.mean(np.sum(sample.normals * (sample.points_m - centre), axis=1)) > 0.998  # outward
    octant = (
        np.sum(sample.points_m - centre > 0, axis=1) == 3
    )  # area-weighted: an eighth in each octant
    assert abs(octant.mean() - 1 / 8) < 0.02


# ---- one sample's record ---------------------------------------------------------------------
def test_sweep_writes_the_documented_schema(tmp_path):
    from shapes.car import PARAMETERS
    from solver import __version__
    from surrogate.dataset import Dataset
    from surrogate.sample_record import STAGES

    out = tmp_path / "ds"
    assert generate([tiny_sweep(tmp_path, n=2, steps=1500), "--out", out]) == 0
    ds = Dataset(out)
    assert len(ds) == 2 and ds.family == "car"
    assert ds.parameter_names == [p.name for p in PARAMETERS]
    assert np.all(ds.parameters >= ds.low) and np.all(ds.parameters <= ds.high)
    s = ds.sample(0)
    assert s.solver_version == __version__ and s.parameter_units[0] == "m"
    # Cd is the mean of the recorded history over the reported window
    steps, averaged = int(s.scalars["steps"]), int(s.scalars["averaged_steps"])
    window = s.cd_history[steps - averaged :] if averaged else s.cd_history[-100:]
    assert len(s.cd_history) == steps and s.scalars["cd"] == pytest.approx(window.mean(), rel=1e-5)
    for key in (
        "cl",
        "frontal_area_m2",
        "reynolds",
        "mach",
        "cells_per_length",
        "dx_m",
        "converged",
    ):
        assert key in s.scalars
    assert s.scalars["reynolds"] == pytest.approx(30.0 * 4.5 / 1.5e-5)
    # surface points: unit normals; Cp near stagnation on the nose; NaN only where no fluid cell
    # lies within reach (at 12 cells per car the underbody gap is narrower than a cell)
    assert s.points_m.shape == (256, 3) and s.point_cp.shape == (256,)
    np.testing.assert_allclose(np.linalg.norm(s.point_normals, axis=1), 1.0, atol=1e-5)
    assert s.vertex_cp.shape == (len(s.vertices_m),)
    known = np.isfinite(s.point_cp)
    assert known.mean() > 0.7 and np.all(s.point_normals[~known, 2] < -0.5)  # the unknown face down
    n, cp = s.point_normals, s.point_cp
    front, rear, roof = (known & m for m in (n[:, 0] < -0.7, n[:, 0] > 0.7, n[:, 2] > 0.9))
    assert np.median(cp[roof]) < 0 and np.median(cp[rear]) < np.median(
        cp[front]
    )  # roof suction, base
    assert s.scalars["cd_pressure"] > 0
    # the SDF: negative inside the car (a point mid-body), positive at the grid's corners
    nz, ny, nx = s.sdf_m.shape
    assert (nx, ny, nz) == (16, 8, 6)
    lo, hi = s.vertices_m.min(0), s.vertices_m.max(0)
    middle = ((lo + hi) / 2 - s.sdf_origin_m) / s.sdf_spacing_m
    assert s.sdf_m[int(round(middle[2])), int(round(middle[1])), int(round(middle[0]))] < -0.1
    assert s.sdf_m[0, 0, 0] > 0 and s.sdf_m[-1, -1, -1] > 0
    # time-averaged fields on the strided grid, the body marked solid, the free stream at inflow
    assert (
        s.fields_time_averaged and s.velocity_m_s.shape[1:] == s.pressure_pa.shape == s.solid.shape
    )
    assert s.solid.any() and abs(float(s.velocity_m_s[0, :, :, 0].mean()) - 30.0) < 1.5
    assert set(s.timings_s) == set(STAGES)
    index = (out / "index.csv").read_text().splitlines()
    assert len(index) == 3 and all(",ok," in row for row in index[1:])
    assert json.loads((out / "sweep_summary.json").read_text())["ok"] == 2


# ---- nothing lost ----------------------------------------------------------------------------
def test_kill_9_then_rerun_finishes_without_recomputing(tmp_path):
    """Kill the sweep (driver and workers) with SIGKILL while it works; the same command
    finishes the rest; the finished files are not touched, nothing is duplicated."""
    sweep = tiny_sweep(tmp_path, name="killed", n=4, cells=16, steps=2500)
    out = tmp_path / "ds"
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "generate_dataset.py"), str(sweep), "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    first = out / "samples" / "sample_00000.h5"
    deadline = time.monotonic() + 120
    while not first.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_before = {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in (out / "samples").glob("sample_*.h5")
    }
    assert "sample_00000.h5" in done_before and len(done_before) < 4, "the kill came mid-sweep"
    assert generate([sweep, "--out", out]) == 0
    files = sorted(p.name for p in (out / "samples").iterdir())
    assert files == [f"sample_{i:05d}.h5" for i in range(4)]  # no temporary or duplicate left
    for name, stamp in done_before.items():
        p = out / "samples" / name
        assert (p.stat().st_ino, p.stat().st_mtime_ns) == stamp, f"{name} was recomputed"
    rows = (out / "index.csv").read_text().splitlines()[1:]
    assert [r.split(",")[:2] for r in rows] == [[str(i), "ok"] for i in range(4)]


def test_damaged_sample_is_detected_and_redone_alone(tmp_path, caplog):
    sweep = tiny_sweep(tmp_path, n=2)
    out = tmp_path / "ds"
    assert generate([sweep, "--out", out]) == 0
    damaged, kept = out / "samples" / "sample_00001.h5", out / "samples" / "sample_00000.h5"
    with open(damaged, "r+b") as fh:
        fh.truncate(damaged.stat().st_size // 2)
    stamp = kept.stat().st_mtime_ns
    assert generate([sweep, "--out", out]) == 0
    assert "sample_00001.h5 is damaged" in caplog.text
    assert kept.stat().st_mtime_ns == stamp
    from surrogate.sample_record import check_sample

    check_sample(damaged, json.loads((out / "dataset.json").read_text())["config_hash"])


def test_failed_samples_are_recorded_counted_and_kept(tmp_path):
    """BGK at tau 0.51 and Mach 0.29 without a subgrid model blows up: every sample fails with
    'diverged', the sweep ends normally, a rerun keeps the failures, --retry-failed redoes them."""
    sweep = tiny_sweep(
        tmp_path,
        n=2,
        steps=2000,
        extra_case={
            "resolution": {"smagorinsky_cs": 0.0, "u_lattice": 0.17},
            "flow": {"nu_m2_s": 0.25},
        },
    )
    out = tmp_path / "ds"
    assert generate([sweep, "--out", out]) == 0
    summary = json.loads((out / "sweep_summary.json").read_text())
    assert summary["failed"] == 2 and summary["failures_by_reason"] == {"diverged": 2}
    record = json.loads((out / "samples" / "sample_00000.failed.json").read_text())
    assert record["reason"] == "diverged" and "diverged by step" in record["message"]
    stamp = (out / "samples" / "sample_00000.failed.json").stat().st_mtime_ns
    assert generate([sweep, "--out", out]) == 0
    assert (out / "samples" / "sample_00000.failed.json").stat().st_mtime_ns == stamp
    assert generate([sweep, "--out", out, "--retry-failed"]) == 0
    assert (out / "samples" / "sample_00000.failed.json").stat().st_mtime_ns != stamp
    assert ",failed,diverged," in (out / "index.csv").read_text()


def test_another_config_in_the_same_folder_is_refused_unless_overwrite(tmp_path, capsys):
    sweep = tiny_sweep(tmp_path, n=1)
    out = tmp_path / "ds"
    assert generate([sweep, "--out", out]) == 0
    assert generate([sweep, "sampler.seed=9", "--out", out]) == 2
    err = capsys.readouterr().err
    assert "another sweep config" in err and "sampler" in err and "--overwrite" in err
    assert generate([sweep, "sampler.n_samples=2", "--out", out]) == 0  # a Sobol dataset may grow
    assert len(list((out / "samples").glob("*.h5"))) == 2
    assert generate([sweep, "sampler.seed=9", "--out", out, "--overwrite"]) == 0
    assert len(list((out / "samples").glob("*.h5"))) == 1


# ---- on many machines ------------------------------------------------------------------------
def test_four_samples_through_a_local_ray(tmp_path):
    pytest.importorskip(
        "ray", reason="Ray is the [dist] extra; make test installs it through [dev]"
    )
    sweep = tiny_sweep(tmp_path, name="ray", n=4, executor={"kind": "ray", "workers": 2})
    out = tmp_path / "ds"
    assert generate([sweep, "--out", out]) == 0
    from surrogate.dataset import Dataset

    ds = Dataset(out)
    assert sorted(ds.ids.tolist()) == [0, 1, 2, 3] and np.all(np.isfinite(ds.cd))
    summary = json.loads((out / "sweep_summary.json").read_text())
    assert summary["ok"] == 4 and summary["executor"].startswith("ray")


def test_dataset_json_reads_back_typed_and_a_damaged_one_is_one_line(tmp_path):
    from surrogate.dataset import DatasetError, DatasetMeta
    from surrogate.sample_record import SCHEMA_VERSION
    from surrogate.sweep_config import Range

    meta = DatasetMeta(
        schema_version=SCHEMA_VERSION,
        config_hash="abc123",
        family="car",
        parameters=[
            Range("backlight_angle_deg", "deg", 15.0, 45.0),
            Range("length_m", "m", 4.5, 4.5),
        ],
        solver_version="0.0",
        definition={"case": {"name": "car"}, "record": {}},
        created_utc="2026-12-03T20:00:00+00:00",
    )
    (tmp_path / "dataset.json").write_text(meta.to_json())
    assert DatasetMeta.read(tmp_path) == meta
    damaged = json.loads(meta.to_json())
    del damaged["family"]
    (tmp_path / "dataset.json").write_text(json.dumps(damaged))
    with pytest.raises(DatasetError, match="dataset.json' lacks or mistypes 'family'") as err:
        DatasetMeta.read(tmp_path)
    assert "\n" not in str(err.value)
    (tmp_path / "dataset.json").write_text(json.dumps({**damaged, "schema_version": -1}))
    with pytest.raises(DatasetError, match="has dataset schema -1"):
        DatasetMeta.read(tmp_path)
