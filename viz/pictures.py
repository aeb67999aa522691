"""Pictures of a results folder, drawn off-screen (no display needed): a mid-plane slice of the
velocity magnitude with the body's outline, the body coloured by Cp, streamlines around the
body (PyVista), and the Cd history with the averaging window shaded (matplotlib). Every picture
has axes in metres or steps, a colour bar with units, and a title naming the case.

Reads only the files of the folder (fields.vti, surface.vtp, forces.csv, summary.json), so
`python -m viz results/<case>` can redraw them at any time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

SIZE_PX = (1200, 800)


def draw_all(folder: Path) -> list[Path]:
    """Draw every picture the folder's files allow into folder/images; return their paths."""
    images = folder / "images"
    images.mkdir(exist_ok=True)
    summary = json.loads((folder / "summary.json").read_text())
    name = summary["case"]
    drawn = [cd_history(folder / "forces.csv", summary, images / "cd_history.png")]
    fields = folder / "fields.vti"
    surface = folder / "surface.vtp"
    if fields.is_file():
        drawn.append(velocity_slice(fields, surface if surface.is_file() else None, name,
                                    images / "velocity_slice.png"))
    if surface.is_file():
        drawn.append(body_cp(surface, name, images / "body_cp.png"))
        if fields.is_file():
            drawn.append(streamlines(fields, surface, name, images / "streamlines.png"))
    return drawn


def cd_history(forces_csv: Path, summary: dict, out: Path) -> Path:
    """Cd against step; the averaging window (or the convergence window) shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = np.loadtxt(forces_csv, delimiter=",", skiprows=1, ndmin=2)
    fig, ax = plt.subplots(figsize=(SIZE_PX[0] / 100, SIZE_PX[1] / 100), dpi=100)
    ax.plot(data[:, 0], data[:, 4], lw=0.5, color="tab:blue", alpha=0.25, label="Cd per step")
    window = max(1, min(len(data) // 20, 200))
    mean = np.convolve(data[:, 4], np.ones(window) / window, mode="valid")
    ax.plot(data[window - 1:, 0], mean, lw=1.5, color="tab:blue", label=f"mean of the last {window} steps")
    steps = summary["steps"]
    if summary.get("averaged_steps"):
        start = steps - summary["averaged_steps"]
        ax.axvspan(start, steps, color="tab:orange", alpha=0.2, label="averaging window")
    if summary.get("cd") is not None:
        ax.axhline(summary["cd"], color="k", ls="--", lw=0.8, label=f"Cd = {summary['cd']:.4f}")
    finite = data[np.isfinite(data[:, 4]), 4]
    if finite.size:
        tail = finite[len(finite) // 5:]
        lo, hi = np.percentile(tail, [2, 98])
        pad = 0.1 * (hi - lo) + 1e-3
        ax.set_ylim(lo - pad, hi + pad)
    ax.set_xlabel("step")
    ax.set_ylabel("Cd [-]")
    ax.set_title(f"{summary['case']}: drag coefficient history")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out


def _plotter(title: str):
    import pyvista as pv

    pv.OFF_SCREEN = True
    plotter = pv.Plotter(off_screen=True, window_size=SIZE_PX)
    plotter.set_background("white")
    plotter.add_text(title, font_size=12, color="black")
    return plotter


def _colour_bar(title: str) -> dict:
    return {"title": title, "color": "black", "vertical": True}


def _finish(plotter, out: Path, azimuth_deg: float | None) -> Path:
    """Axes in metres, the view (side view along y, or isometric turned by azimuth_deg), save."""
    plotter.show_bounds(xtitle="x [m]", ytitle="y [m]", ztitle="z [m]", color="black", location="outer")
    if azimuth_deg is None:
        plotter.view_xz()
        plotter.camera.zoom(1.2)
    else:
        plotter.view_isometric()
        plotter.camera.azimuth = azimuth_deg
        plotter.reset_camera()
    plotter.screenshot(out)
    plotter.close()
    return out


def _velocity(image) -> tuple[str, str]:
    """The velocity array to show (time-averaged where there is one), after adding its
    magnitude as `speed`; and the words for the title."""
    velocity = "velocity_mean" if "velocity_mean" in image.point_data.keys() else "velocity"
    image.point_data["speed"] = np.linalg.norm(image.point_data[velocity], axis=1)
    return velocity, "time-averaged " if velocity.endswith("_mean") else ""


def velocity_slice(fields_vti: Path, surface_vtp: Path | None, name: str, out: Path) -> Path:
    """The plane through the middle of the domain's span (y), velocity magnitude, body outline."""
    import pyvista as pv

    image = pv.read(fields_vti)
    _, label = _velocity(image)
    centre = image.center
    section = image.slice(normal="y", origin=centre)
    plotter = _plotter(f"{name}: {label}velocity magnitude, mid-plane y = {centre[1]:.3g} m")
    plotter.add_mesh(section, scalars="speed", cmap="viridis", scalar_bar_args=_colour_bar("|u| [m/s]"))
    if surface_vtp is not None:
        outline = pv.read(surface_vtp).slice(normal="y", origin=centre)
        if outline.n_points:
            plotter.add_mesh(outline, color="white", line_width=3)
    return _finish(plotter, out, None)


def body_cp(surface_vtp: Path, name: str, out: Path) -> Path:
    """The body coloured by Cp, seen from the front quarter (-x, -y, above)."""
    import pyvista as pv

    surface = pv.read(surface_vtp)
    plotter = _plotter(f"{name}: pressure coefficient on the body")
    plotter.add_mesh(surface, scalars="Cp", cmap="coolwarm", clim=[-1.5, 1.0], smooth_shading=True,
                     scalar_bar_args=_colour_bar("Cp [-]"))
    return _finish(plotter, out, 180)


def streamlines(fields_vti: Path, surface_vtp: Path, name: str, out: Path) -> Path:
    """Streamlines from a rake upstream of the body, coloured by velocity magnitude."""
    import pyvista as pv

    image = pv.read(fields_vti)
    vectors, label = _velocity(image)
    image.set_active_vectors(vectors)
    body = pv.read(surface_vtp)
    bx0, bx1, by0, by1, bz0, bz1 = body.bounds
    x0 = max(image.bounds[0] + image.spacing[0], bx0 - 0.3 * (bx1 - bx0))
    rake = pv.Plane(center=(x0, 0.5 * (by0 + by1), 0.5 * (bz0 + bz1)), direction=(1, 0, 0),
                    i_size=1.4 * (bz1 - bz0), j_size=1.4 * (by1 - by0), i_resolution=8, j_resolution=12)
    lines = image.streamlines_from_source(rake, vectors=vectors, max_length=4 * (image.bounds[1] - image.bounds[0]),
                                          integration_direction="forward")
    plotter = _plotter(f"{name}: {label}streamlines")
    if lines.n_points:
        plotter.add_mesh(lines.tube(radius=0.004 * (bx1 - bx0)), scalars="speed", cmap="plasma",
                         scalar_bar_args=_colour_bar("|u| [m/s]"))
    plotter.add_mesh(body, color="lightgray", smooth_shading=True)
    return _finish(plotter, out, 180 + 30)
