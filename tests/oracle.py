"""A plain NumPy D3Q19 BGK step (incompressible equilibrium) for fully periodic boxes: the tests' independent reference for
what the kernels compute (unshifted populations, double precision, textbook formulas)."""

from __future__ import annotations

import numpy as np

from solver.lattice import C, W


def equilibrium(rho: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Incompressible f_eq[q, ...] (He & Luo 1997) for density rho[...] and velocity u[3, ...]:
    w (rho + 3 c.u + 9/2 (c.u)^2 - 3/2 u.u), reference density 1."""
    cu = np.einsum("qa,a...->q...", C.astype(float), u)
    usq = np.einsum("a...,a...->...", u, u)
    return W.reshape(-1, *[1] * rho.ndim) * (rho + 3 * cu + 4.5 * cu**2 - 1.5 * usq)


def moments(f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rho = f.sum(axis=0)
    u = np.einsum("qa,q...->a...", C.astype(float), f)
    return rho, u


def step_periodic(f: np.ndarray, tau: float, cs_smag: float = 0.0) -> np.ndarray:
    """Pull-stream then BGK(-Smagorinsky)-collide; f[q, z, y, x] holds post-collision values."""
    pulled = np.stack([np.roll(f[q], shift=(C[q, 2], C[q, 1], C[q, 0]), axis=(0, 1, 2)) for q in range(19)])
    rho, u = moments(pulled)
    feq = equilibrium(rho, u)
    neq = pulled - feq
    pi = np.einsum("qa,qb,q...->ab...", C.astype(float), C.astype(float), neq)
    pi_norm = np.sqrt(np.einsum("ab...,ab...->...", pi, pi))
    tau_eff = 0.5 * (tau + np.sqrt(tau**2 + 18 * np.sqrt(2) * cs_smag**2 * pi_norm))
    return pulled - (pulled - feq) / tau_eff
