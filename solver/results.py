"""What a run leaves in its results folder: config.yaml, forces.csv, summary.json, and the
physical fields handed to viz/ for fields.vti. Every file is written atomically."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np

from solver import __version__
from solver.atomic import write_text
from solver.backends import Backend
from solver.config import CaseConfig, to_yaml
from solver.errors import OutputError
from solver.lattice import BODY
from solver.run import RunResult
from solver.simulation import Simulation
from solver.surface import SurfacePressure

def summary(case: CaseConfig, sim: Simulation, result: RunResult, backend: Backend,
            surface: SurfacePressure | None = None) -> dict:
    """The run's figures for summary.json (forces in N, the rest as named). With the surface
    pressure: its part of Cd and Cl, and the rest, reported as the viscous part (it also holds
    the difference between the two discretisations of the pressure force)."""
    u = sim.units
    force_n = result.force_mean * u.force_scale_n
    split = {}
    if surface is not None:
        split = {"cd_pressure": surface.cd_pressure, "cd_viscous": result.cd - surface.cd_pressure,
                 "cl_pressure": surface.cl_pressure, "cl_viscous": result.cl - surface.cl_pressure,
                 "force_pressure_n": [float(v) for v in surface.force_pressure_n]}
    return {
        "case": case.name,
        "solver_version": __version__,
        "cd": result.cd if np.isfinite(result.cd) else None,
        "cl": result.cl if np.isfinite(result.cl) else None,
        "force_n": [float(v) for v in force_n],
        "steps": result.steps,
        "converged": result.converged,
        "converged_step": result.converged_step,
        "averaged_steps": result.averaged_steps,
        "fields_time_averaged": result.fields_averaged,
        "mlups": result.mlups,
        "wall_seconds": result.wall_seconds,
        "backend": backend.describe(),
        "reynolds": u.reynolds,
        "mach": u.mach,
        "tau": u.tau,
        "u_lattice": u.u_lattice,
        "dx_m": u.dx_m,
        "dt_s": u.dt_s,
        "cells": sim.grid.n_cells,
        "grid_xyz": [sim.grid.nx, sim.grid.ny, sim.grid.nz],
        "reference_length_m": u.length_m,
        "reference_area_m2": sim.reference_area_m2,
        "smagorinsky_cs": case.resolution.smagorinsky_cs,
        "bounce_back": case.body.bounce_back,
        **split,
    }


def forces_csv(sim: Simulation, result: RunResult) -> str:
    """step, Fx, Fy, Fz [N], Cd, Cl per time step."""
    f_n = result.force_history * sim.units.force_scale_n
    steps = np.arange(1, len(f_n) + 1)
    table = np.column_stack([steps, f_n, result.coefficients])
    buf = io.StringIO()
    buf.write("step,fx_n,fy_n,fz_n,cd,cl\n")
    np.savetxt(buf, table, delimiter=",", fmt=["%d", "%.8e", "%.8e", "%.8e", "%.8e", "%.8e"])
    return buf.getvalue()


def physical_fields(sim: Simulation, result: RunResult) -> dict[str, np.ndarray]:
    """Velocity [m/s], gauge pressure p - p_ref [Pa] (p_ref at the outflow density) and the
    solid flag (1 in the body) on the physical box's cells; walls lie outside the box."""
    inner = sim.grid.interior()
    fields = result.fields
    u = sim.units
    velocity = fields.velocity[(slice(None), *inner)] * u.velocity_scale
    pressure = u.pressure_pa(fields.rho[inner])
    solid = ((sim.flags_host[inner] & BODY) != 0).astype(np.uint8)
    return {"velocity": velocity.astype(np.float32), "pressure": pressure.astype(np.float32),
            "solid": solid}


def field_origin(sim: Simulation) -> list[float]:
    """Centre of the first physical cell [m]."""
    return [float(sim.grid.origin_m[a] + 0.5 * sim.grid.dx_m) for a in range(3)]


def check_output_folder(out: Path) -> None:
    """Refuse, before any work, a results folder that cannot be created or written."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"--out '{out}' is a file: give a folder")
    parent = out
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write into '{parent}': choose another --out folder")


def write_run_files(out: Path, case: CaseConfig, sim: Simulation, result: RunResult, backend: Backend,
                    surface: SurfacePressure | None = None) -> dict:
    """config.yaml, forces.csv and summary.json; returns the summary."""
    info = summary(case, sim, result, backend, surface)
    try:
        write_text(out / "config.yaml", to_yaml(case))
        write_text(out / "forces.csv", forces_csv(sim, result))
        write_text(out / "summary.json", json.dumps(info, indent=2) + "\n")
    except OSError as exc:
        raise OutputError(f"cannot write results to '{out}': {exc.strerror or exc}") from exc
    return info
