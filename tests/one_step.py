"""One CPU step of a periodic box past a volumetric wall, for the tests that hold the kernels to
the NumPy oracle (tests/test_volumetric_wall.py, tests/test_volumetric_projected.py)."""

from __future__ import annotations

import numpy as np
from oracle import equilibrium

from solver import lattice
from solver.kernel_params import pack_params, plain_box_values
from solver.lattice import C, W
from solver.wall_fill import mark_bulk

#: The relaxation time of the step (BGK).
TAU = 0.7


def flowing_state(fluid: np.ndarray, seed: int) -> np.ndarray:
    """A flow at 0.05 along x with random non-equilibrium parts (2e-3 of w_q), zero where there
    is no fluid: populations [q, z, y, x]."""
    rng = np.random.default_rng(seed)
    velocity = np.zeros((3, *fluid.shape))
    velocity[0] = 0.05
    f = equilibrium(np.ones(fluid.shape), velocity)
    f += 2e-3 * rng.standard_normal(f.shape) * W[:, None, None, None]
    return f * fluid


def box_values(fluid: np.ndarray, slot_cell: np.ndarray, walls: np.ndarray | None) -> dict:
    """The plain box's LbmParams fields (BGK at TAU) with the body's cells solid, the domain's
    walls (bool [z, y, x], or None) solid, and the wall's slots off the bulk path."""
    flags = np.where(fluid, 0, lattice.SOLID | lattice.BODY).astype(np.uint8)
    if walls is not None:
        flags[walls] = lattice.SOLID
    mark_bulk(flags)
    flags.reshape(-1)[slot_cell] &= ~np.uint8(lattice.BULK)
    return plain_box_values(flags, TAU, lattice.COLLISIONS["bgk"])


def cpu_step(cpu, values: dict, f: np.ndarray, fluid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One step of the CPU kernels from populations f [q, z, y, x] (stored shifted); returns the
    new populations and the forces [3 kinds, 3 axes]."""
    n = fluid.size
    stride = lattice.plane_stride(n)
    src = np.zeros(len(C) * stride, np.float32)
    src.reshape(len(C), stride)[:, :n] = (f - W[:, None, None, None] * fluid).reshape(len(C), n)
    dst = np.zeros_like(src)
    force = np.zeros((3, 3))
    cpu.step(src, dst, pack_params(values, cpu.address), force)
    got = dst.reshape(len(C), stride)[:, :n].reshape(f.shape) + W[:, None, None, None]
    return got, force
