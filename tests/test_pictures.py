"""What the pictures and printed figures say: robust speed colours, round and distinct tick
labels, coefficients to the digits they mean, and a red note on the pictures of a run that did
not converge. Synthetic folders: no LBM run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from viz.numbers import coefficient, nice_ticks, ruler_ticks, tick_decimals
from viz.pictures import cd_history, convergence_note, draw_all, speed_limits, velocity_slice
from viz.vti import write_vti

SUMMARY = {
    "case": "box",
    "cd": 1.1872045323242415,
    "converged": False,
    "steps": 300,
    "averaged_steps": 0,
}


def _flow(nz: int = 8, outlier: bool = True) -> dict[str, np.ndarray]:
    """fields.vti arrays of a 30 m/s stream with a little noise, a solid block at rest, and
    one cell at 137 m/s in the plane y that velocity_slice shows (y index 4 of 8)."""
    rng = np.random.default_rng(0)
    shape = (nz, 8, 16)
    velocity = np.zeros((3, *shape), np.float32)
    velocity[0] = 30.0 + rng.normal(0.0, 0.5, shape)
    solid = np.zeros(shape, np.uint8)
    solid[:, 3:5, 4:7] = 1
    velocity[:, solid == 1] = 0.0
    if outlier:
        velocity[0, nz // 2, 4, 12] = 137.0
    return {"velocity": velocity, "solid": solid}


def _red_pixels(path, rows: int = 70) -> int:
    """Pixels of the note's colour in the top rows of a picture (where the titles are)."""
    import matplotlib.pyplot as plt

    rgb = plt.imread(path)[:rows, :, :3]
    return int(np.sum((rgb[..., 0] > 0.55) & (rgb[..., 1] < 0.35) & (rgb[..., 2] < 0.35)))


def test_speed_limits_ignore_one_outlier_cell_and_the_body():
    arrays = _flow()
    speed = np.linalg.norm(arrays["velocity"], axis=0)
    lo, hi = speed_limits(speed, arrays["solid"])
    assert 28.0 < lo < hi < 32.0  # not 0 (the body) nor 137 (one cell)
    assert speed_limits(speed, None)[0] == 0.0  # without a solid array the body counts


def test_the_velocity_slice_is_drawn_with_robust_limits(tmp_path):
    write_vti(tmp_path / "fields.vti", 0.1, (0.0, 0.0, 0.0), _flow())
    out = velocity_slice(tmp_path / "fields.vti", None, "box", tmp_path / "slice.png")
    import matplotlib.pyplot as plt

    rgb = plt.imread(out)[:, :1000, :3]  # left of the colour bar
    coloured = rgb.std(axis=-1) > 0.08
    dark = coloured & (rgb[..., 1] < 0.35)  # viridis's lower third, where 30 of 0-137 m/s falls
    assert dark.sum() < 0.75 * coloured.sum(), (
        "the stream is drawn dark: the outlier set the colours"
    )


def test_colour_bar_ticks_are_round():
    assert np.allclose(
        nice_ticks(-1.5, 1.0), [-1.5, -1.0, -0.5, 0.0, 0.5, 1.0]
    )  # not -0.875, 0.375
    ticks = nice_ticks(0.0123, 1.137)
    assert np.allclose(ticks, [0.2, 0.4, 0.6, 0.8, 1.0])
    ticks = nice_ticks(28.3, 31.7)
    steps = np.diff(ticks)
    assert 3 <= len(ticks) <= 8 and np.allclose(steps, steps[0]) and steps[0] in (0.5, 1.0)


def _labels(ticks: np.ndarray) -> list[str]:
    return [f"{t:.{tick_decimals(ticks)}f}" for t in ticks]


def test_axis_labels_on_a_narrow_range_read_differently():
    assert _labels(ruler_ticks(0.25, 0.35, min_step=0.015)) == [
        "0.26",
        "0.28",
        "0.30",
        "0.32",
        "0.34",
    ]
    assert _labels(ruler_ticks(5.21, 5.33, min_step=0.03)) == ["5.25", "5.30"]  # not "5.2", "5.3"


def test_an_axis_without_room_for_two_labels_gets_none():
    assert ruler_ticks(0.23, 0.37, min_step=0.2) is None
    assert ruler_ticks(0.5, 0.5, min_step=0.01) is None
    assert len(ruler_ticks(0.0, 22.0, min_step=0.01)) <= 6


@pytest.mark.parametrize(
    "value, text",
    [
        (1.1872045323242415, "1.187"),
        (0.3, "0.3000"),
        (0.0234567, "0.0235"),
        (12.3456, "12.35"),
        (-0.87654, "-0.8765"),
        (-1e-8, "0.0000"),
        (None, "-"),
        (float("nan"), "-"),
    ],
)
def test_coefficients_print_four_significant_digits(value, text):
    assert coefficient(value) == text


def test_the_note_names_a_run_that_did_not_converge():
    assert "NOT CONVERGED" in convergence_note(SUMMARY) and "300 steps" in convergence_note(SUMMARY)
    assert convergence_note({**SUMMARY, "converged": True}) == ""
    assert convergence_note({**SUMMARY, "cd": None}) == ""  # no body: nothing to converge


def test_the_final_log_line_says_whether_cd_converged():
    import run_case

    assert run_case._convergence({"converged": False, "cd": 1.2}).startswith("NOT CONVERGED")
    assert (
        run_case._convergence({"converged": True, "converged_step": 800, "cd": 1.2})
        == "converged at step 800"
    )
    assert run_case._convergence({"converged": False, "cd": None}) == (
        "NOT CONVERGED: the bulk velocity still changing at the step limit"
    )


def _forces_csv(path, steps: int = 300) -> None:
    cd = 1.2 + 0.1 * np.sin(np.arange(steps) / 10.0)
    rows = "".join(f"{i + 1},0,0,0,{c:.6f},0.1,,,,\n" for i, c in enumerate(cd))
    path.write_text(
        "step,fx_n,fy_n,fz_n,cd,cl,cd_pressure,cl_pressure,cd_friction,cl_friction\n" + rows
    )


@pytest.mark.parametrize("converged", [False, True])
def test_the_pictures_of_a_run_that_did_not_converge_say_so_in_red(tmp_path, converged):
    _forces_csv(tmp_path / "forces.csv")
    summary = {**SUMMARY, "converged": converged}
    history = cd_history(tmp_path / "forces.csv", summary, tmp_path / "cd_history.png")
    write_vti(tmp_path / "fields.vti", 0.1, (0.0, 0.0, 0.0), _flow())
    slice_png = velocity_slice(
        tmp_path / "fields.vti", None, "box", tmp_path / "slice.png", convergence_note(summary)
    )
    for picture in (history, slice_png):
        assert (_red_pixels(picture) > 200) is not converged, picture.name


def test_a_run_without_a_body_draws_its_slab_without_a_cd_history(tmp_path):
    """A 2D case (one cell thick in z, no body): the plane z itself, not an empty slice y."""
    _forces_csv(tmp_path / "forces.csv")
    (tmp_path / "summary.json").write_text(json.dumps({**SUMMARY, "cd": None}))
    arrays = _flow(nz=1, outlier=False)
    arrays["solid"][:] = 0
    write_vti(tmp_path / "fields.vti", 0.1, (0.0, 0.0, 0.0), arrays)
    assert [p.name for p in draw_all(tmp_path)] == ["velocity_slice.png"]
    import matplotlib.pyplot as plt

    rgb = plt.imread(tmp_path / "images" / "velocity_slice.png")[100:700, 100:1000, :3]
    assert (rgb.std(axis=-1) > 0.1).mean() > 0.2, "no coloured plane in the picture"
