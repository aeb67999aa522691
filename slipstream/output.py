"""A run's files (docs/output.md): config.yaml, forces.csv, summary.json, the fields (.vti per
level), surface.vtp (the body with Cp, pressure, wall shear, y+), case.vtm, snapshots/ with
fields.pvd, and the pictures in images/. run_case.py writes them through write_results; a script
can too (slipstream.write_results)."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import numpy as np

from shapes.mesh import TriangleMesh, write_mesh
from slipstream.model import body_mesh
from solver.atomic import write_atomically
from solver.callbacks import Callback, IterationInterval
from solver.config import CaseConfig
from solver.pipe import pipe_statistics
from solver.refined_simulation import RefinedSimulation
from solver.results import field_origin, physical_fields, write_run_files
from solver.run import Runner
from solver.run_state import RunResult
from solver.simulation import Fields, Simulation
from solver.surface import surface_pressure, surface_shear

log = logging.getLogger(__name__)


SNAPSHOT = re.compile(r"fields_(\d{8})\.vt[im]")


def level_file(stem: str, sim: Simulation | RefinedSimulation, level: int) -> str:
    """The file of one level's fields: stem.vti on one grid, stem_level<i>.vti on levels."""
    return f"{stem}.vti" if len(sim.levels) == 1 else f"{stem}_level{level}.vti"


def write_level_fields(
    out: Path,
    stem: str,
    sim: Simulation | RefinedSimulation,
    levels: tuple[Fields, ...],
    mean_levels: tuple[Fields, ...] | None,
    stride: int,
) -> None:
    """Each level's fields as out/<level_file>; on levels also out/<stem>.vtm holding them
    (coarse first: ParaView draws the finer box over the coarse cells, which carry `refined`
    = 1 where a finer level covers them)."""
    from viz.collections import write_vtm
    from viz.vti import write_vti

    files = []
    for i, (level, fields) in enumerate(zip(sim.levels, levels, strict=True)):
        arrays = physical_fields(
            level, fields, mean_levels[i] if mean_levels is not None else None, stride
        )
        if isinstance(sim, RefinedSimulation) and i < len(sim.levels) - 1:
            arrays["refined"] = sim.refined_mask(i, stride)
        name = level_file(stem, sim, i)
        write_atomically(
            out / name,
            lambda tmp, level=level, arrays=arrays: write_vti(
                tmp, level.grid.dx_m * stride, field_origin(level), arrays
            ),
        )
        files.append(name)
    if len(files) > 1:
        blocks = [(f"level {i}", name) for i, name in enumerate(files)]
        write_atomically(out / f"{stem}.vtm", lambda tmp: write_vtm(tmp, blocks))


def snapshot_writer(case: CaseConfig, sim: Simulation | RefinedSimulation, out: Path) -> Callback:
    """The snapshot callback, every output.snapshot_every steps: the instantaneous fields as
    snapshots/fields_<step>.vti (on levels, a .vti per level and snapshots/fields_<step>.vtm
    holding them)."""

    def write(runner: Runner) -> None:
        write_level_fields(
            out / "snapshots",
            f"fields_{runner.state.step:08d}",
            sim,
            sim.level_fields(),
            None,
            case.output.stride,
        )

    return Callback(write, IterationInterval(case.output.snapshot_every))


def clear_derived_outputs(out: Path) -> None:
    """Before a fresh (not resumed) run into a used folder: remove what an earlier run derived,
    so no collection or picture refers to another run's files."""
    for name in ("fields.vti", "fields.vtm", "surface.vtp", "fields.pvd", "case.vtm"):
        (out / name).unlink(missing_ok=True)
    for level in out.glob("fields_level*.vti"):
        level.unlink()
    for folder in ("snapshots", "images"):
        if (out / folder).is_dir():
            shutil.rmtree(out / folder)


def write_collections(out: Path, sim: Simulation | RefinedSimulation) -> None:
    """fields.pvd over this run's snapshots (a resumed run's earlier ones included) and case.vtm
    with the fields (each level's) and the body, where this run wrote them."""
    from viz.collections import write_pvd, write_vtm

    kind = "vti" if len(sim.levels) == 1 else "vtm"
    steps = sorted(
        int(m[1])
        for p in (out / "snapshots").glob(f"fields_*.{kind}")
        if (m := SNAPSHOT.fullmatch(p.name))
    )
    if steps:
        entries = [(step * sim.units.dt_s, f"snapshots/fields_{step:08d}.{kind}") for step in steps]
        write_atomically(out / "fields.pvd", lambda tmp: write_pvd(tmp, entries))
    one_grid = len(sim.levels) == 1
    fields = [
        ("fields" if one_grid else f"fields level {i}", level_file("fields", sim, i))
        for i in range(len(sim.levels))
    ]
    blocks = [
        (name, file) for name, file in (*fields, ("body", "surface.vtp")) if (out / file).is_file()
    ]
    if blocks:
        write_atomically(out / "case.vtm", lambda tmp: write_vtm(tmp, blocks))


def draw_pictures(out: Path) -> None:
    """The pictures in images/; a failure to draw is a warning, not a lost run."""
    from viz.pictures import draw_all

    try:
        draw_all(out)
    except Exception as exc:  # VTK, matplotlib and the file system all have their own errors
        log.warning(
            "pictures not drawn (%s: %s); redraw with: python -m viz %s",
            type(exc).__name__,
            str(exc).splitlines()[0] if str(exc) else "",
            out,
        )


def write_surface(
    out: Path, sim: Simulation | RefinedSimulation, result: RunResult, surface: TriangleMesh
) -> None:
    """surface.vtp: the body's mesh with Cp, p - p_inf [Pa], the wall shear stress [Pa], y+ and
    the normals at its vertices, from the result's (time-averaged where it averaged) fields."""
    body_level = sim.finest
    fields = result.best_fields
    pressure = surface_pressure(body_level, fields, surface.vertices_m, surface.faces)
    shear = surface_shear(body_level, fields, surface.vertices_m, surface.faces)
    arrays = {
        "Cp": pressure.cp_vertices.astype(np.float32),
        "pressure": pressure.pressure_vertices_pa.astype(np.float32),
        "wall_shear": shear.wall_shear_pa.astype(np.float32),
        "y_plus": shear.y_plus.astype(np.float32),
        "Normals": surface.vertex_normals().astype(np.float32),
    }
    write_atomically(out / "surface.vtp", lambda tmp: write_mesh(surface, tmp, arrays, "vtp"))


def write_results(out: Path, sim: Simulation | RefinedSimulation, result: RunResult) -> dict:
    """Every file of sim's finished run into out (the case's output section says which fields and
    pictures; surface.vtp where a body surface is attached); returns summary.json's figures."""
    case = sim.case
    body_level = sim.finest
    geometry = getattr(case, "geometry", None)  # a case built without the geometry section has none
    pipe = (
        pipe_statistics(
            body_level, result.best_fields, geometry.pipe.radius_m / sim.units.dx_m
        ).as_dict()
        if geometry is not None
        and geometry.source == "pipe"
        and body_level.body_accel_lattice[0] > 0
        else None
    )
    info = write_run_files(out, case, sim, result, sim.backend, pipe)
    surface = body_mesh(sim)
    if surface is not None:
        write_surface(out, sim, result, surface)
    if case.output.fields:
        write_level_fields(
            out, "fields", sim, result.levels, result.mean_levels, case.output.stride
        )
    write_collections(out, sim)
    if case.output.images:
        draw_pictures(out)
    return info
