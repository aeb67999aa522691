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
from solver.channel import channel_statistics
from solver.config import CaseConfig, collision_operator, to_yaml, wall_model
from solver.drag_breakdown import drag_breakdown, element_drag_breakdown
from solver.errors import OutputError
from solver.lattice import BODY
from solver.refined_simulation import RefinedSimulation
from solver.run_state import RunResult
from solver.simulation import FORCE_FRICTION, FORCE_PRESSURE, FORCE_TOTAL, Fields, Simulation
from solver.surface import free_stream_pressure_pa


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def summary(
    case: CaseConfig,
    sim: Simulation | RefinedSimulation,
    result: RunResult,
    backend: Backend,
    flow_statistics: dict | None = None,
) -> dict:
    """The run's figures for summary.json (forces in N, the rest as named): Cd and Cl by momentum
    exchange, their pressure and friction parts integrated over the body's surface (None without
    one), the drag by named part of the body and the cumulative drag along it (cd_parts,
    cd_cumulative: solver/drag_breakdown.py; None without a surface or an averaging window), the
    resolution, and the fidelity figures of the set-up; for a channel
    (flow.reynolds_tau) its skin friction and Reynolds numbers (solver/channel.py); then
    flow_statistics, the figures of a flow the caller knows more of (a pipe: solver/pipe.py). On
    refinement levels the forces, units and fidelity are the finest level's (the body's), cells
    the count over all levels, and `refinement` the levels' figures (None on one grid)."""
    u = sim.units
    body = sim.finest
    force_n = result.force_mean_lattice * u.force_scale_n
    channel = (
        channel_statistics(body, result.best_fields).as_dict()
        if case.flow.reynolds_tau is not None
        else {}
    )
    breakdown = {"cd_parts": None, "cd_cumulative": None}
    if body.reference_area_m2 is not None and result.element_force_mean_lattice is not None:
        breakdown = element_drag_breakdown(
            body, result.element_force_mean_lattice, result.best_fields
        ).as_dict()
    elif (
        body.has_surface
        and body.reference_area_m2 is not None
        and result.slot_force_mean_lattice is not None
        and body.surface is not None
        and body.surface.entry_slot.size
    ):
        breakdown = drag_breakdown(
            body, result.slot_force_mean_lattice, result.best_fields
        ).as_dict()
    return {
        "case": case.name,
        "solver_version": __version__,
        "cd": _finite(result.cd),
        "cl": _finite(result.cl),
        "cd_pressure": _finite(result.cd_pressure),
        "cd_friction": _finite(result.cd_friction),
        "cl_pressure": _finite(result.cl_pressure),
        "cl_friction": _finite(result.cl_friction),
        "force_n": [float(v) for v in force_n[FORCE_TOTAL]],
        "force_pressure_n": [_finite(v) for v in force_n[FORCE_PRESSURE]]
        if sim.has_surface
        else None,
        "force_friction_n": [_finite(v) for v in force_n[FORCE_FRICTION]]
        if sim.has_surface
        else None,
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
        "cells": sum(level.grid.n_cells for level in sim.levels),
        "grid_xyz": [body.grid.nx, body.grid.ny, body.grid.nz],
        "reference_length_m": u.length_m,
        "reference_area_m2": sim.reference_area_m2,
        "collision": collision_operator(case.resolution),
        "storage": case.resolution.storage,
        "streaming": case.resolution.streaming,
        "smagorinsky_cs": case.resolution.smagorinsky_cs,
        "subgrid": case.resolution.subgrid if case.resolution.smagorinsky_cs > 0 else None,
        "wall_model": wall_model(case),
        "bounce_back": case.body.bounce_back,
        "min_gap_cells": case.resolution.min_gap_cells,
        "refinement": sim.refinement_summary() if isinstance(sim, RefinedSimulation) else None,
        **sim.fidelity.as_dict(),
        **breakdown,
        **channel,
        **(flow_statistics or {}),
    }


def forces_csv(sim: Simulation | RefinedSimulation, result: RunResult) -> str:
    """step, Fx, Fy, Fz [N] by momentum exchange, then Cd and Cl of the total, of the pressure
    and of the friction per time step (the last four empty without a surface)."""
    f_n = result.force_history_lattice[:, FORCE_TOTAL] * sim.units.force_scale_n
    steps = np.arange(1, len(f_n) + 1)
    c = result.coefficients
    table = np.column_stack(
        [steps, f_n, c[:, FORCE_TOTAL], c[:, FORCE_PRESSURE], c[:, FORCE_FRICTION]]
    )
    if not sim.has_surface:
        table[:, 6:] = np.nan
    buf = io.StringIO()
    buf.write("step,fx_n,fy_n,fz_n,cd,cl,cd_pressure,cl_pressure,cd_friction,cl_friction\n")
    np.savetxt(buf, table, delimiter=",", fmt=["%d"] + ["%.8e"] * 9)
    return buf.getvalue().replace("nan", "")


def physical_fields(
    sim: Simulation, fields: Fields, mean_fields: Fields | None = None, stride: int = 1
) -> dict[str, np.ndarray]:
    """The fields for fields.vti on the physical box's cells (every stride-th cell along each
    axis), arrays [z, y, x] or [3, z, y, x]: velocity [m/s], pressure p - p_inf [Pa], Cp,
    vorticity magnitude [1/s] of fields, the same with the suffix _mean for mean_fields (the
    time average, where the run averaged), and solid (1 in the body; walls lie outside the box)."""
    inner = sim.grid.interior()
    u = sim.units
    q_inf = 0.5 * u.density_kg_m3 * u.speed_m_s**2
    out: dict[str, np.ndarray] = {}
    for suffix, state in (("", fields), ("_mean", mean_fields)):
        if state is None:
            continue
        p_inf = free_stream_pressure_pa(sim, state)
        velocity = state.velocity[(slice(None), *inner)] * u.velocity_scale
        pressure = u.pressure_pa(state.rho[inner]) - p_inf
        out[f"velocity{suffix}"] = velocity[:, ::stride, ::stride, ::stride].astype(np.float32)
        out[f"pressure{suffix}"] = pressure[::stride, ::stride, ::stride].astype(np.float32)
        out[f"Cp{suffix}"] = (pressure / q_inf)[::stride, ::stride, ::stride].astype(np.float32)
        out[f"vorticity{suffix}"] = vorticity_magnitude(velocity, u.dx_m)[
            ::stride, ::stride, ::stride
        ]
    out["solid"] = ((sim.flags_host[inner] & BODY) != 0).astype(np.uint8)[
        ::stride, ::stride, ::stride
    ]
    return out


def vorticity_magnitude(velocity: np.ndarray, dx_m: float) -> np.ndarray:
    """|curl u| [1/s] of velocity [3, z, y, x] in m/s by central differences (one-sided at the
    box's faces), float32. One derivative at a time: about three fields of extra memory. Along
    an axis one cell thick (a 2D slab) the flow does not vary: its derivatives are zero."""

    def d(component: int, axis: str) -> np.ndarray:
        index = {"x": 2, "y": 1, "z": 0}[axis]
        if velocity.shape[1 + index] < 2:
            return np.zeros(velocity.shape[1:], dtype=velocity.dtype)
        return np.gradient(velocity[component], dx_m, axis=index)

    total = np.square(d(2, "y") - d(1, "z"))
    total += np.square(d(0, "z") - d(2, "x"))
    total += np.square(d(1, "x") - d(0, "y"))
    return np.sqrt(total).astype(np.float32)


def field_origin(sim: Simulation) -> list[float]:
    """Centre of the first physical cell [m] (also of every stride's first sample)."""
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


def write_run_files(
    out: Path,
    case: CaseConfig,
    sim: Simulation | RefinedSimulation,
    result: RunResult,
    backend: Backend,
    flow_statistics: dict | None = None,
) -> dict:
    """config.yaml, forces.csv and summary.json (with flow_statistics, see summary); returns the
    summary."""
    info = summary(case, sim, result, backend, flow_statistics)
    write_text(out / "config.yaml", to_yaml(case))
    write_text(out / "forces.csv", forces_csv(sim, result))
    write_text(out / "summary.json", json.dumps(info, indent=2) + "\n")
    return info
