"""Statistics of a periodic pipe along x driven by a body force (``geometry.source: pipe``): the
Darcy friction factor and Reynolds numbers, against the Princeton Superpipe's correlation.

Driven at a constant mean pressure gradient g, the statistically steady wall stress balances it:
tau_w = rho g R / 2, u_tau = sqrt(g R / 2), R the bore's radius. The outcome of the simulation is
the bulk velocity U_b = Q / (pi R^2), the flow rate through the bore over the true bore's area
(the interpolated bounce-back puts the wall at R; the mean over the bore's cells would divide by
the voxels' area instead, 3.4% larger at R = 8 cells, tests/test_pipe.py), and with it the Darcy
friction factor f = 8 (u_tau / U_b)^2, Re_D = U_b D / nu and Re_tau = u_tau R / nu. Laminar,
f = 64 / Re_D (Hagen-Poiseuille); turbulent, McKeon et al. (2005, J. Fluid Mech. 538, 429):
1 / sqrt(f) = 1.930 log10(Re_D sqrt(f)) - 0.537. Lattice units throughout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from solver.simulation import Fields, Simulation

#: Below this Re_D the Superpipe correlation is not used (its data start at Re_D 31,000; pipe flow
#: is laminar below about 2,300).
MCKEON_MIN_RE_D = 1.0e4


def mckeon_friction_factor(re_d: float) -> float:
    """Darcy f of McKeon et al. (2005) at Re_D: 1/sqrt(f) = 1.930 log10(Re_D sqrt(f)) - 0.537,
    solved by fixed-point iteration (converged to round-off for Re_D 1e4 .. 1e8); NaN below
    MCKEON_MIN_RE_D."""
    if re_d < MCKEON_MIN_RE_D:
        return math.nan
    f = 0.02
    for _ in range(100):
        f = (1.930 * math.log10(re_d * math.sqrt(f)) - 0.537) ** -2
    return f


@dataclass(frozen=True)
class PipeStatistics:
    u_tau: float  # friction velocity of the driving gradient [lattice]
    u_bulk: float  # flow rate through the bore over pi R^2 [lattice]
    friction_factor: float  # Darcy f = 8 (u_tau / U_b)^2
    re_d: float  # U_b D / nu
    re_tau: float  # u_tau R / nu
    friction_factor_mckeon: float  # McKeon et al. (2005) at re_d; NaN below its range

    def as_dict(self) -> dict:
        mckeon = self.friction_factor_mckeon if math.isfinite(self.friction_factor_mckeon) else None
        return {
            "friction_factor": self.friction_factor,
            "friction_factor_mckeon": mckeon,
            "re_d": self.re_d,
            "re_tau": self.re_tau,
            "u_bulk_plus": self.u_bulk / self.u_tau,
        }


def pipe_statistics(sim: Simulation, fields: Fields, radius_cells: float) -> PipeStatistics:
    """The statistics of the pipe sim from fields (best the time-averaged ones), its bore of radius
    radius_cells (lattice units) along x and driven along x by sim's body acceleration."""
    g = sim.body_accel_lattice[0]
    if not g > 0.0:
        raise ValueError(f"a pipe's statistics need a driving acceleration along +x, not {g}")
    nu = sim.units.nu_lattice
    u_tau = math.sqrt(g * radius_cells / 2.0)
    # per cross-section, cells^2; a volumetric wall's cut cells carry their fluid volume
    volume = sim.volumetric_wall.volume if sim.volumetric_wall is not None else 1.0
    flow_rate = float((fields.velocity[0] * volume)[sim.fluid_mask].sum()) / sim.grid.nx
    u_bulk = flow_rate / (math.pi * radius_cells**2)
    re_d = 2.0 * radius_cells * u_bulk / nu
    return PipeStatistics(
        u_tau=u_tau,
        u_bulk=u_bulk,
        friction_factor=8.0 * (u_tau / u_bulk) ** 2,
        re_d=re_d,
        re_tau=u_tau * radius_cells / nu,
        friction_factor_mckeon=mckeon_friction_factor(re_d),
    )
