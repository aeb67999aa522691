"""Shared helpers for the tests: build cases from dicts, run them on the CPU backend."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

PERIODIC = {f"{a}_{s}": "periodic" for a in "xyz" for s in ("min", "max")}


@pytest.fixture(scope="session")
def cpu():
    from solver.backends.cpu import CpuBackend

    return CpuBackend()


def make_case(**sections):
    """A validated CaseConfig from nested dicts, e.g. make_case(flow={...}, domain={...})."""
    from solver.config import merge_case

    return merge_case(sections, [])


CAR = str(ROOT / "cases" / "car.yaml")


def tiny_sweep(tmp_path: Path, name: str = "tiny", n: int = 2, cells: int = 12, steps: int = 300,
               extra_case: dict | None = None, **sections) -> Path:
    """A sweep of n cars on a tiny tunnel (mechanics, not physics): cells per car length,
    steps per sample. A fixed floor: at 12 cells the cars stand on it."""
    case = {"domain": {"size_m": [16.0, 6.0, 4.0], "sponge": {"length_m": 3.0}, "boundaries": {"z_min": "noslip"}},
            "geometry": {"placement": {"nose_x_m": 4.0, "center_y_m": 3.0}},
            "resolution": {"cells_per_length": cells, "u_lattice": 0.05},
            "run": {"max_steps": steps, "check_every": 100, "average_steps": max(100, steps // 4),
                    "sample_every": 50, "convergence": {"window_steps": max(100, steps // 4), "tolerance": 0.02}}}
    for key, value in (extra_case or {}).items():
        case.setdefault(key, {}).update(value)
    sweep = {"name": name, "family": "car", "base_case": CAR, "case": case,
             "sampler": {"method": "sobol", "n_samples": n, "seed": 1},
             "record": {"surface_points": 256, "sdf_shape": [16, 8, 6], "sdf_margin": 0.1, "field_stride": 2},
             "executor": {"kind": "local", "workers": 1, "backend": "cpu"}}
    for key, value in sections.items():
        sweep.setdefault(key, {}).update(value)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(sweep))
    return path


def generate(args: list[str]) -> int:
    from generate_dataset import main

    return main([str(a) for a in args])


def read_vtk_xml(path):
    """The data set in a VTK XML file (.vti image data or .vtp poly data), read by VTK itself."""
    import vtk

    reader = vtk.vtkXMLImageDataReader() if str(path).endswith(".vti") else vtk.vtkXMLPolyDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    return reader.GetOutput()
