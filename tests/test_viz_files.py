"""ParaView files read back with VTK's own readers equal what the solver held in memory."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ROOT, read_vtk_xml

from solver.config import load_case
from solver.results import field_origin, physical_fields, vorticity_magnitude
from solver.run import Runner
from solver.simulation import Simulation
from viz.vti import write_vti


@pytest.fixture(scope="module")
def averaged_run(cpu):
    case = load_case(
        ROOT / "cases" / "windtunnel_box.yaml",
        [
            "resolution.cells_per_length=8",
            "resolution.min_gap_cells=0",
            "run.max_steps=400",
            "run.check_every=50",
            "run.average_from_step=200",
            "run.average_steps=200",
            "run.sample_every=25",
        ],
    )
    sim = Simulation(case, cpu)
    return sim, Runner(sim).run()


@pytest.mark.parametrize("stride", [1, 2])
def test_fields_vti_round_trip(tmp_path, averaged_run, stride):
    sim, result = averaged_run
    assert result.fields_averaged
    arrays = physical_fields(sim, result.fields, result.mean_fields, stride)
    assert {
        "velocity",
        "velocity_mean",
        "pressure_mean",
        "Cp",
        "Cp_mean",
        "vorticity_mean",
        "solid",
    } <= set(arrays)
    path = write_vti(tmp_path / "fields.vti", sim.grid.dx_m * stride, field_origin(sim), arrays)
    image = read_vtk_xml(path)
    nz, ny, nx = arrays["pressure"].shape
    assert image.GetDimensions() == (nx, ny, nz)
    assert image.GetSpacing() == pytest.approx((sim.grid.dx_m * stride,) * 3)
    assert image.GetOrigin() == pytest.approx(field_origin(sim))
    from vtk.util.numpy_support import vtk_to_numpy

    data = image.GetPointData()
    for name, expected in arrays.items():
        got = vtk_to_numpy(data.GetArray(name))
        if expected.ndim == 4:
            got = np.moveaxis(got.reshape(nz, ny, nx, 3), -1, 0)
        else:
            got = got.reshape(nz, ny, nx)
        assert np.array_equal(got, expected), name
    # The solver's own state, in m/s, at a cell in the free stream.
    inner = sim.grid.interior()
    held = result.fields.velocity[(slice(None), *inner)] * sim.units.velocity_scale
    assert np.allclose(arrays["velocity"][:, 3, 4, 2], held[:, 3 * stride, 4 * stride, 2 * stride])


def test_vorticity_of_a_solid_body_rotation():
    """u = omega x r about z: |curl u| = 2 omega everywhere."""
    n, dx, omega = 12, 0.1, 3.0
    c = (np.arange(n) - n / 2) * dx
    z, y, x = np.meshgrid(c, c, c, indexing="ij")
    velocity = np.stack([-omega * y, omega * x, np.zeros_like(x)])
    assert np.allclose(vorticity_magnitude(velocity, dx), 2 * omega)
