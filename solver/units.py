"""Physical <-> lattice units.

A case speaks metres, seconds, m/s and m^2/s (or a Reynolds number). The solver picks the cell
size from the cells per reference length and a lattice speed for the reference speed U, then
derives the time step and the relaxation time (Krueger et al. 2017, The Lattice Boltzmann
Method, ch. 7):

    dx = L / N,   dt = u_lattice dx / U,   nu_lattice = nu dt / dx^2,   tau = 3 nu_lattice + 1/2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver.config import CaseConfig, collision_operator
from solver.errors import UnstableSettingsError

#: Largest lattice speed the solver picks on its own (Mach 0.17).
U_LATTICE_MAX_AUTO = 0.1
#: Relaxation time the automatic lattice speed keeps tau under at low Reynolds numbers.
TAU_AUTO_MAX = 1.0
#: Mach number above which compressibility errors make results meaningless.
MACH_LIMIT = 0.3
#: BGK without a subgrid model goes unstable at shear flows below about this tau.
TAU_MIN_WITHOUT_LES = 0.51
CS = 1.0 / math.sqrt(3.0)


@dataclass(frozen=True)
class LatticeUnits:
    length_m: float  # reference length L
    cells_per_length: int  # N
    speed_m_s: float  # reference speed U
    nu_m2_s: float  # kinematic viscosity
    density_kg_m3: float
    dx_m: float
    dt_s: float
    u_lattice: float  # U in lattice units
    nu_lattice: float
    tau: float
    reynolds: float
    mach: float  # lattice Mach number of U, u_lattice / c_s

    @property
    def velocity_scale(self) -> float:
        """m/s per lattice velocity unit."""
        return self.dx_m / self.dt_s

    def pressure_pa(self, rho_lattice: np.ndarray) -> np.ndarray:
        """Gauge pressure p - p_ref [Pa] of lattice densities, p = c_s^2 (rho - 1) scaled to
        physical units (p_ref: the reference density 1, held at the outflow)."""
        return (rho_lattice - 1.0) / 3.0 * self.density_kg_m3 * self.velocity_scale**2

    @property
    def force_scale_n(self) -> float:
        """Newton per lattice force unit."""
        return self.density_kg_m3 * self.dx_m**4 / self.dt_s**2


def derive_units(case: CaseConfig, reference_length_m: float) -> LatticeUnits:
    """Lattice units for a case; refuses settings that cannot run stably."""
    flow, res = case.flow, case.resolution
    U = flow.speed_m_s
    L = reference_length_m
    nu = flow.nu_m2_s if flow.nu_m2_s is not None else U * L / flow.reynolds
    reynolds = U * L / nu
    N = res.cells_per_length
    if res.u_lattice is not None:
        u_lat = res.u_lattice
    else:
        # Largest speed <= 0.1 that keeps tau <= 1: low Re gets a lower Mach number rather than a
        # large tau, where bounce-back walls lose accuracy.
        u_lat = min(U_LATTICE_MAX_AUTO, (TAU_AUTO_MAX - 0.5) * reynolds / (3.0 * N))
    dx = L / N
    dt = u_lat * dx / U
    nu_lat = nu * dt / dx**2
    tau = 3.0 * nu_lat + 0.5
    mach = u_lat / CS
    units = LatticeUnits(
        L, N, U, nu, flow.density_kg_m3, dx, dt, u_lat, nu_lat, tau, reynolds, mach
    )
    check_stability(units, case.resolution.smagorinsky_cs, collision_operator(case.resolution))
    return units


def check_stability(units: LatticeUnits, smagorinsky_cs: float, collision: str) -> None:
    """Refuse Mach > 0.3, and BGK at tau < 0.51 without the subgrid model, naming the knob to
    turn (the entropic operator is linearly stable at any tau > 1/2, docs/solver.md)."""
    if units.mach > MACH_LIMIT:
        raise UnstableSettingsError(
            f"Mach {units.mach:.2f} > {MACH_LIMIT}: lower resolution.u_lattice "
            f"(now {units.u_lattice:g}; 0.05-0.1 is usual)"
        )
    if units.tau < TAU_MIN_WITHOUT_LES and smagorinsky_cs == 0.0 and collision == "bgk":
        raise UnstableSettingsError(
            f"tau = {units.tau:.5f} is too close to 1/2 for BGK without a subgrid model (Re "
            f"{units.reynolds:.3g} on {units.cells_per_length} cells): set "
            "resolution.smagorinsky_cs "
            "(e.g. 0.15) or resolution.collision=entropic, or lower resolution.cells_per_length "
            "or "
            f"resolution.u_lattice"
        )
