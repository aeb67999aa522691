"""Analytic bodies: cell marking and frontal areas."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import make_case

from solver.errors import ConfigError
from solver.geometry import Primitive
from solver.simulation import Simulation

LO, HI = np.zeros(3), np.ones(3)


def _primitive(**body) -> Primitive:
    return Primitive.from_config(make_case(name="g", flow={"reynolds": 10.0}, body=body).body)


def test_sphere_cells_fill_its_volume():
    """A sphere of radius 16 cells: the cells whose centres lie inside hold 4/3 pi r^3 within 1%."""
    sphere = _primitive(shape="sphere", center_m=[0.0, 0.0, 0.0], radius_m=16.0)
    c = np.arange(-20, 20) + 0.5
    inside = sphere.inside(c[None, None, :], c[None, :, None], c[:, None, None])
    assert inside.sum() == pytest.approx(4 / 3 * math.pi * 16**3, rel=0.01)


@pytest.mark.parametrize(
    "body, area",
    [
        ({"shape": "sphere", "center_m": [0.5, 0.5, 0.5], "radius_m": 0.1}, math.pi * 0.01),
        ({"shape": "sphere", "center_m": [0.5, 0.5, 0.0], "radius_m": 0.1}, math.pi * 0.01 / 2),
        (
            {"shape": "cylinder", "center_m": [0.5, 0.5, 0.5], "radius_m": 0.1, "axis": "z"},
            0.2 * 1.0,
        ),
        (
            {"shape": "cylinder", "center_m": [0.5, 0.05, 0.5], "radius_m": 0.1, "axis": "z"},
            0.15 * 1.0,
        ),
        (
            {"shape": "cylinder", "center_m": [0.5, 0.5, 0.5], "radius_m": 0.1, "axis": "x"},
            math.pi * 0.01,
        ),
        ({"shape": "box", "center_m": [0.5, 0.5, 0.1], "size_m": [0.4, 0.2, 0.3]}, 0.2 * 0.25),
    ],
)
def test_frontal_area_clipped_to_the_domain(body, area):
    assert _primitive(**body).frontal_area(LO, HI) == pytest.approx(area, rel=1e-5)


def test_a_body_smaller_than_a_cell_is_refused(cpu):
    case = make_case(
        name="tiny",
        flow={"reynolds": 10.0},
        domain={"size_m": [1.0, 1.0, 1.0]},
        body={
            "shape": "sphere",
            "center_m": [0.5, 0.5, 0.5],
            "radius_m": 0.004,
            "reference_length_m": 0.5,
        },
        resolution={"cells_per_length": 8},
    )
    with pytest.raises(ConfigError, match="cells_per_length"):
        Simulation(case, cpu)


@pytest.mark.parametrize(
    "override, key",
    [
        ({"domain": {"size_m": [float("inf"), 1.0, 1.0]}}, "domain.size_m"),
        ({"body": {"shape": "sphere", "radius_m": float("nan")}}, "body.radius_m"),
        ({"flow": {"reynolds": 10.0, "initial": "taylor_green"}}, "flow.initial"),
    ],
)
def test_config_rejects_non_finite_and_inconsistent_values(override, key):
    sections = {"name": "bad", "flow": {"reynolds": 10.0}, **override}
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        make_case(**sections)


@pytest.mark.parametrize(
    "body",
    [
        {"shape": "sphere", "center_m": [0.5, 0.5, 0.5], "radius_m": 0.23},
        {"shape": "cylinder", "center_m": [0.5, 0.5, 0.5], "radius_m": 0.23, "axis": "y"},
        {"shape": "box", "center_m": [0.5, 0.5, 0.5], "size_m": [0.3, 0.4, 0.5]},
    ],
)
def test_wall_fraction_lands_on_the_surface(body):
    """Segments from outside to inside: start + q link lies on the surface."""
    primitive = _primitive(**body)
    rng = np.random.default_rng(1)
    start = rng.uniform(0, 1, (4000, 3))
    link = rng.normal(size=(4000, 3)) * 0.05
    outside = ~primitive.inside(*start.T) & primitive.inside(*(start + link).T)
    q = primitive.wall_fraction(start[outside], link[outside])
    hit = start[outside] + q[:, None] * link[outside]
    assert outside.sum() > 50 and np.all((q > 0) & (q <= 1))
    inside_before = primitive.inside(*(hit - 1e-9 * link[outside]).T)
    inside_after = primitive.inside(*(hit + 1e-9 * link[outside]).T)
    assert not inside_before.any() and inside_after.all()
