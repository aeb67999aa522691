"""Laminar pipe flow through a mesh wall (cases/pipe_laminar.yaml): the interpolated bounce-back
on a tube staircased at every angle round the circumference against Hagen-Poiseuille, and the
pipe's statistics in summary.json (solver/pipe.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import ROOT

import run_case
from shapes.case_geometry import CASE_SCHEMA, case_mesh
from shapes.errors import MeshError
from shapes.geometry_config import GeometryConfig, PipeConfig, build_geometry
from shapes.mesh import check_mesh
from shapes.solids import tube_along
from solver.backends.cpu import CpuBackend
from solver.config import load_case
from solver.pipe import mckeon_friction_factor, pipe_statistics
from solver.run import Runner
from solver.simulation import Simulation

PIPE = ROOT / "cases" / "pipe_laminar.yaml"


def test_tube_is_closed_outward_and_holds_the_annulus():
    """The tube along each axis passes the mesh checks, and its volume is the polygonal
    annulus's times its length."""
    n = 64
    polygon = 0.5 * n * np.sin(2 * np.pi / n)  # area of the unit circle's inscribed n-gon
    for axis in range(3):
        tube = tube_along(axis, (0.1, 0.2, 0.3), 0.5, 1.0, -1.0, 3.0, n=n, stations=3)
        check_mesh(tube, "tube")
        assert tube.volume_m3() == pytest.approx(polygon * (1.0 - 0.25) * 4.0, rel=1e-12)


def test_bad_pipe_is_one_line():
    """A pipe whose wall has no thickness is refused with one line naming the section."""
    with pytest.raises(
        MeshError,
        match=r"^geometry.pipe: a tube needs 0 < inner radius \(0.5\) < outer radius \(0.5\)",
    ):
        build_geometry(GeometryConfig(source="pipe", pipe=PipeConfig(wall_m=0.0)))


def test_hagen_poiseuille_through_the_mesh_wall():
    """16 cells per diameter (R = 8 cells), Re_D 10, 4,000 steps (about 5 viscous times R^2 / nu):
    the axial velocity at every fluid cell within 2% of u_max of u(r) = g (R^2 - r^2) / (4 nu),
    the flow rate through the bore within 2% of pi g R^4 / (8 nu), no cross flow; the Darcy
    friction factor of solver/pipe.py within 2% of Hagen-Poiseuille's 64 / Re_D."""
    case = load_case(PIPE, schema=CASE_SCHEMA)
    sim = Simulation(case, CpuBackend(), case_mesh(case))
    result = Runner(sim).run()
    u = sim.units
    fluid = sim.fluid_mask
    velocity_m_s = result.best_fields.velocity * u.velocity_scale
    g = case.flow.body_accel_m_s2[0]
    nu = case.flow.nu_m2_s
    radius = case.geometry.pipe.radius_m
    nx = fluid.shape[2]
    y = sim.grid.centers(1)[None, :, None]
    z = sim.grid.centers(2)[:, None, None]
    r2 = (y - case.geometry.pipe.center_y_m) ** 2 + (z - case.geometry.pipe.center_z_m) ** 2
    exact = g * (radius**2 - r2) / (4 * nu)
    u_max = g * radius**2 / (4 * nu)
    error = np.abs(velocity_m_s[0] - exact)[fluid] / u_max
    dx = u.dx_m
    flow_rate = velocity_m_s[0][fluid].sum() * dx**3 / (nx * dx)
    exact_rate = np.pi * g * radius**4 / (8 * nu)
    cross = np.abs(velocity_m_s[1:])[:, fluid].max() / u_max
    print(
        f"measured: max |u - u_HP| / u_max {error.max():.4f}, flow rate / HP "
        f"{flow_rate / exact_rate:.4f}, "
        f"cross flow / u_max {cross:.1e}"
    )
    assert error.max() < 0.02
    assert flow_rate == pytest.approx(exact_rate, rel=0.02)
    assert cross < 1e-3
    stats = pipe_statistics(sim, result.best_fields, radius / dx)
    print(
        f"measured: Darcy f Re_D / 64 = {stats.friction_factor * stats.re_d / 64:.4f} at Re_D "
        f"{stats.re_d:.2f}"
    )
    assert stats.friction_factor * stats.re_d == pytest.approx(64.0, rel=0.02)
    assert stats.re_d == pytest.approx(10.0, rel=0.02)


def test_mckeon_correlation():
    """McKeon et al. (2005) where Re_D sqrt(f) is known: at Re_tau = 1000, Re_D sqrt(f) =
    2 Re_tau sqrt(8) whatever U_b, so U_b / u_tau = sqrt(8) (1.930 log10(2000 sqrt(8)) - 0.537)
    = 18.97 and f = 8 / 18.97^2 = 0.0222; every solution satisfies the correlation; none below
    its range."""
    u_plus = 8**0.5 * (1.930 * np.log10(2000 * 8**0.5) - 0.537)
    assert u_plus == pytest.approx(18.97, abs=0.01)
    assert mckeon_friction_factor(2000 * u_plus) == pytest.approx(8 / u_plus**2, rel=1e-9)
    for re in (3.1e4, 1e6, 3.5e7):
        f = mckeon_friction_factor(re)
        assert f**-0.5 == pytest.approx(1.930 * np.log10(re * f**0.5) - 0.537, rel=1e-12)
    assert np.isnan(mckeon_friction_factor(100.0))


def test_pipe_summary_gives_friction_factor_and_reynolds_numbers(tmp_path):
    """run_case.py on the laminar pipe writes the Darcy friction factor, Re_D and Re_tau to
    summary.json (a short run: only that they are there and consistent)."""
    out = tmp_path / "pipe"
    assert (
        run_case.main(
            [
                str(PIPE),
                "run.max_steps=200",
                "run.check_every=100",
                "output.fields=false",
                "output.images=false",
                "--backend",
                "cpu",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["friction_factor"] == pytest.approx(8 / summary["u_bulk_plus"] ** 2, rel=1e-12)
    assert summary["re_tau"] == pytest.approx(np.sqrt(3.2e-4 * 0.5 / 2) * 0.5 / 1.0e-3, rel=1e-6)
    assert summary["re_d"] > 0
    assert summary["friction_factor_mckeon"] is None  # laminar: below the correlation's range
