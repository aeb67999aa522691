"""Pictures of a results folder, drawn off-screen (no display needed): a mid-plane slice of the
velocity magnitude with the body's outline (the plane z of a 2D case one cell thick), the body
coloured by Cp, streamlines around the body (PyVista), and, for a run with a body, the Cd
history with the averaging window shaded and, where the run averaged over a surface, the drag
breakdown: Cd(x) along the body and the drag of each named part (matplotlib). Every picture has axes
in metres or
steps labelled at round values, a colour bar with units and round ticks, and a title naming
the case; a run whose Cd did not converge says so in red under the title.

Speeds are coloured between the 1st and 99th percentiles of the fluid's values, so a few
extreme cells do not darken the rest; values are shown as computed, never smoothed.

Reads only the files of the folder (fields.vti, surface.vtp, forces.csv, summary.json), so
`python -m viz results/<case>` can redraw them at any time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from viz.numbers import coefficient, nice_ticks, ruler_ticks, tick_decimals

SIZE_PX = (1200, 800)
#: Percentiles of the fluid's speeds [%] between which the speed colour bars run.
SPEED_PERCENTILES = (1.0, 99.0)
#: The title of the speed colour bars, in short lines (VTK's text drops a '|').
SPEED_BAR_TITLE = "speed [m/s]\nclipped to the\nfluid's 1-99th\npercentile"
#: The part of the window [px] the scene is zoomed to fill, centred: clear of the title
#: above, the colour bar at the right, and (mirrored) as much below and at the left.
FREE_PX = (0.75 * SIZE_PX[0], SIZE_PX[1] - 2 * 110)
#: The least distance [px] between two labels along an axis on the screen.
LABEL_SPACING_PX = 55
#: The distance of axis labels from their axis (VTK's label offset, about pixels).
LABEL_OFFSET = 40
#: The most labels a colour bar gets, and an axis (with its two blank ends 8: VTK places
#: more at its own ticks, not evenly between the ends).
MAX_LABELS = 7
MAX_AXIS_LABELS = 6
#: How often the axes are chosen again for the zoom that holds them (_finish).
AXES_PASSES = 3
NOTE_COLOUR = "firebrick"
#: Directions from the scene towards the camera: the body from the front quarter (-x, -y,
#: above), and the streamlines more from the side and lower, so that y and z do not overlap.
FRONT_QUARTER = (-1.0, -1.0, 1.0)
STREAMLINE_VIEW = (-1.0, -1.4, 0.6)


def convergence_note(summary: dict) -> str:
    """The words shown under every picture's title of a run whose Cd did not converge; '' for
    a converged run and for one without a body (no Cd to converge)."""
    if summary.get("converged", True) or summary.get("cd") is None:
        return ""
    return f"NOT CONVERGED: Cd still changing at the step limit ({summary['steps']} steps)"


def draw_all(folder: Path) -> list[Path]:
    """Draw every picture the folder's files allow into folder/images; return their paths."""
    images = folder / "images"
    images.mkdir(exist_ok=True)
    summary = json.loads((folder / "summary.json").read_text())
    name, note = summary["case"], convergence_note(summary)
    drawn = []
    if summary.get("cd") is not None:  # a run without a body has no Cd to draw
        drawn.append(cd_history(folder / "forces.csv", summary, images / "cd_history.png"))
    if summary.get("cd_cumulative") is not None:
        drawn.append(drag_breakdown(summary, images / "drag_breakdown.png"))
    # one grid's fields, or on refinement levels the finest level's (the box round the body)
    levels = sorted(folder.glob("fields_level*.vti"), key=lambda p: int(p.stem[12:]))
    fields = folder / "fields.vti" if not levels else levels[-1]
    surface = folder / "surface.vtp"
    if fields.is_file():
        drawn.append(
            velocity_slice(
                fields,
                surface if surface.is_file() else None,
                name,
                images / "velocity_slice.png",
                note,
            )
        )
    if surface.is_file():
        drawn.append(body_cp(surface, name, images / "body_cp.png", note))
        if fields.is_file():
            drawn.append(streamlines(fields, surface, name, images / "streamlines.png", note))
    return drawn


def cd_history(forces_csv: Path, summary: dict, out: Path) -> Path:
    """Cd against step; the averaging window (or the convergence window) shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = np.genfromtxt(forces_csv, delimiter=",", skip_header=1, ndmin=2)  # empty fields: NaN
    fig, ax = plt.subplots(figsize=(SIZE_PX[0] / 100, SIZE_PX[1] / 100), dpi=100)
    ax.plot(data[:, 0], data[:, 4], lw=0.5, color="tab:blue", alpha=0.25, label="Cd per step")
    window = max(1, min(len(data) // 20, 200))
    mean = np.convolve(data[:, 4], np.ones(window) / window, mode="valid")
    ax.plot(
        data[window - 1 :, 0],
        mean,
        lw=1.5,
        color="tab:blue",
        label=f"mean of the last {window} steps",
    )
    steps = summary["steps"]
    if summary.get("averaged_steps"):
        start = steps - summary["averaged_steps"]
        ax.axvspan(start, steps, color="tab:orange", alpha=0.2, label="averaging window")
    if summary.get("cd") is not None:
        ax.axhline(
            summary["cd"], color="k", ls="--", lw=0.8, label=f"Cd = {coefficient(summary['cd'])}"
        )
    ax.set_ylim(*_cd_limits(data[:, 4], summary.get("cd")))
    ax.set_xlabel("step")
    ax.set_ylabel("Cd [-]")
    _matplotlib_titles(
        fig, ax, f"{summary['case']}: drag coefficient history", convergence_note(summary)
    )
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out


def drag_breakdown(summary: dict, out: Path) -> Path:
    """The drag breakdown of summary.json: the cumulative drag Cd(x) from nose to tail (left)
    beside the same by momentum exchange (dashed), and the drag of each named part, pressure and
    friction stacked (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cumulative, parts = summary["cd_cumulative"], summary["cd_parts"]
    fig, (along, by_part) = plt.subplots(
        1,
        2,
        figsize=(SIZE_PX[0] / 100, SIZE_PX[1] / 100),
        dpi=100,
        gridspec_kw={"width_ratios": [3, 2]},
    )
    # From zero at the first column's upstream face.
    x = [cumulative["x_m"][0] - summary["dx_m"], *cumulative["x_m"]]
    along.plot(
        x,
        [0.0, *cumulative["cd"]],
        "o-",
        color="tab:blue",
        lw=1.5,
        ms=3,
        label="pressure + friction",
    )
    along.plot(
        x,
        [0.0, *cumulative["cd_exchange"]],
        "--",
        color="k",
        lw=1.0,
        label="momentum exchange",
    )
    along.axhline(0.0, color="k", lw=0.5)
    along.set_xlabel("x from the nose [m]")
    along.set_ylabel("cumulative Cd [-]")
    along.grid(alpha=0.3)
    along.legend(loc="upper left")
    names = list(parts)
    pressure = np.array([parts[n]["pressure"] for n in names])
    friction = np.array([parts[n]["friction"] for n in names])
    rows = np.arange(len(names))
    by_part.barh(rows, pressure, color="tab:blue", label="pressure")
    # Friction stacked on the pressure bar's end, on whichever side the pressure lies.
    by_part.barh(rows, friction, left=pressure, color="tab:orange", label="friction")
    by_part.set_yticks(rows, names)
    by_part.invert_yaxis()
    by_part.axvline(0.0, color="k", lw=0.5)
    by_part.set_xlabel("Cd [-]")
    by_part.grid(alpha=0.3, axis="x")
    by_part.legend(loc="lower right")
    total = summary["cd_pressure"] + summary["cd_friction"]
    title = (
        f"{summary['case']}: where the drag comes from "
        f"(pressure + friction Cd {coefficient(total)}, exchange {coefficient(summary['cd'])})"
    )
    note = convergence_note(summary)
    fig.suptitle(title if not note else f"{title}\n{note}", color="k")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out


def _cd_limits(cd: np.ndarray, reported: float | None) -> tuple[float, float]:
    """Cd axis limits [-]: the 2nd to 98th percentile of the history after its first fifth
    (the start-up transient off the axis), padded, and always the reported Cd."""
    finite = cd[np.isfinite(cd)]
    tail = finite[len(finite) // 5 :]
    values = [*np.percentile(tail, [2, 98])] if tail.size else []
    values += [reported] if reported is not None else []
    if not values:
        return -1.0, 1.0
    lo, hi = min(values), max(values)
    pad = 0.1 * (hi - lo) + 1e-3
    return lo - pad, hi + pad


def _matplotlib_titles(fig, ax, title: str, note: str) -> None:
    """The title, with the convergence note (if any) in red under it."""
    if note:
        fig.suptitle(title)
        ax.set_title(note, color=NOTE_COLOUR, fontsize="medium")
    else:
        ax.set_title(title)


def speed_limits(speed: np.ndarray, solid: np.ndarray | None) -> tuple[float, float]:
    """The colour range [m/s] of a speed picture: the SPEED_PERCENTILES of the finite speeds in
    the fluid (where solid < 0.5; all of them without a solid array), so that a few cells far
    off, as at a body's corner, do not set it."""
    speed = np.asarray(speed, float)
    fluid = speed if solid is None else speed[np.asarray(solid) < 0.5]
    fluid = fluid[np.isfinite(fluid)]
    if not fluid.size:
        return 0.0, 1.0
    lo, hi = np.percentile(fluid, SPEED_PERCENTILES)
    return float(lo), float(hi) if hi > lo else float(lo) + 1.0


def _plotter(title: str, note: str):
    """An off-screen PyVista plotter with the title at the top left and the convergence note
    (if any) in red under it."""
    import pyvista as pv

    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        # Without a screen VTK first tries X, prints "bad X server connection" and only then
        # falls back; ask for its EGL window (off-screen) at once. A user's setting wins.
        os.environ.setdefault("VTK_DEFAULT_OPENGL_WINDOW", "vtkEGLRenderWindow")
    pv.OFF_SCREEN = True
    plotter = pv.Plotter(off_screen=True, window_size=SIZE_PX)
    plotter.set_background("white")
    plotter.add_text(title, position="upper_left", font_size=12, color="black")
    if note:
        plotter.add_text(note, position=(8, SIZE_PX[1] - 62), font_size=11, color=NOTE_COLOUR)
    return plotter


def _colour_bar(plotter, title: str, clim: tuple[float, float]) -> None:
    """A vertical colour bar for the mesh added last, labelled at round values inside clim."""
    import pyvista as pv

    ticks = nice_ticks(*clim, MAX_LABELS)
    bar = plotter.add_scalar_bar(
        title=title, color="black", vertical=True, fmt=f"%.{tick_decimals(ticks)}f"
    )
    bar.SetUseCustomLabels(True)
    bar.SetCustomLabels(pv.convert_array(np.asarray(ticks, float)))


def _view(plotter, view: str | tuple[float, float, float]) -> None:
    """A view of the plane 'xz' (along y) or 'xy' (along z), or one from a direction (towards
    the camera, z up), zoomed so that the box around everything shown fills FREE_PX."""
    if isinstance(view, str):
        getattr(plotter, f"view_{view}")()
    else:
        plotter.view_vector(view, viewup=(0.0, 0.0, 1.0))
    bounds = np.reshape(plotter.bounds, (3, 2))
    corners = np.array(
        [_display_px(plotter, (x, y, z)) for x in bounds[0] for y in bounds[1] for z in bounds[2]]
    )
    extent = np.maximum(corners.max(axis=0) - corners.min(axis=0), 1.0)
    plotter.camera.zoom(float(np.min(np.array(FREE_PX) / extent)))


def _display_px(plotter, point) -> np.ndarray:
    """Where the current camera shows point (x, y, z in metres) in the window [px]."""
    renderer = plotter.renderer
    renderer.SetWorldPoint(*point, 1.0)
    renderer.WorldToDisplay()
    return np.array(renderer.GetDisplayPoint()[:2])


def _px_per_m(plotter, centre: np.ndarray, axis: int, length_m: float) -> float:
    """Pixels per metre along axis through centre, as the current camera shows it."""
    ends = [np.array(centre, float) for _ in range(2)]
    ends[0][axis] -= 0.5 * length_m
    ends[1][axis] += 0.5 * length_m
    return (
        float(np.linalg.norm(_display_px(plotter, ends[1]) - _display_px(plotter, ends[0])))
        / length_m
    )


def _rulers(plotter, scene: np.ndarray) -> list[np.ndarray | None]:
    """Per axis, the round values (ruler_ticks) to label the scene's bounds [m] with, no closer
    on the screen than LABEL_SPACING_PX as the current camera shows them; None for an axis too
    short on the screen for two labels."""
    centre = scene.mean(axis=1)
    diagonal = float(np.linalg.norm(scene[:, 1] - scene[:, 0])) or 1.0
    rulers = []
    for axis, (lo, hi) in enumerate(scene):
        px_per_m = _px_per_m(plotter, centre, axis, diagonal)
        rulers.append(ruler_ticks(lo, hi, LABEL_SPACING_PX / max(px_per_m, 1e-12), MAX_AXIS_LABELS))
    return rulers


def _axes(plotter, scene: np.ndarray, rulers: list[np.ndarray | None]) -> None:
    """Axes in metres around the scene's bounds, labelled at the rulers' values. Each axis runs
    one label spacing past its first and last label, so that no label sits at a corner where
    axes meet; an axis without a ruler is left out."""
    box = [
        (t[0] - (t[1] - t[0]), t[-1] + (t[1] - t[0])) if t is not None else (lo, hi)
        for t, (lo, hi) in zip(rulers, scene, strict=False)
    ]
    counts = [len(t) + 2 if t is not None else 2 for t in rulers]
    actor = plotter.show_bounds(
        bounds=[v for ends in box for v in ends],
        n_xlabels=counts[0],
        n_ylabels=counts[1],
        n_zlabels=counts[2],
        xtitle="x [m]",
        ytitle="y [m]",
        ztitle="z [m]",
        color="black",
        location="outer",
    )
    for axis, ticks in enumerate(rulers):
        if ticks is None:
            _hide_axis(actor, "XYZ"[axis])
        else:
            actor.SetAxisLabels(axis, _axis_labels(ticks))
    actor.SetLabelOffset(LABEL_OFFSET)


def _hide_axis(actor, name: str) -> None:
    """Hide axis name ('X', 'Y' or 'Z') of a vtkCubeAxesActor. Its visibility flag alone does
    not hide the z axis with outer edges (VTK 9.7): lines, ticks, labels and title too."""
    getattr(actor, f"Set{name}AxisVisibility")(False)
    getattr(actor, f"Set{name}AxisLabelVisibility")(False)
    getattr(actor, f"Set{name}AxisTickVisibility")(False)
    getattr(actor, f"Set{name}Title")(" ")  # VTK reports an error on an empty title
    getattr(actor, f"Get{name}AxesLinesProperty")().SetOpacity(0.0)


def _axis_labels(ticks: np.ndarray):
    """The labels of a ruler's ticks (tick_decimals), with an empty one before and after."""
    import pyvista as pv

    decimals = tick_decimals(ticks)
    return pv.convert_string_array(np.array(["", *(f"{t:.{decimals}f}" for t in ticks), ""]))


def _finish(plotter, out: Path, view: str | tuple[float, float, float]) -> Path:
    """The view (see _view) with axes in metres, saved. The axes reach past the scene and the
    view is zoomed to hold them, which spaces their labels closer: they are chosen again for
    the new zoom until they stay the same (AXES_PASSES at most)."""
    scene = np.reshape(plotter.bounds, (3, 2))
    _view(plotter, view)
    rulers = _rulers(plotter, scene)
    for _ in range(AXES_PASSES):
        plotter.remove_bounds_axes()
        _axes(plotter, scene, rulers)
        _view(plotter, view)
        again = _rulers(plotter, scene)
        if _same_rulers(again, rulers):
            break
        rulers = again
    plotter.screenshot(out)
    plotter.close()
    return out


def _same_rulers(a: list[np.ndarray | None], b: list[np.ndarray | None]) -> bool:
    """Whether two sets of rulers (_rulers) label every axis alike."""
    return all(
        (x is None and y is None)
        or (x is not None and y is not None and x.shape == y.shape and np.allclose(x, y))
        for x, y in zip(a, b, strict=False)
    )


def _velocity(image) -> tuple[str, str]:
    """The velocity array to show (time-averaged where there is one), after adding its
    magnitude as `speed`; and the words for the title."""
    velocity = "velocity_mean" if "velocity_mean" in image.point_data.keys() else "velocity"
    image.point_data["speed"] = np.linalg.norm(image.point_data[velocity], axis=1)
    return velocity, "time-averaged " if velocity.endswith("_mean") else ""


def _solid(mesh) -> np.ndarray | None:
    """The solid flag of a mesh's points (1 in the body), None where the file has none."""
    return mesh.point_data["solid"] if "solid" in mesh.point_data.keys() else None


def _section(image) -> tuple:
    """The plane velocity_slice shows: (mesh, its normal 'y' or 'z', the point [m] it passes
    through). The slab itself for a case one cell thick in z (2D), else the lattice plane y
    nearest the middle of the span: a slice there shows the cells' own values, not a blend
    of two planes."""
    centre = np.array(image.center, float)
    if image.dimensions[2] == 1:
        return image.extract_surface(algorithm=None), "z", centre
    plane = round((centre[1] - image.origin[1]) / image.spacing[1])
    centre[1] = image.origin[1] + plane * image.spacing[1]
    return image.slice(normal="y", origin=centre), "y", centre


def velocity_slice(
    fields_vti: Path, surface_vtp: Path | None, name: str, out: Path, note: str = ""
) -> Path:
    """The mid-plane of the domain (_section): velocity magnitude [m/s] with robust colour
    limits (speed_limits), the body's outline in white; seen along the plane's normal."""
    import pyvista as pv

    image = pv.read(fields_vti)
    _, label = _velocity(image)
    section, normal, origin = _section(image)
    clim = speed_limits(section.point_data["speed"], _solid(section))
    at = origin["xyz".index(normal)]
    plotter = _plotter(f"{name}: {label}velocity magnitude, mid-plane {normal} = {at:.3g} m", note)
    plotter.add_mesh(section, scalars="speed", cmap="viridis", clim=clim, show_scalar_bar=False)
    _colour_bar(plotter, SPEED_BAR_TITLE, clim)
    if surface_vtp is not None:
        outline = pv.read(surface_vtp).slice(normal=normal, origin=origin)
        if outline.n_points:
            plotter.add_mesh(outline, color="white", line_width=3)
    return _finish(plotter, out, "xz" if normal == "y" else "xy")


def body_cp(surface_vtp: Path, name: str, out: Path, note: str = "") -> Path:
    """The body coloured by Cp (-1.5 to 1), seen from the front quarter (-x, -y, above)."""
    import pyvista as pv

    surface = pv.read(surface_vtp)
    plotter = _plotter(f"{name}: pressure coefficient on the body", note)
    clim = (-1.5, 1.0)
    plotter.add_mesh(
        surface,
        scalars="Cp",
        cmap="coolwarm",
        clim=clim,
        smooth_shading=True,
        show_scalar_bar=False,
    )
    _colour_bar(plotter, "Cp [-]", clim)
    return _finish(plotter, out, FRONT_QUARTER)


def streamlines(fields_vti: Path, surface_vtp: Path, name: str, out: Path, note: str = "") -> Path:
    """Streamlines from a rake upstream of the body, coloured by velocity magnitude [m/s]
    between the limits of the whole fluid's speeds (speed_limits)."""
    import pyvista as pv

    image = pv.read(fields_vti)
    vectors, label = _velocity(image)
    image.set_active_vectors(vectors)
    body = pv.read(surface_vtp)
    bx0, bx1, by0, by1, bz0, bz1 = body.bounds
    x0 = max(image.bounds[0] + image.spacing[0], bx0 - 0.3 * (bx1 - bx0))
    rake = pv.Plane(
        center=(x0, 0.5 * (by0 + by1), 0.5 * (bz0 + bz1)),
        direction=(1, 0, 0),
        i_size=1.4 * (bz1 - bz0),
        j_size=1.4 * (by1 - by0),
        i_resolution=8,
        j_resolution=12,
    )
    lines = image.streamlines_from_source(
        rake,
        vectors=vectors,
        max_length=4 * (image.bounds[1] - image.bounds[0]),
        integration_direction="forward",
    )
    plotter = _plotter(f"{name}: {label}streamlines", note)
    if lines.n_points:
        clim = speed_limits(image.point_data["speed"], _solid(image))
        plotter.add_mesh(
            lines.tube(radius=0.004 * (bx1 - bx0)),
            scalars="speed",
            cmap="plasma",
            clim=clim,
            show_scalar_bar=False,
        )
        _colour_bar(plotter, SPEED_BAR_TITLE, clim)
    plotter.add_mesh(body, color="lightgray", smooth_shading=True)
    return _finish(plotter, out, STREAMLINE_VIEW)
