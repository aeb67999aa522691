#!/usr/bin/env python3
"""How well the entropic collision's projection solve is replaced by an expansion about u = 0
(issue 28: the 6 x 6 projection was half of the LES kernel's arithmetic; the kernel now takes
the Neumann step below, cuda/lbm_collision.cuh, lbm_entropic_polynomial).

The operator fits the non-equilibrium populations by E times a quadratic polynomial of c; its
coefficients lambda solve K(u) lambda = pi, K the Schur complement of the covariances of the
quadratic monomials and c under E(u) / rho (cuda/lbm_collision.cuh, lbm_entropic_polynomial).
K is even in u (c -> -c maps E(u) onto E(-u)), so K(u) = K0 + Q(u) + O(u^4), K0 diagonal and
Q quadratic in u. Three approximations of lambda, against the exact solve, in float64 with
tests/oracle.py's entropic equilibrium, the worst relative error of lambda over 200 random
directions of u and random pi per speed:

    K0          lambda = K0^-1 pi                      (the u = 0 regularization)
    K0+Q solve  lambda = (K0 + Q(u))^-1 pi
    Neumann     lambda = K0^-1 pi - K0^-1 Q(u) K0^-1 pi  (no solve)

    python benchmarks/projection_expansion.py

Q in closed form (K0 = diag(2/9, 2/9, 2/9, 1/9, 1/9, 1/9) in the order xx, yy, zz, xy, xz, yz):
    Q[xx,xx] = -u_x^2 (likewise yy, zz);  Q[yy,zz] = Q[yz,yz] = -u_x^2 / 6 (likewise by cycling);
    Q[zz,xy] = Q[xz,yz] = -u_x u_y / 3;  Q[yy,xz] = Q[xy,yz] = -u_x u_z / 3;
    Q[xx,yz] = Q[xy,xz] = -u_y u_z / 3;  every other entry 0,
checked here against K's second differences at h = 1e-3. Ends with one JSON line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from oracle import stress_covariance  # noqa: E402  (the NumPy reference of the collision)

SPEEDS = (0.05, 0.1, 0.15, 0.2, 0.3)


def second_order(h: float = 1e-3) -> np.ndarray:
    """M[a, b] = d2K / du_a du_b at u = 0, so that Q(u) = u_a u_b M[a, b] / 2."""
    m = np.zeros((3, 3, 6, 6))
    for a in range(3):
        for b in range(3):
            ea, eb = np.eye(3)[a] * h, np.eye(3)[b] * h
            m[a, b] = (
                stress_covariance(ea + eb)
                - stress_covariance(ea - eb)
                - stress_covariance(-ea + eb)
                + stress_covariance(-ea - eb)
            ) / (4 * h * h)
    return m


def q_closed(u: np.ndarray) -> np.ndarray:
    """Q(u), the second-order term of K about u = 0, in closed form (the module's docstring)."""
    x, y, z = u
    q = np.diag([-x * x, -y * y, -z * z, -z * z / 6, -y * y / 6, -x * x / 6])
    for (i, j), value in {
        (1, 2): -x * x / 6,
        (0, 2): -y * y / 6,
        (0, 1): -z * z / 6,
        (2, 3): -x * y / 3,
        (4, 5): -x * y / 3,
        (1, 4): -x * z / 3,
        (3, 5): -x * z / 3,
        (0, 5): -y * z / 3,
        (3, 4): -y * z / 3,
    }.items():
        q[i, j] = q[j, i] = value
    return q


def main() -> int:
    k0 = stress_covariance(np.zeros(3))
    k0_inv = np.linalg.inv(k0)
    m = second_order()
    rng = np.random.default_rng(0)
    table = {}
    closed_vs_differences = 0.0
    print("worst relative error of lambda over 200 random u and pi")
    print("|u|    K0        K0+Q solve  Neumann")
    for speed in SPEEDS:
        worst = {"K0": 0.0, "K0+Q solve": 0.0, "Neumann": 0.0}
        for _ in range(200):
            d = rng.normal(size=3)
            u = speed * d / np.linalg.norm(d)
            pi = rng.normal(size=6)
            q = q_closed(u)
            q_differences = 0.5 * np.einsum("a,b,abij->ij", u, u, m)
            closed_vs_differences = max(
                closed_vs_differences, float(np.abs(q - q_differences).max() / np.abs(q).max())
            )
            exact = np.linalg.solve(stress_covariance(u), pi)
            approx = {
                "K0": k0_inv @ pi,
                "K0+Q solve": np.linalg.solve(k0 + q, pi),
                "Neumann": k0_inv @ pi - k0_inv @ q @ (k0_inv @ pi),
            }
            for name, value in approx.items():
                error = np.linalg.norm(value - exact) / np.linalg.norm(exact)
                worst[name] = max(worst[name], float(error))
        table[speed] = worst
        print(
            f"{speed:<5}  {worst['K0']:.1e}   {worst['K0+Q solve']:.1e}     {worst['Neumann']:.1e}"
        )
    off_diagonal = float(np.abs(k0 - np.diag(np.diag(k0))).max())
    print(f"K0's largest off-diagonal entry: {off_diagonal:.1e}; K0's diagonal {np.diag(k0)}")
    print(f"closed-form Q against K's second differences: {closed_vs_differences:.1e} (relative)")
    summary = {
        "k0_off_diagonal": off_diagonal,
        "closed_form_q_vs_differences": closed_vs_differences,
        "worst_relative_error": table,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
