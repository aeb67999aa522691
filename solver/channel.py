"""Statistics of a plane channel (``flow.reynolds_tau``): skin friction, Reynolds numbers and the
mean velocity profile in wall units, against the law of the wall and Dean's correlation.

The channel is driven at a constant mean pressure gradient, so in a statistically steady state
the wall stress balances it exactly: tau_w = rho u_tau^2 = rho g h (g the driving acceleration,
h the half-height). The outcome of the simulation is the bulk velocity U_b, and with it
Cf = tau_w / (rho U_b^2 / 2) = 2 (u_tau / U_b)^2 and Re_m = 2 h U_b / nu (Pope 2000, Turbulent
Flows, sec. 7.1). Lattice units throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver.law_of_the_wall import KAPPA, B
from solver.simulation import Fields, Simulation


def dean_cf(re_bulk: float) -> float:
    """Dean's (1978, J. Fluids Eng. 100, 215) correlation Cf = 0.073 Re_m^(-1/4), Re_m = 2 h U_b /
    nu."""
    return 0.073 * re_bulk**-0.25


@dataclass(frozen=True)
class ChannelStatistics:
    u_tau: float  # friction velocity of the driving gradient [lattice]
    u_bulk: float  # mean velocity over the fluid [lattice]
    cf: float  # 2 (u_tau / U_b)^2
    re_tau: float  # u_tau h / nu
    re_bulk: float  # 2 h U_b / nu
    cf_dean: float  # Dean's correlation at re_bulk
    y_plus: np.ndarray  # cell centres of the lower half, in wall units
    u_plus: np.ndarray  # mean x-velocity there, mean of both halves, in wall units
    # largest |u+ / u+_log - 1| over the log layer the LES resolves (see channel_statistics);
    # NaN if no cell
    log_law_error: float

    def as_dict(self) -> dict:
        return {
            "cf": self.cf,
            "re_tau": self.re_tau,
            "re_bulk": self.re_bulk,
            "cf_dean": self.cf_dean,
            "u_bulk_plus": self.u_bulk / self.u_tau,
            "log_law_error": self.log_law_error if math.isfinite(self.log_law_error) else None,
        }


def channel_statistics(sim: Simulation, fields: Fields) -> ChannelStatistics:
    """The statistics of the channel sim from fields (best the time-averaged ones). The walls are
    the y faces; the half-height h is half the fluid's y extent in cells. The log-law comparison
    covers the cells of the log layer (y+ > 30, y < 0.3 h) from the wall model's input cell
    (walls.sample_cells) outwards: the cells below it are under-resolved by design, and the
    model does not read them (docs/solver.md, "Wall model")."""
    fluid = sim.fluid_mask
    rows = np.flatnonzero(fluid.any(axis=(0, 2)))
    n_rows = len(rows)
    h = 0.5 * n_rows
    nu = sim.units.nu_lattice
    u_tau = math.sqrt(sim.body_accel_lattice[0] * h)
    ux = fields.velocity[0]
    u_bulk = float(ux[fluid].mean())
    profile = np.array([ux[:, j, :][fluid[:, j, :]].mean() for j in rows])
    half = n_rows // 2
    mean_half = 0.5 * (profile[:half] + profile[::-1][:half])  # both walls, lower-wall distance
    y = np.arange(half) + 0.5
    y_plus, u_plus = y * u_tau / nu, mean_half / u_tau
    log_layer = (y_plus > 30.0) & (y < 0.3 * h) & (y >= sim.case.walls.sample_cells - 0.5)
    u_log = np.log(y_plus[log_layer]) / KAPPA + B
    error = float(np.max(np.abs(u_plus[log_layer] / u_log - 1.0))) if log_layer.any() else math.nan
    re_bulk = 2.0 * h * u_bulk / nu
    return ChannelStatistics(
        u_tau=u_tau,
        u_bulk=u_bulk,
        cf=2.0 * (u_tau / u_bulk) ** 2,
        re_tau=u_tau * h / nu,
        re_bulk=re_bulk,
        cf_dean=dean_cf(re_bulk),
        y_plus=y_plus,
        u_plus=u_plus,
        log_law_error=error,
    )
