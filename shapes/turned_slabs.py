"""A periodic family of parallel slabs turned about the x axis: the walls of a plane channel whose
normal (0, A, B) / |(A, B)| makes the angle atan(A / B) with the grid's z axis, for the
orientation checks of the wall model (benchmarks/turned_channel.py, benchmarks/staircase_slip.py,
tests/test_wall_pool.py). Rational tangents keep the walls periodic in y and z: the box is one
period of the family along s = A y + B z, each gap 2h of fluid between slabs at least h/2 thick,
h = 1 m at 16 cells, the walls 0.3183 in s off the cell centres.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from shapes.case_geometry import CASE_SCHEMA
from shapes.mesh import TriangleMesh, check_mesh
from shapes.solids import box
from solver.config import CaseConfig, load_case

CHANNEL_CASE = Path(__file__).resolve().parent.parent / "cases" / "channel.yaml"

CELLS_PER_H = 16
DX_M = 1.0 / CELLS_PER_H  # h = 1 m
LENGTH_CELLS = 101  # 2 pi h
WIDTH_CELLS_ALONG_GRID = 50  # pi h, the 0:1 channel's span
MIN_WALL_H = 0.5  # the slabs' least thickness [h]
OFFSET_S = 0.3183  # the walls' offset from the cell centres, in units of s = A y + B z [cells]


def period_cells(a: int, b: int) -> int:
    """The period of the slab family along s = a y + b z [cells]: a gap of 2h and a wall of at
    least MIN_WALL_H h along the normal, rounded up to a multiple of a and b."""
    norm = math.hypot(a, b)
    least = math.ceil((2.0 + MIN_WALL_H) * CELLS_PER_H * norm)
    step = math.lcm(max(a, 1), max(b, 1))
    return -(-least // step) * step


def box_cells(a: int, b: int) -> tuple[int, int, int]:
    """The periodic box (x, y, z) in cells: one period of the walls in y and z."""
    period = period_cells(a, b)
    ny = period // a if a else WIDTH_CELLS_ALONG_GRID
    return LENGTH_CELLS, ny, period // b


def wall_slabs(a: int, b: int) -> TriangleMesh:
    """The walls: every slab of the family that crosses the box, as closed boxes running 1 m past
    the box's ends in x and past its corners along the walls (the grid is periodic, so the links
    that leave the box reach the slabs beyond it)."""
    nx, ny, nz = box_cells(a, b)
    norm = math.hypot(a, b)
    normal, along = np.array([a, b]) / norm, np.array([-b, a]) / norm  # (y, z); det = +1
    period_m = period_cells(a, b) * DX_M / norm
    offset_m = OFFSET_S * DX_M / norm
    gap_m = 2.0  # 2h
    corners = np.array([[y, z] for y in (0.0, ny * DX_M) for z in (0.0, nz * DX_M)])
    d, t = corners @ normal, corners @ along
    first = math.floor((d.min() - offset_m) / period_m) - 1
    last = math.ceil((d.max() - offset_m) / period_m) + 1
    vertices, faces = [], []
    for m in range(first, last + 1):
        lo = np.array([-1.0, offset_m + m * period_m + gap_m, t.min() - 1.0])  # (x, d, t)
        hi = np.array([nx * DX_M + 1.0, offset_m + (m + 1) * period_m, t.max() + 1.0])
        unit = box(hi - lo, 0.5 * (lo + hi))
        x, dd, tt = unit.vertices_m.T
        yz = dd[:, None] * normal + tt[:, None] * along
        faces.append(unit.faces + sum(len(v) for v in vertices))
        vertices.append(np.column_stack([x, yz]))
    mesh = TriangleMesh(np.concatenate(vertices), np.concatenate(faces))
    check_mesh(mesh, f"walls {a}:{b}")
    return mesh


def wall_distance_cells(a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """For the cells of the section [z, y]: whether each lies in a gap, and its distance from the
    nearer wall along the normal [cells] (the slabs' mesh, not the voxels)."""
    _, ny, nz = box_cells(a, b)
    norm = math.hypot(a, b)
    z, y = np.meshgrid(np.arange(nz) + 0.5, np.arange(ny) + 0.5, indexing="ij")
    across = ((a * y + b * z - OFFSET_S) % period_cells(a, b)) / norm  # from the gap's lower wall
    gap = 2.0 * CELLS_PER_H
    return across < gap, np.minimum(across, gap - across)


def staircase_case(a: int, b: int, length_cells: int, overrides: list[str]) -> CaseConfig:
    """channel.yaml's LES between the slabs turned a:b in a box length_cells long, every face
    periodic, no driving force, nu 1e-9 m^2/s (the law of the wall's stress about 2e-4 rho U^2),
    the surface rule; the flow is the caller's to start (Simulation.start_from)."""
    _, ny, nz = box_cells(a, b)
    return load_case(
        CHANNEL_CASE,
        [
            "flow.reynolds_tau=null",
            "flow.nu_m2_s=1.0e-9",
            "flow.initial_perturbation=0.0",
            f"domain.size_m=[{length_cells * DX_M},{ny * DX_M},{nz * DX_M}]",
            "domain.boundaries={x_min: periodic, x_max: periodic, y_min: periodic, "
            "y_max: periodic, z_min: periodic, z_max: periodic}",
            "body.shape=mesh",
            "walls.body_rule=surface",
            *overrides,
        ],
        schema=CASE_SCHEMA,
    )
