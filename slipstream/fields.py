"""A run's results in physical units: the flow field on the box's cells (no boundary layers) and
Cp on the body's skin."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.errors import SlipstreamError
from solver.refined_simulation import RefinedSimulation
from solver.results import physical_fields
from solver.run_state import RunResult
from solver.simulation import FORCE_FRICTION, FORCE_PRESSURE, FORCE_TOTAL, Fields, Simulation
from solver.surface import surface_pressure


@dataclass(frozen=True)
class FlowField:
    """One level's fields on the cells of the physical box, arrays [z, y, x] (vectors [3, z, y, x]):
    the cell centres along each axis [m], the velocity [m/s], the pressure p - p_inf [Pa], Cp,
    and the body's cells."""

    x_m: np.ndarray
    y_m: np.ndarray
    z_m: np.ndarray
    velocity_m_s: np.ndarray
    pressure_pa: np.ndarray
    cp: np.ndarray
    solid: np.ndarray  # bool


@dataclass(frozen=True)
class SurfaceCp:
    """Cp and p - p_inf [Pa] at each vertex of the body's surface (vertices [m], triangles)."""

    vertices_m: np.ndarray
    faces: np.ndarray
    cp: np.ndarray
    pressure_pa: np.ndarray


@dataclass(frozen=True)
class Forces:
    """The force on the body [N] (x, y, z), averaged over the run's reported window: the total
    (momentum exchange) and the surface integrals of the pressure and the viscous stress (NaN
    without an attached surface)."""

    total_n: np.ndarray
    pressure_n: np.ndarray
    friction_n: np.ndarray


def forces(sim: Simulation | RefinedSimulation, result: RunResult) -> Forces:
    """The result's mean force on the body in newtons (summary.json's force_n and its parts)."""
    force_n = result.force_mean_lattice * sim.units.force_scale_n
    parts = (force_n[FORCE_PRESSURE], force_n[FORCE_FRICTION])
    if not sim.has_surface:
        parts = (np.full(3, np.nan), np.full(3, np.nan))
    return Forces(force_n[FORCE_TOTAL].copy(), *parts)


def _state(result: RunResult | Fields) -> Fields:
    """The time-averaged fields of a run that averaged, its final ones otherwise, or fields."""
    return result.best_fields if isinstance(result, RunResult) else result


def flow_field(sim: Simulation | RefinedSimulation, result: RunResult | Fields) -> FlowField:
    """The body's level (the finest) of a run's result (or of fields of that level, e.g.
    sim.finest.fields()) in physical units, without the grid's boundary layers."""
    level = sim.finest
    arrays = physical_fields(level, _state(result))
    inner = level.grid.interior()
    x, y, z = (level.grid.centers(a)[inner[2 - a]] for a in range(3))
    return FlowField(
        x_m=x,
        y_m=y,
        z_m=z,
        velocity_m_s=arrays["velocity"],
        pressure_pa=arrays["pressure"],
        cp=arrays["Cp"],
        solid=arrays["solid"].astype(bool),
    )


def surface_cp(sim: Simulation | RefinedSimulation, result: RunResult | Fields) -> SurfaceCp:
    """Cp on the attached body surface (slipstream.simulation attaches it) from the result's
    fields, sampled as surface.vtp's."""
    level = sim.finest
    if not len(level.surface_faces):
        raise SlipstreamError(
            "the simulation has no body surface attached: build it with slipstream.simulation"
        )
    surface = surface_pressure(level, _state(result), level.surface_vertices_m, level.surface_faces)
    return SurfaceCp(
        vertices_m=level.surface_vertices_m,
        faces=level.surface_faces,
        cp=surface.cp_vertices,
        pressure_pa=surface.pressure_vertices_pa,
    )
