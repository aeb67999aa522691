"""Physical to lattice units, and the stability refusals."""

from __future__ import annotations

import pytest
from conftest import make_case

from solver.errors import UnstableSettingsError
from solver.units import derive_units


def _case(**resolution):
    return make_case(
        name="u",
        flow={"speed_m_s": 20.0, "nu_m2_s": 1.5e-5},
        body={"reference_length_m": 0.4},
        resolution=resolution,
    )


def test_lattice_units_of_a_case():
    """L = 0.4 m on 20 cells, U = 20 m/s at u = 0.1: dx = 0.02 m, dt = 1e-4 s,
    nu_lattice = nu dt / dx^2, tau = 3 nu_lattice + 1/2, Re = U L / nu, Mach = u sqrt(3)."""
    u = derive_units(_case(cells_per_length=20, u_lattice=0.1, smagorinsky_cs=0.15), 0.4)
    assert u.dx_m == pytest.approx(0.02)
    assert u.dt_s == pytest.approx(1e-4)
    assert u.nu_lattice == pytest.approx(1.5e-5 * 1e-4 / 0.02**2)
    assert u.tau == pytest.approx(3 * u.nu_lattice + 0.5)
    assert u.reynolds == pytest.approx(20 * 0.4 / 1.5e-5)
    assert u.mach == pytest.approx(0.1 * 3**0.5)
    assert u.velocity_scale == pytest.approx(200.0)
    assert u.force_scale_n == pytest.approx(1.225 * 0.02**4 / 1e-8)


def test_automatic_lattice_speed_keeps_tau_at_most_one():
    """Re 20 on 40 cells: u = 0.5 Re / (3 N) = 0.0833 gives tau = 1; Re 1e3 caps u at 0.1."""
    low = make_case(
        name="a",
        flow={"reynolds": 20.0},
        body={"reference_length_m": 1.0},
        resolution={"cells_per_length": 40},
    )
    u = derive_units(low, 1.0)
    assert u.u_lattice == pytest.approx(20 / 240) and u.tau == pytest.approx(1.0)
    high = make_case(
        name="b",
        flow={"reynolds": 1e3},
        body={"reference_length_m": 1.0},
        resolution={"cells_per_length": 40},
    )
    assert derive_units(high, 1.0).u_lattice == pytest.approx(0.1)


def test_refusals_name_the_knob():
    with pytest.raises(UnstableSettingsError, match="resolution.u_lattice"):
        derive_units(_case(cells_per_length=20, u_lattice=0.2, smagorinsky_cs=0.15), 0.4)
    with pytest.raises(UnstableSettingsError, match="resolution.smagorinsky_cs"):
        derive_units(_case(cells_per_length=20, u_lattice=0.1), 0.4)
