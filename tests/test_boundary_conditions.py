"""Boundary conditions as objects (solver/boundary_conditions.py): the case keys parse into one
object per face and one for the body, each with its parameters."""

from __future__ import annotations

import numpy as np
from conftest import ROOT, make_case

from shapes.case_geometry import CASE_SCHEMA
from solver.boundary_conditions import (
    BodyWall,
    FreeSlip,
    Inlet,
    MovingWall,
    NoSlip,
    Outflow,
    Periodic,
    boundary_conditions,
)
from solver.config import load_case


def test_the_default_tunnel_parses_into_its_faces_objects():
    """The default faces with LES on: an inlet at the free stream's speed, an outflow behind the
    sponge, free-slip sides and lid, and the rolling road moving with the air under the law of
    the wall; the body's wall the same model, interpolated bounce-back."""
    case = make_case(
        flow={"speed_m_s": 30.0, "nu_m2_s": 1.5e-5},
        domain={"size_m": [4.0, 2.0, 1.0], "sponge": {"length_m": 0.5, "tau_outlet": 0.8}},
        body={"shape": "box", "center_m": [1.0, 1.0, 0.3], "size_m": [0.4, 0.2, 0.2]},
        resolution={"smagorinsky_cs": 0.16, "u_lattice": 0.1},
    )
    bc = boundary_conditions(case)
    assert bc.faces == {
        "x_min": Inlet(30.0, "uniform"),
        "x_max": Outflow(0.5, 0.8),
        "y_min": FreeSlip(),
        "y_max": FreeSlip(),
        "z_min": MovingWall((30.0, 0.0, 0.0), "loglaw"),
        "z_max": FreeSlip(),
    }
    assert bc.body == BodyWall("interpolated", "loglaw", "faces", 4)
    assert bc.wall_velocity_m_s() == (30.0, 0.0, 0.0)
    assert bc.periodic_axes().tolist() == [False, False, False]


def test_a_periodic_channel_has_resting_walls_and_no_moving_one():
    """cases/channel.yaml: periodic along x and z between no-slip walls (the wall model on); no
    wall moves, so the kernels' wall velocity is zero."""
    bc = boundary_conditions(load_case(ROOT / "cases" / "channel.yaml", schema=CASE_SCHEMA))
    assert isinstance(bc.face("x", "min"), Periodic) and isinstance(bc.face("z", "max"), Periodic)
    assert bc.face("y", "min") == bc.face("y", "max") == NoSlip("loglaw")
    assert np.array_equal(bc.periodic_axes(), [True, False, True])
    assert bc.wall_velocity_m_s() == (0.0, 0.0, 0.0)
