"""Spalding's (1961, J. Appl. Mech. 28, 455) law of the wall, the one the wall model imposes
(cuda/lbm_wall_model.cuh), for the host: the friction velocity of a speed at a wall distance.

    y+ = u+ + exp(-kappa B) [exp(kappa u+) - 1 - kappa u+ - (kappa u+)^2 / 2 - (kappa u+)^3 / 6]

with u+ = u / u_tau, y+ = y u_tau / nu. Any consistent units.
"""

from __future__ import annotations

import numpy as np

#: von Karman constant and log-law intercept, u+ = ln(y+) / KAPPA + B in the log layer.
KAPPA, B = 0.41, 5.2


def spalding_u_plus(re_y: np.ndarray) -> np.ndarray:
    """u+ at Re_y = u y / nu: the root of u+ (u+ + g(u+)) = Re_y by Newton's method from the
    kernel's start (convex and increasing, so it converges from any positive start)."""
    re_y = np.maximum(np.asarray(re_y, np.float64), 1e-30)
    e_kb = np.exp(-KAPPA * B)
    up = np.minimum(np.sqrt(re_y), np.log(np.maximum(re_y, 1.0)) / KAPPA + B)
    for _ in range(12):
        ku = np.minimum(KAPPA * up, 30.0)
        poly2 = 1.0 + ku + 0.5 * ku * ku
        g = e_kb * (np.exp(ku) - poly2 - ku**3 / 6.0)
        dg = e_kb * KAPPA * (np.exp(ku) - poly2)
        up = up - (up * (up + g) - re_y) / (2.0 * up + g + up * dg)
    return up


def friction_velocity(speed: np.ndarray, y: float | np.ndarray, nu: float) -> np.ndarray:
    """u_tau for tangential speed |u_t| at wall distance y (0 where the speed is 0)."""
    speed = np.abs(np.asarray(speed, np.float64))
    return np.where(speed > 0, speed / spalding_u_plus(speed * y / nu), 0.0)
