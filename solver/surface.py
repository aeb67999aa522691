"""Pressure on the body's surface as Cp, sampled from the lattice at surface points (the maps
in surface.vtp and the dataset; the pressure force itself is integrated each step, see
solver/surface_elements.py).

Sampling: the pressure at points 0.5 and 1.5 cells out along the surface normal, each
interpolated trilinearly from the cell centres around it leaving out wall cells (their weights
are dropped and the rest renormalised; periodic axes wrap), extrapolated linearly to the
surface. Reference pressure p_inf: the mean over the first fluid plane after the inlet (the free
stream's static pressure), or the reference density's pressure without an inlet.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver import lattice
from solver.boundary_conditions import Inlet, boundary_conditions
from solver.grid import wall_mask
from solver.law_of_the_wall import friction_velocity
from solver.simulation import Fields, Simulation
from solver.surface_elements import corner_weights, periodic_axes


@dataclass(frozen=True)
class SurfacePressure:
    cp_vertices: np.ndarray  # [n] Cp = (p - p_inf) / (1/2 rho U^2) at the mesh vertices
    pressure_vertices_pa: np.ndarray  # [n] p - p_inf [Pa]


@dataclass(frozen=True)
class SurfaceShear:
    wall_shear_pa: np.ndarray  # [n, 3] wall shear stress on the body at the vertices [Pa]
    y_plus: np.ndarray  # [n] wall distance of the sample point in wall units


def sample_pressure_pa(
    sim: Simulation,
    p_cells: np.ndarray,
    fluid: np.ndarray,
    points_m: np.ndarray,
    normals: np.ndarray,
) -> np.ndarray:
    """Gauge pressure on the surface at the points, from the cells' pressure p_cells [Pa] where
    fluid [z, y, x]: sampled 0.5 and 1.5 cells out along the normals and extrapolated linearly
    to the wall; where only one sample finds fluid around it, that sample."""
    near, far = (
        _trilinear(sim, p_cells, fluid, points_m + d * sim.grid.dx_m * normals) for d in (0.5, 1.5)
    )
    wall = near + 0.5 * (near - far)
    return np.where(np.isfinite(wall), wall, np.where(np.isfinite(near), near, far))


def _trilinear(
    sim: Simulation, values: np.ndarray, fluid: np.ndarray, points_m: np.ndarray
) -> np.ndarray:
    idx, weights = corner_weights(sim.grid, periodic_axes(sim.case), points_m)
    inside = idx[..., 0] >= 0
    z, y, x = (np.where(inside, idx[..., a], 0) for a in (2, 1, 0))
    weights = weights * (inside & fluid[z, y, x])
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 1e-6, (weights * values[z, y, x]).sum(axis=1) / total, np.nan)


def free_stream_density(sim: Simulation, fields: Fields) -> float:
    """Lattice density of the free stream: fields.rho_free_stream where given (a refinement
    level's, from the tunnel level), else the mean over the first fluid plane after the inlet;
    1 (the reference) without an inlet."""
    if fields.rho_free_stream is not None:
        return fields.rho_free_stream
    if not isinstance(boundary_conditions(sim.case).face("x", "min"), Inlet):
        return 1.0
    plane = sim.grid.ghost_lo[0]
    types = sim.flags_host[:, :, plane] & lattice.TYPE_MASK
    return float(fields.rho[:, :, plane][types == lattice.FLUID].mean())


def free_stream_pressure_pa(sim: Simulation, fields: Fields) -> float:
    """Static pressure of the free stream (gauge, Pa; free_stream_density); 0 without an inlet."""
    return float(sim.units.pressure_pa(np.float64(free_stream_density(sim, fields))))


def dynamic_pressure_pa(sim: Simulation) -> float:
    """q = 1/2 rho U^2 of the free stream [Pa]."""
    u = sim.units
    return 0.5 * u.density_kg_m3 * u.speed_m_s**2


def wall_pressure_pa(
    sim: Simulation, fields: Fields, points_m: np.ndarray, normals: np.ndarray
) -> np.ndarray:
    """Gauge pressure p - p_inf [Pa] at points on the body's surface with outward unit normals
    (NaN where no fluid lies around a point)."""
    p_cells = sim.units.pressure_pa(fields.rho)
    fluid = ~wall_mask(sim.flags_host)
    return sample_pressure_pa(sim, p_cells, fluid, points_m, normals) - free_stream_pressure_pa(
        sim, fields
    )


def surface_pressure(
    sim: Simulation, fields: Fields, vertices_m: np.ndarray, faces: np.ndarray
) -> SurfacePressure:
    """Cp and p - p_inf at the vertices of a closed, outward mesh of the body, sampled along the
    vertex normals (the area-weighted mean of the faces' normals around each vertex)."""
    vertex_normal = vertex_normals(vertices_m, faces)
    p_vertices = wall_pressure_pa(sim, fields, vertices_m, vertex_normal)
    return SurfacePressure(
        cp_vertices=p_vertices / dynamic_pressure_pa(sim), pressure_vertices_pa=p_vertices
    )


def surface_shear(
    sim: Simulation, fields: Fields, vertices_m: np.ndarray, faces: np.ndarray
) -> SurfaceShear:
    """The wall shear stress on the body at the mesh vertices by the law of the wall the wall
    model imposes (solver/law_of_the_wall.py): the velocity sampled half a cell out along the
    vertex normal (where the wall model's first cell sits), its part tangential to the surface,
    Spalding's u_tau at that distance, tau_w = rho u_tau^2 along it (the fluid drags the body
    along its flow); and y+ = (dx / 2) u_tau / nu of that point. Zero where no fluid lies around
    a vertex. In the viscous sublayer (a resolved laminar wall) the law is linear, tau_w = mu u /
    y."""
    normals = vertex_normals(vertices_m, faces)
    u = sim.units
    fluid = ~wall_mask(sim.flags_host)
    points = vertices_m + 0.5 * sim.grid.dx_m * normals
    velocity = np.stack(
        [_trilinear(sim, fields.velocity[a] * u.velocity_scale, fluid, points) for a in range(3)],
        axis=1,
    )
    velocity = np.nan_to_num(velocity)
    tangential = velocity - np.sum(velocity * normals, axis=1, keepdims=True) * normals
    speed = np.linalg.norm(tangential, axis=1)
    y_m = 0.5 * sim.grid.dx_m
    u_tau = friction_velocity(speed, y_m, u.nu_m2_s)
    direction = tangential / np.maximum(speed, 1e-300)[:, None]
    shear = u.density_kg_m3 * (u_tau**2)[:, None] * direction
    return SurfaceShear(wall_shear_pa=shear, y_plus=y_m * u_tau / u.nu_m2_s)


def vertex_normals(vertices_m: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Outward unit normals at the vertices: the area-weighted mean of the faces' normals around
    each."""
    a, b, c = (vertices_m[faces[:, i]] for i in range(3))
    cross = np.cross(b - a, c - a)
    normal = np.zeros_like(vertices_m)
    for i in range(3):
        np.add.at(normal, faces[:, i], cross)
    return normal / np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-300)
