"""Shared helpers for the tests: build cases from dicts, run them on the CPU backend."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# Under pytest-xdist (`make test`: one worker per core) each worker steps the CPU kernels on one
# OpenMP thread, so the workers do not contend for the cores (set before the library loads).
if "PYTEST_XDIST_WORKER" in os.environ:
    os.environ.setdefault("OMP_NUM_THREADS", "1")

PERIODIC = {f"{a}_{s}": "periodic" for a in "xyz" for s in ("min", "max")}


@pytest.fixture(scope="session")
def cpu():
    from solver.backends.cpu import CpuBackend

    return CpuBackend()


def make_case(**sections):
    """A validated CaseConfig from nested dicts, e.g. make_case(flow={...}, domain={...})."""
    from solver.config import merge_case

    return merge_case(sections, [])


def periodic_sphere_case(**run):
    """A sphere of radius 2 cells in a periodic 16 x 12 x 12 box, flow along x at u = 0.05: the
    run loop's test case (run: the run section's keys)."""
    return make_case(
        name="sphere",
        flow={"speed_m_s": 0.05, "nu_m2_s": 0.01, "initial": "inflow"},
        domain={"size_m": [16.0, 12.0, 12.0], "boundaries": PERIODIC},
        body={"shape": "sphere", "center_m": [8.0, 6.0, 6.0], "radius_m": 2.0},
        resolution={"cells_per_length": 4, "u_lattice": 0.05},
        run=run,
    )


def couette_case(size_m: tuple[float, float, float] = (0.25, 1.0, 0.0625), **sections):
    """Plane Couette flow at Re 10 between the y_min wall moving at U = 1 m/s and the resting
    y_max wall, 1 m apart, periodic in x and z, from rest; u_lattice 0.05 and 16 cells across
    unless sections (resolution, walls, refinement) say otherwise. The steady profile is
    u = U (1 - y)."""
    resolution = {"cells_per_length": 16, "u_lattice": 0.05, **sections.pop("resolution", {})}
    return make_case(
        name="couette",
        flow={"speed_m_s": 1.0, "reynolds": 10.0, "initial": "rest"},
        domain={
            "size_m": list(size_m),
            "boundaries": {
                "x_min": "periodic",
                "x_max": "periodic",
                "z_min": "periodic",
                "z_max": "periodic",
                "y_min": "moving",
                "y_max": "noslip",
            },
        },
        body={"reference_length_m": 1.0},
        resolution=resolution,
        **sections,
    )


FP16S_SCALE = 32768.0  # 16-bit storage holds the shifted population times 2^15 (lbm_lattice.cuh)


def fp16c_encode(values):
    """The 16-bit FP16C codes (uint16) of float values, from the format's definition in
    cuda/lbm_lattice.cuh: the value rounded to float32, then to 12 significant bits (nearest,
    ties to even) in the binades [2^-14, 2): code ((e + 13) << 11) + round(|v| 2^(12 - e)) with
    |v| = m 2^e, m in [1/2, 1); below 2^-14, round(|v| 2^25); codes from 0x7FFF up (magnitudes
    that round to 1.9995 or more, inf and NaN) become 0xFFFF; the sign in bit 15."""
    import numpy as np

    v = np.asarray(values, np.float32).astype(np.float64)
    a = np.where(np.isfinite(v), np.abs(v), 4.0)
    _, e = np.frexp(a)
    normal = ((e + 13).astype(np.int64) << 11) + np.rint(a * np.exp2(12.0 - e)).astype(np.int64)
    tiny = np.rint(a * 2.0**25).astype(np.int64)
    code = np.where(a >= 2.0**-14, normal, tiny)
    signed = code | np.where(np.signbit(v), 0x8000, 0)
    return np.where(code >= 0x7FFF, 0xFFFF, signed).astype(np.uint16)


def fp16c_decode(codes):
    """The values (float64) of FP16C codes: 0xFFFF is NaN."""
    import numpy as np

    h = np.asarray(codes, np.int64)
    c = h & 0x7FFF
    value = np.where(
        c >= 0x0800, (1.0 + (c & 0x7FF) / 2048.0) * np.exp2((c >> 11) - 15.0), c * 2.0**-25
    )
    value = np.where(h & 0x8000, -value, value)
    return np.where(h == 0xFFFF, np.nan, value)


def stored_populations(f_shifted, storage: str = "fp32"):
    """Shifted populations (float64) as a storage holds them: float32, float16 of 2^15 times
    (fp16s) or the FP16C codes."""
    import numpy as np

    if storage == "fp16s":
        return (f_shifted * FP16S_SCALE).astype(np.float16)
    if storage == "fp16c":
        return fp16c_encode(f_shifted)
    return f_shifted.astype(np.float32)


def decoded_populations(stored):
    """The shifted populations (float64) a storage's array holds."""
    import numpy as np

    if stored.dtype == np.float16:
        return stored.astype(np.float64) / FP16S_SCALE
    if stored.dtype == np.uint16:
        return fp16c_decode(stored)
    return stored.astype(np.float64)


def run_periodic_step(
    backend,
    f,
    tau: float,
    cs_smag: float = 0.0,
    collision: str = "bgk",
    g=(0.0, 0.0, 0.0),
    storage: str = "fp32",
):
    """One kernel step on a fully periodic box from unshifted populations f[19, z, y, x]
    (float64) stored as resolution.storage stores them; returns the unshifted result."""
    import numpy as np

    from solver import lattice
    from solver.kernel_params import pack_params, plain_box_values
    from solver.wall_fill import mark_bulk

    _, nz, ny, nx = f.shape
    n = nx * ny * nz
    stride = lattice.plane_stride(n)
    shift = lattice.W[:, None, None, None]
    src = stored_populations(np.zeros(19 * stride), storage)
    dst = np.zeros_like(src)
    src.reshape(19, stride)[:, :n] = stored_populations((f - shift).reshape(19, n), storage)
    flags = np.zeros((nz, ny, nx), np.uint8)
    mark_bulk(flags)
    values = plain_box_values(flags, tau, lattice.COLLISIONS[collision], cs_smag**2)
    values.update(has_force=int(any(g)), gx=g[0], gy=g[1], gz=g[2])
    params = pack_params(values, backend.address)
    backend.step(src, dst, params, np.zeros((3, 3)))
    return decoded_populations(dst.reshape(19, stride)[:, :n]).reshape(19, nz, ny, nx) + shift


CAR = str(ROOT / "cases" / "car.yaml")


def tiny_sweep(
    tmp_path: Path,
    name: str = "tiny",
    n: int = 2,
    cells: int = 12,
    steps: int = 300,
    extra_case: dict | None = None,
    **sections,
) -> Path:
    """A sweep of n cars on a tiny tunnel (mechanics, not physics): cells per car length,
    steps per sample. A fixed floor: at 12 cells the cars stand on it."""
    case = {
        "domain": {
            "size_m": [16.0, 6.0, 4.0],
            "sponge": {"length_m": 3.0},
            "boundaries": {"z_min": "noslip"},
        },
        "geometry": {"placement": {"nose_x_m": 4.0, "center_y_m": 3.0}},
        "resolution": {"cells_per_length": cells, "u_lattice": 0.05, "min_gap_cells": 0.0},
        "run": {
            "max_steps": steps,
            "check_every": 100,
            "average_steps": max(100, steps // 4),
            "sample_every": 50,
            "convergence": {"window_steps": max(100, steps // 4), "tolerance": 0.02},
        },
    }
    for key, value in (extra_case or {}).items():
        case.setdefault(key, {}).update(value)
    sweep = {
        "name": name,
        "family": "car",
        "base_case": CAR,
        "case": case,
        "sampler": {"method": "sobol", "n_samples": n, "seed": 1},
        "record": {
            "surface_points": 256,
            "sdf_shape": [16, 8, 6],
            "sdf_margin": 0.1,
            "field_stride": 2,
        },
        "executor": {"kind": "local", "workers": 1, "backend": "cpu"},
    }
    for key, value in sections.items():
        sweep.setdefault(key, {}).update(value)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(sweep))
    return path


def generate(args: list[str]) -> int:
    from generate_dataset import main

    return main([str(a) for a in args])


@pytest.fixture(scope="session")
def tiny_dataset(tmp_path_factory) -> Path:
    """Eight cars of the tiny tunnel (real LBM samples, a few seconds in all)."""
    tmp = tmp_path_factory.mktemp("tiny_dataset")
    out = tmp / "ds"
    assert generate([tiny_sweep(tmp, name="surrogate_data", n=8), "--out", out]) == 0
    return out


def train_yaml(tmp_path: Path, dataset: Path, model: str, **sections) -> Path:
    """A training config for the tiny dataset: few epochs, small networks."""
    config = {
        "name": model,
        "dataset": str(dataset),
        "model": model,
        "split": {"validation": 0.25, "test": 0.25, "seed": 0},
        "optim": {
            "epochs": 150,
            "learning_rate": 3e-3,
            "patience": 1000,
            "checkpoint_every": 50,
            "batch_size": 8,
        },
        "paramnet": {"members": 3, "hidden": [16, 16]},
        "geonet": {"width": 16, "points": 64},
    }
    for key, value in sections.items():
        config.setdefault(key, {}).update(value)
    path = tmp_path / f"train_{model}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def train(args: list) -> int:
    from train_surrogate import main

    return main([str(a) for a in args])


@pytest.fixture(scope="session")
def tiny_paramnet(tmp_path_factory, tiny_dataset) -> Path:
    """A ParamNet exported from the tiny dataset (its model folder)."""
    tmp = tmp_path_factory.mktemp("tiny_paramnet")
    assert (
        train(
            [train_yaml(tmp, tiny_dataset, "paramnet", optim={"epochs": 100}), "--out", tmp / "pn"]
        )
        == 0
    )
    return tmp / "pn" / "model"


def read_vtk_xml(path):
    """The data set in a VTK XML file (.vti image data or .vtp poly data), read by VTK itself."""
    import vtk

    reader = (
        vtk.vtkXMLImageDataReader() if str(path).endswith(".vti") else vtk.vtkXMLPolyDataReader()
    )
    reader.SetFileName(str(path))
    reader.Update()
    return reader.GetOutput()
