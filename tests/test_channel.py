"""The turbulent channel case (cases/channel.yaml, flow.reynolds_tau): its set-up, its figures in
summary.json and the keys it refuses. The physics (Cf against Lee & Moser 2015) takes tens of
thousands of steps: benchmarks, docs/validation.md."""

from __future__ import annotations

import json
import math

import pytest
from conftest import ROOT

import run_case
from solver.backends import select_backend
from solver.config import body_acceleration_m_s2, load_case
from solver.simulation import Simulation

CHANNEL = str(ROOT / "cases" / "channel.yaml")
TINY = [
    "resolution.cells_per_length=4",
    "run.max_steps=200",
    "run.check_every=50",
    "run.convergence.window_steps=50",
    "run.average_from_step=100",
    "run.average_steps=100",
    "run.sample_every=50",
    "output.images=false",
    "output.fields=false",
]


def test_reynolds_tau_drives_the_channel_with_its_pressure_gradient():
    """u_tau = Re_tau nu / h = 1 m/s for channel.yaml (h = 1 m), so g = u_tau^2 / h = 1 m/s^2,
    and in lattice units g h = u_tau^2."""
    case = load_case(CHANNEL)
    assert body_acceleration_m_s2(case) == pytest.approx([1.0, 0.0, 0.0])
    sim = Simulation(case, select_backend("cpu"))
    h_cells = 0.5 * sim.fluid_mask.any(axis=(0, 2)).sum()
    u_tau_lattice = 1.0 * sim.units.dt_s / sim.units.dx_m
    assert h_cells == 16
    assert sim.body_accel_lattice[0] * h_cells == pytest.approx(u_tau_lattice**2, rel=1e-6)


def test_channel_summary_has_cf_and_reynolds_numbers(tmp_path):
    """A few hundred steps on a coarse grid (mechanics, not physics), averaged over a fixed
    window (steps 100-200; a turbulent flow's convergence test passes or not by the processor's
    rounding): summary.json's cf, re_tau and re_bulk agree with each other and with the case
    (cf = 2 / U_b+^2, Re_b = 2 Re_tau U_b+)."""
    out = tmp_path / "channel"
    assert run_case.main([CHANNEL, *TINY, "--backend", "cpu", "--out", str(out)]) == 0
    s = json.loads((out / "summary.json").read_text())
    assert s["re_tau"] == pytest.approx(1000.0)
    assert s["cf"] == pytest.approx(2.0 / s["u_bulk_plus"] ** 2)
    assert s["re_bulk"] == pytest.approx(2.0 * 1000.0 * s["u_bulk_plus"])
    assert s["cf_dean"] == pytest.approx(0.073 * s["re_bulk"] ** -0.25)
    assert s["wall_model"] == "loglaw" and s["steps"] == 200 and s["averaged_steps"] == 100
    assert math.isfinite(s["cf"]) and s["cd"] is None


@pytest.mark.parametrize(
    "args, key",
    [
        (["domain.boundaries.y_min=freeslip"], "flow.reynolds_tau"),
        (["flow.body_accel_m_s2=[1.0,0.0,0.0]"], "flow.reynolds_tau"),
        (["flow.reynolds_tau=-5"], "flow.reynolds_tau"),
        (["walls.model=wallfunction"], "walls.model"),
        (["walls.sample_cells=0"], "walls.sample_cells"),
    ],
)
def test_bad_channel_keys_are_one_line_exit_2(tmp_path, capsys, args, key):
    out = tmp_path / "never"
    assert run_case.main([CHANNEL, *args, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and key in err
    assert not out.exists()
