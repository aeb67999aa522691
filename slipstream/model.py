"""The model of a case: its simulation on a backend, with the body's surface attached for the
pressure and friction integrals and Cp on the skin."""

from __future__ import annotations

import numpy as np

from shapes.case_geometry import case_mesh
from shapes.mesh import TriangleMesh
from shapes.solids import primitive_surface
from slipstream.case import checked_case
from solver.backends import select_backend
from solver.config import CaseConfig
from solver.refined_simulation import RefinedSimulation, make_simulation
from solver.simulation import Simulation


def body_surface(
    case: CaseConfig, sim: Simulation | RefinedSimulation, mesh: TriangleMesh | None
) -> TriangleMesh | None:
    """The body's surface for Cp: its mesh, or a tessellation of the analytic primitive."""
    if mesh is not None or case.body.shape == "none":
        return mesh
    b = case.body
    lo = np.asarray(case.domain.origin_m, float)
    return primitive_surface(
        b.shape,
        b.center_m,
        b.radius_m,
        b.size_m,
        "xyz".index(b.axis),
        lo,
        lo + np.asarray(case.domain.size_m, float),
        sim.units.dx_m,
    )


def simulation(case: CaseConfig, backend: str = "auto") -> Simulation | RefinedSimulation:
    """The checked case's simulation on backend (auto | cpu | cuda), one grid or its refinement
    levels, with the body's surface attached (surface_cp and write_results read it back)."""
    case = checked_case(case)
    mesh = case_mesh(case)
    sim = make_simulation(case, select_backend(backend), mesh)
    attach_body_surface(case, sim, mesh)
    return sim


def attach_body_surface(
    case: CaseConfig, sim: Simulation | RefinedSimulation, mesh: TriangleMesh | None
) -> TriangleMesh | None:
    """Attach the body's surface (body_surface) to sim; the surface, or None without a body."""
    surface = body_surface(case, sim, mesh)
    if surface is not None:
        sim.attach_surface(surface.vertices_m, surface.faces, *surface.parts())
    return surface


def body_mesh(sim: Simulation | RefinedSimulation) -> TriangleMesh | None:
    """The body surface attached to sim (attach_body_surface), as a mesh; None without one."""
    level = sim.finest
    if not len(level.surface_faces):
        return None
    labelled = level.surface_part_names != ("body",)
    return TriangleMesh(
        level.surface_vertices_m,
        level.surface_faces,
        level.surface_face_part if labelled else None,
        level.surface_part_names if labelled else (),
    )
