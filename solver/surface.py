"""Pressure on the body's surface: sampled from the lattice at surface points, as Cp, and
integrated into the pressure part of the force (the rest of the momentum-exchange force is the
viscous part).

Sampling: the pressure at points 0.5 and 1.5 cells out along the surface normal, each
interpolated trilinearly from the cell centres around it leaving out wall cells (their weights
are dropped and the rest renormalised), extrapolated linearly to the surface. Reference pressure
p_inf: the mean over the first fluid plane after the inlet (the free stream's static pressure),
or the reference density's pressure without an inlet.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from solver import lattice
from solver.grid import wall_mask
from solver.simulation import Fields, Simulation

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SurfacePressure:
    cp_vertices: np.ndarray        # [n] Cp = (p - p_inf) / (1/2 rho U^2) at the mesh vertices
    pressure_vertices_pa: np.ndarray  # [n] p - p_inf [Pa]
    force_pressure_n: np.ndarray   # [3] pressure force on the body, - sum p n A over faces [N]
    cd_pressure: float             # its drag coefficient (same reference area as Cd)
    cl_pressure: float


def sample_pressure_pa(sim: Simulation, p_cells: np.ndarray, fluid: np.ndarray, points_m: np.ndarray,
                       normals: np.ndarray) -> np.ndarray:
    """Gauge pressure on the surface at the points, from the cells' pressure p_cells [Pa] where
    fluid [z, y, x]: sampled 0.5 and 1.5 cells out along the normals and extrapolated linearly
    to the wall; where only one sample finds fluid around it, that sample."""
    near, far = (_trilinear(sim, p_cells, fluid, points_m + d * sim.grid.dx_m * normals) for d in (0.5, 1.5))
    wall = near + 0.5 * (near - far)
    return np.where(np.isfinite(wall), wall, np.where(np.isfinite(near), near, far))


def _trilinear(sim: Simulation, values: np.ndarray, fluid: np.ndarray, points_m: np.ndarray) -> np.ndarray:
    grid = sim.grid
    first = np.array([grid.centers(a)[0] for a in range(3)])
    f = (points_m - first) / grid.dx_m                # fractional (x, y, z) cell index
    base = np.floor(f).astype(np.int64)
    t = f - base
    shape_xyz = np.array([grid.nx, grid.ny, grid.nz])
    total = np.zeros(len(points_m))
    weight = np.zeros(len(points_m))
    for corner in np.ndindex(2, 2, 2):
        idx = base + np.array(corner)
        inside = np.all((idx >= 0) & (idx < shape_xyz), axis=1)
        idx = np.clip(idx, 0, shape_xyz - 1)
        w = np.prod(np.where(np.array(corner) == 1, t, 1 - t), axis=1) * inside
        ok = fluid[idx[:, 2], idx[:, 1], idx[:, 0]]
        w = w * ok
        total += w * values[idx[:, 2], idx[:, 1], idx[:, 0]]
        weight += w
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weight > 1e-6, total / weight, np.nan)


def free_stream_pressure_pa(sim: Simulation, fields: Fields) -> float:
    """Static pressure of the free stream: the mean over the first fluid plane after the inlet
    (gauge, Pa); 0 without an inlet."""
    if sim.case.domain.boundaries.x_min != "inlet":
        return 0.0
    plane = sim.grid.ghost_lo[0]
    types = sim.flags_host[:, :, plane] & lattice.TYPE_MASK
    p = sim.units.pressure_pa(fields.rho[:, :, plane])
    return float(p[types == lattice.FLUID].mean())


def dynamic_pressure_pa(sim: Simulation) -> float:
    """q = 1/2 rho U^2 of the free stream [Pa]."""
    u = sim.units
    return 0.5 * u.density_kg_m3 * u.speed_m_s**2


def wall_pressure_pa(sim: Simulation, fields: Fields, points_m: np.ndarray, normals: np.ndarray) -> np.ndarray:
    """Gauge pressure p - p_inf [Pa] at points on the body's surface with outward unit normals
    (NaN where no fluid lies around a point)."""
    p_cells = sim.units.pressure_pa(fields.rho)
    fluid = ~wall_mask(sim.flags_host)
    return sample_pressure_pa(sim, p_cells, fluid, points_m, normals) - free_stream_pressure_pa(sim, fields)


def surface_pressure(sim: Simulation, fields: Fields, vertices_m: np.ndarray, faces: np.ndarray) -> SurfacePressure:
    """Cp at the vertices of a closed, outward mesh of the body and the pressure force from
    face-centre samples: F = -sum (p - p_inf) n A."""
    a, b, c = (vertices_m[faces[:, i]] for i in range(3))
    cross = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(cross, axis=1)
    face_normal = cross / np.maximum(2 * area, 1e-300)[:, None]
    vertex_normal = np.zeros_like(vertices_m)
    for i in range(3):
        np.add.at(vertex_normal, faces[:, i], cross)
    vertex_normal /= np.maximum(np.linalg.norm(vertex_normal, axis=1, keepdims=True), 1e-300)
    centres = (a + b + c) / 3
    p_both = wall_pressure_pa(sim, fields, np.concatenate([centres, vertices_m]),
                              np.concatenate([face_normal, vertex_normal]))
    p_faces, p_vertices = p_both[:len(faces)], p_both[len(faces):]
    known = np.isfinite(p_faces)
    if not known.all():
        log.warning("%d faces (%.2g%% of the area) found no fluid to sample and are left out of "
                    "the pressure force", int((~known).sum()), 100 * area[~known].sum() / area.sum())
    force = -np.sum((p_faces[known] * area[known])[:, None] * face_normal[known], axis=0)
    q_inf = dynamic_pressure_pa(sim)
    area_ref = sim.reference_area_m2 or np.nan
    return SurfacePressure(
        cp_vertices=p_vertices / q_inf, pressure_vertices_pa=p_vertices, force_pressure_n=force,
        cd_pressure=float(force[0] / (q_inf * area_ref)),
        cl_pressure=float(force[sim.lift_axis] / (q_inf * area_ref)),
    )
