"""What a run leaves in its results folder: config.yaml, forces.csv, summary.json, and the
physical fields handed to viz/ for fields.vti. Every file is written atomically."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from solver.atomic import write_text
from solver.backends import Backend
from solver.config import CaseConfig, to_yaml
from solver.grid import wall_mask
from solver.lattice import BODY
from solver.run import RunResult
from solver.simulation import Simulation

SOLVER_VERSION = "0.1.0"


def summary(case: CaseConfig, sim: Simulation, result: RunResult, backend: Backend) -> dict:
    u = sim.units
    force_n = result.force_mean * u.force_scale_n
    return {
        "case": case.name,
        "solver_version": SOLVER_VERSION,
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
    """Velocity [m/s], gauge pressure p - p_ref [Pa] (p_ref at the outflow density) and the solid
    flag (0 fluid, 1 wall, 2 body) on the physical box's cells."""
    inner = sim.grid.interior()
    fields = result.fields
    u = sim.units
    velocity = fields.velocity[(slice(None), *inner)] * u.velocity_scale
    pressure = (fields.rho[inner] - 1.0) / 3.0 * u.density_kg_m3 * u.velocity_scale**2
    flags = sim.flags_host[inner]
    solid = wall_mask(flags).astype(np.uint8)  # 0 fluid, 1 wall, 2 body
    solid[(flags & BODY) != 0] = 2
    return {"velocity": velocity.astype(np.float32), "pressure": pressure.astype(np.float32),
            "solid": solid}


def field_origin(sim: Simulation) -> list[float]:
    """Centre of the first physical cell [m]."""
    return [float(sim.grid.origin_m[a] + 0.5 * sim.grid.dx_m) for a in range(3)]


def write_run_files(out: Path, case: CaseConfig, sim: Simulation, result: RunResult, backend: Backend) -> dict:
    write_text(out / "config.yaml", to_yaml(case))
    write_text(out / "forces.csv", forces_csv(sim, result))
    info = summary(case, sim, result, backend)
    write_text(out / "summary.json", json.dumps(info, indent=2) + "\n")
    return info
