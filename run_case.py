#!/usr/bin/env python3
"""Run one lattice-Boltzmann case.

    python run_case.py CASE.yaml [key=value ...] [--out DIR] [--backend auto|cpu|cuda] [--resume]

Writes DIR (default results/<case name>): config.yaml, forces.csv, summary.json, fields.vti
(on refinement levels one fields_level<i>.vti per level, coarse first), surface.vtp (the body with
Cp), case.vtm (all together), images/, and with the matching keys snapshots/ with fields.pvd and
checkpoint/ (docs/output.md). A bad case ends with one line naming
the key and
exit code 2, before anything is written.
"""

from __future__ import annotations

import argparse
import logging
import re
import shutil
import sys
from pathlib import Path

import numpy as np

from shapes.case_geometry import CASE_SCHEMA, case_mesh
from shapes.mesh import write_mesh
from slipstream.model import attach_body_surface
from solver.atomic import write_atomically
from solver.backends import BACKENDS, select_backend
from solver.callbacks import Callback, IterationInterval
from solver.cli_logging import configure_logging
from solver.config import CaseConfig, collision_operator, load_case
from solver.errors import SlipstreamError
from solver.pipe import pipe_statistics
from solver.refined_simulation import RefinedSimulation, make_simulation
from solver.results import check_output_folder, field_origin, physical_fields, write_run_files
from solver.run import Runner
from solver.simulation import Fields, Simulation
from solver.surface import surface_pressure, surface_shear
from viz.numbers import coefficient

log = logging.getLogger("run_case")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("case", help="case YAML (see cases/README.md)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. run.max_steps=2000")
    p.add_argument("--out", help="results folder (default results/<case name>)")
    p.add_argument("--backend", default="auto", choices=BACKENDS)
    p.add_argument("--resume", action="store_true", help="continue from DIR/checkpoint")
    return p.parse_intermixed_args(argv)


class ProgressBar:
    """The run's progress callback: tqdm on a terminal; a log line every tenth of the run
    otherwise."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar = None
        self.last_logged = 0
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="step", dynamic_ncols=True)

    def __call__(self, runner: Runner) -> None:
        step, total = runner.state.step, self.total
        cd, rate = runner.recent_cd(), runner.steps_per_second()
        eta = (total - step) / rate if rate > 0 else float("nan")
        if self.bar is not None:
            self.bar.n = step
            self.bar.set_postfix_str(f"mean Cd {coefficient(cd)}, {rate:.0f} steps/s")
            self.bar.refresh()
        elif step - self.last_logged >= total / 10 or step >= total:
            self.last_logged = step
            log.info(
                "step %d/%d  mean Cd %s  %.0f steps/s  ETA %.0f s",
                step,
                total,
                coefficient(cd),
                rate,
                eta,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


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


def describe_grids(sim: Simulation | RefinedSimulation) -> str:
    """'grid 64 x 32 x 32 (0.07 M cells)', one such per level on refinement levels."""
    parts = [
        f"{s.grid.nx} x {s.grid.ny} x {s.grid.nz} ({s.grid.n_cells / 1e6:.2f} M cells)"
        for s in sim.levels
    ]
    if len(parts) == 1:
        return f"grid {parts[0]}"
    return "levels " + ", ".join(f"{i}: {p}" for i, p in enumerate(parts))


def _convergence(info: dict) -> str:
    """The final log line's words on convergence (info: summary.json's figures)."""
    if info["converged"]:
        return f"converged at step {info['converged_step']}"
    what = "the bulk velocity" if info["cd"] is None else "Cd"
    return f"NOT CONVERGED: {what} still changing at the step limit"


def main(argv: list[str] | None = None) -> int:
    configure_logging()
    args = parse_args(argv)
    try:
        case = load_case(args.case, args.overrides, schema=CASE_SCHEMA)
        out = Path(args.out) if args.out else Path("results") / case.name
        check_output_folder(out)
        mesh = case_mesh(case)
        backend = select_backend(args.backend)
        sim = make_simulation(case, backend, mesh)
        body_level = sim.finest
        surface_mesh = attach_body_surface(case, sim, mesh)
        u = sim.units
        log.info(
            "%s on %s: %s, Re %.4g, Mach %.3f, tau %.7f, dx %.4g m, dt %.4g s (at the body), "
            "%s collision",
            case.name,
            backend.describe(),
            describe_grids(sim),
            u.reynolds,
            u.mach,
            u.tau,
            u.dx_m,
            u.dt_s,
            collision_operator(case.resolution),
        )
        log.info(sim.fidelity.describe())
        if not args.resume:
            clear_derived_outputs(out)
        progress = ProgressBar(case.run.max_steps)
        callbacks = [Callback(progress, IterationInterval(case.run.check_every))]
        if case.output.snapshot_every:
            callbacks.append(snapshot_writer(case, sim, out))
        runner = Runner(sim, out / "checkpoint", callbacks)
        if args.resume:
            runner.resume()
        try:
            result = runner.run()
        finally:
            progress.close()
        pipe = (
            pipe_statistics(
                body_level, result.best_fields, case.geometry.pipe.radius_m / u.dx_m
            ).as_dict()
            if case.geometry.source == "pipe" and body_level.body_accel_lattice[0] > 0
            else None
        )
        info = write_run_files(out, case, sim, result, backend, pipe)
        if surface_mesh is not None:
            surface = surface_pressure(
                body_level, result.best_fields, surface_mesh.vertices_m, surface_mesh.faces
            )
            shear = surface_shear(
                body_level, result.best_fields, surface_mesh.vertices_m, surface_mesh.faces
            )
            arrays = {
                "Cp": surface.cp_vertices.astype(np.float32),
                "pressure": surface.pressure_vertices_pa.astype(np.float32),
                "wall_shear": shear.wall_shear_pa.astype(np.float32),
                "y_plus": shear.y_plus.astype(np.float32),
                "Normals": surface_mesh.vertex_normals().astype(np.float32),
            }
            write_atomically(
                out / "surface.vtp", lambda tmp: write_mesh(surface_mesh, tmp, arrays, "vtp")
            )
        if case.output.fields:
            write_level_fields(
                out, "fields", sim, result.levels, result.mean_levels, case.output.stride
            )
        write_collections(out, sim)
        if case.output.images:
            draw_pictures(out)
    except SlipstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    if "friction_factor" in info:
        mckeon = info["friction_factor_mckeon"]
        log.info(
            "Darcy f %.4g (McKeon %s)  Re_D %.4g  Re_tau %.4g  steps %d  %s  %.1f MLUPs  -> %s",
            info["friction_factor"],
            f"{mckeon:.4g}" if mckeon is not None else "-",
            info["re_d"],
            info["re_tau"],
            info["steps"],
            _convergence(info),
            info["mlups"],
            out,
        )
        return 0
    if case.flow.reynolds_tau is not None:
        log.info(
            "Cf %.4g (Dean %.4g)  Re_tau %.4g  Re_bulk %.4g  steps %d  %s  %.1f MLUPs  -> %s",
            info["cf"],
            info["cf_dean"],
            info["re_tau"],
            info["re_bulk"],
            info["steps"],
            _convergence(info),
            info["mlups"],
            out,
        )
        return 0
    log.info(
        "Cd %s (pressure %s, friction %s)  Cl %s  steps %d  %s  %.1f MLUPs  -> %s",
        coefficient(info["cd"]),
        coefficient(info["cd_pressure"]),
        coefficient(info["cd_friction"]),
        coefficient(info["cl"]),
        info["steps"],
        _convergence(info),
        info["mlups"],
        out,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
