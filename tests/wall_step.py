"""One kernel step of a periodic box around a body given by its signed distance (cells), from a
given flow at equilibrium, with the wall model about the true surface: the harness of the
wall-model tests."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver import lattice
from solver.grid import body_neighbour_index, links_into_body
from solver.kernel_params import pack_params, plain_box_values
from solver.wall_fill import mark_bulk
from solver.wall_geometry import slot_wall_geometry


@dataclass(frozen=True)
class WallStep:
    force: np.ndarray  # [3, 3]: the body's momentum exchange, pressure and friction in the step
    cell_force: np.ndarray  # [n_slots, 3, 3]: the same per slot
    wall: np.ndarray  # [n_slots, 6] the wall record (normal, distance, area, edge)
    cells: np.ndarray  # [n_slots, 3] the slots' cells (z, y, x)
    into: np.ndarray  # [n_slots, 18] bool: the slots' links into the body


def link_fractions(phi: np.ndarray, cells: np.ndarray, into: np.ndarray) -> np.ndarray:
    """Wall fractions of the links into the body where phi < 0, phi linear along each link."""
    shape = np.array(phi.shape)
    out = np.zeros(into.shape, np.float32)
    here = phi[cells[:, 0], cells[:, 1], cells[:, 2]]
    for q in range(18):
        src = (cells - lattice.C[q + 1][::-1]) % shape
        there = phi[src[:, 0], src[:, 1], src[:, 2]]
        use = into[:, q]
        out[use, q] = here[use] / (here[use] - there[use])
    return out


def wall_step(
    backend,
    phi: np.ndarray,
    velocity: np.ndarray,
    nu: float,
    sample_cells: int = 4,
    collision: str = "entropic",
    body_rule: str = "surface",
    density: np.ndarray | None = None,
) -> WallStep:
    """phi: signed distance from the surface [z, y, x] in cells, negative in the body, linear along
    each link near the wall; velocity: [3, z, y, x] lattice units, or a 3-vector for a uniform
    flow; density: [z, y, x] (default 1); body_rule: walls.body_rule's value."""
    nz, ny, nx = phi.shape
    n = phi.size
    flags = np.zeros(phi.shape, np.uint8)
    body = phi < 0
    flags[body] = lattice.SOLID | lattice.BODY
    mark_bulk(flags)
    slot = body_neighbour_index(flags)
    flags[slot >= 0] &= ~np.uint8(lattice.BULK)
    cells = np.argwhere(slot >= 0)
    into = links_into_body(slot, body)
    q = link_fractions(phi, cells, into)
    wall = slot_wall_geometry(flags, slot, q, np.array([True, True, True]))
    stride = lattice.plane_stride(n)
    moments = np.zeros((4, n), np.float32)
    moments[0] = 1.0 if density is None else np.asarray(density, np.float32).reshape(-1)
    velocity = np.broadcast_to(np.asarray(velocity, np.float32).reshape(3, -1), (3, n))
    moments[1:] = velocity
    src = np.zeros(19 * stride, np.float32)
    backend.init_equilibrium(src, moments.reshape(-1), n, stride, lattice.COLLISIONS[collision])
    dst = src.copy()
    n_slots = len(cells)
    values = plain_box_values(flags, 0.5 + 3 * nu, lattice.COLLISIONS[collision], 0.16**2)
    values.update(
        boundary_index=slot,
        cell_force=np.zeros((n_slots, 3, 3), np.float32),
        link_q=q,
        slot_area=np.zeros((n_slots, 3), np.float32),
        slot_wall=wall,
        interpolated=1,
        wall_model=lattice.WALL_MODELS["loglaw"],
        wall_sample=sample_cells,
        wall_body_rule=lattice.WALL_BODY_RULES[body_rule],
        nu_lattice=nu,
    )
    params = pack_params(values, backend.address)
    force = np.zeros((3, 3))
    backend.step(src, dst, params, force)
    cell_force = np.array(params["cell_force"], dtype=np.float64)
    return WallStep(force, cell_force, wall, cells, into)


def spalding_u_plus(y_plus: np.ndarray) -> np.ndarray:
    """u+ of Spalding's law at y+ (bisection, vectorized)."""
    kappa, b = 0.41, 5.2
    y_plus = np.asarray(y_plus, float)
    lo, hi = np.zeros_like(y_plus), np.full_like(y_plus, 200.0)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        k = kappa * mid
        y_of_mid = mid + math.exp(-kappa * b) * (np.exp(k) - 1 - k - k * k / 2 - k**3 / 6)
        lo, hi = np.where(y_of_mid < y_plus, mid, lo), np.where(y_of_mid < y_plus, hi, mid)
    return 0.5 * (lo + hi)
