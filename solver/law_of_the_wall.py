"""Spalding's (1961, J. Appl. Mech. 28, 455) law of the wall, the one the wall model imposes
(cuda/lbm_wall_model.cuh), for the host: the friction velocity of a speed at a wall distance.

    y+ = u+ + exp(-kappa B) [exp(kappa u+) - 1 - kappa u+ - (kappa u+)^2 / 2 - (kappa u+)^3 / 6]

with u+ = u / u_tau, y+ = y u_tau / nu. Any consistent units.
"""

from __future__ import annotations

import re

import numpy as np

from solver.lattice import CUDA_DIR

#: von Karman constant and log-law intercept, u+ = ln(y+) / KAPPA + B in the log layer.
KAPPA, B = 0.41, 5.2


def _g_and_slope(up: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """g(u+) of Spalding's law and its derivative dg/du+."""
    e_kb = np.exp(-KAPPA * B)
    ku = np.minimum(KAPPA * up, 30.0)
    poly2 = 1.0 + ku + 0.5 * ku * ku
    return e_kb * (np.exp(ku) - poly2 - ku**3 / 6.0), e_kb * KAPPA * (np.exp(ku) - poly2)


def spalding_u_plus(re_y: np.ndarray) -> np.ndarray:
    """u+ at Re_y = u y / nu: the root of u+ (u+ + g(u+)) = Re_y by Newton's method from the
    smaller of the viscous sublayer's and the log law's u+ (the function is convex and
    increasing, so it converges from any positive start)."""
    re_y = np.maximum(np.asarray(re_y, np.float64), 1e-30)
    up = np.minimum(np.sqrt(re_y), np.log(np.maximum(re_y, 1.0)) / KAPPA + B)
    for _ in range(12):
        g, dg = _g_and_slope(up)
        up = up - (up * (up + g) - re_y) / (2.0 * up + g + up * dg)
    return up


def _table_layout() -> dict[str, int]:
    """The table's LBM_SPALDING_* layout as cuda/lbm_wall_model.cuh defines it."""
    text = (CUDA_DIR / "lbm_wall_model.cuh").read_text()
    pattern = r"#define LBM_SPALDING_(\w+)\s+\(?(-?\d+)\)?"
    return {m[1]: int(m[2]) for m in re.finditer(pattern, text)}


def spalding_table() -> np.ndarray:
    """The kernels' table of Spalding's law (LbmParams.spalding, cuda/lbm_wall_model.cuh):
    float32 [segments, 4], per segment of Re_y (2^SPLIT_BITS to an octave, OCTAVES octaves from
    2^LOG2_MIN) u+ at its start, du+/ds there, u+ at its end and du+/ds there, s in [0, 1] along
    the segment (du+/ds = (Re_end - Re_start) / (dRe_y/du+), dRe_y/du+ = 2u+ + g + u+ g')."""
    layout = _table_layout()
    split = 2 ** layout["SPLIT_BITS"]
    octave = 2.0 ** np.arange(layout["LOG2_MIN"], layout["LOG2_MIN"] + layout["OCTAVES"])
    start = (octave[:, None] * (1.0 + np.arange(split) / split)).reshape(-1)
    width = np.repeat(octave / split, split)
    table = np.empty((start.size, 4))
    for column, re_y in ((0, start), (2, start + width)):
        up = spalding_u_plus(re_y)
        g, dg = _g_and_slope(up)
        table[:, column] = up
        table[:, column + 1] = width / (2.0 * up + g + up * dg)
    return table.astype(np.float32)


def friction_velocity(speed: np.ndarray, y: float | np.ndarray, nu: float) -> np.ndarray:
    """u_tau for tangential speed |u_t| at wall distance y (0 where the speed is 0)."""
    speed = np.abs(np.asarray(speed, np.float64))
    return np.where(speed > 0, speed / spalding_u_plus(speed * y / nu), 0.0)
