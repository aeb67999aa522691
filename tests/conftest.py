"""Shared helpers for the tests: build cases from dicts, run them on the CPU backend."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

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


def read_vtk_xml(path):
    """The data set in a VTK XML file (.vti image data or .vtp poly data), read by VTK itself."""
    import vtk

    reader = vtk.vtkXMLImageDataReader() if str(path).endswith(".vti") else vtk.vtkXMLPolyDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    return reader.GetOutput()
