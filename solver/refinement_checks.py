"""Flows with known behaviour across a refinement interface (solver/refinement.py), measured the
same way by tests/test_refinement.py (against tolerances) and benchmarks/refinement_checks.py
(the table in docs/solver.md, "Grid refinement"). Lattice units of the coarse level."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.backends.base import Backend
from solver.refinement import RefinedBox, TwoLevelBox


def refined_box_override(
    lo_m: tuple[float, ...],
    hi_m: tuple[float, ...],
    *inner: tuple[tuple[float, ...], tuple[float, ...]],
) -> str:
    """The key=value override that refines the box [lo_m, hi_m) of a case (metres), and inside
    it each (lo, hi) box of inner in turn."""

    def numbers(values: tuple[float, ...]) -> str:
        return ", ".join(repr(float(v)) for v in values)

    boxes = [(lo_m, hi_m), *inner]
    items = ", ".join(
        f"{{box_lo_m: [{numbers(lo)}], box_hi_m: [{numbers(hi)}]}}" for lo, hi in boxes
    )
    return f"refinement.levels=[{items}]"


#: the uniform flow's refined box inside its 24 x 20 x 16 coarse cells
UNIFORM_FLOW_BOX = RefinedBox((6, 5, 4), (16, 14, 11))


@dataclass(frozen=True)
class UniformFlowCheck:
    """A uniform flow after `coarse_steps`: the largest |u - U| / |U| over both levels' active
    cells, and the relative change of the total mass."""

    velocity_error: float
    mass_drift: float
    coarse_steps: int


def uniform_flow(
    backend: Backend,
    shape_xyz: tuple[int, int, int] = (24, 20, 16),
    box: RefinedBox = UNIFORM_FLOW_BOX,
    velocity: tuple[float, float, float] = (0.05, 0.03, 0.02),
    flow_throughs: float = 5.0,
    tau: float = 0.6,
) -> UniformFlowCheck:
    """A uniform flow oblique to the grid through a periodic box holding a refined box (whose
    faces, edges and corners it crosses), for flow_throughs passages along x."""
    u = np.asarray(velocity, float)
    t = TwoLevelBox(backend, shape_xyz, box, tau)
    t.initialise(lambda x, y, z: np.stack([np.ones_like(x), *(ui + 0 * x for ui in u)]))
    mass0 = t.mass()
    steps = int(round(flow_throughs * shape_xyz[0] / u[0]))
    t.advance(steps)
    coarse, fine = t.moments()
    error = max(
        float(np.abs(m[1:][:, active] - u[:, None]).max())
        for m, active in ((coarse, t.coarse.active), (fine, t.fine.active))
    )
    return UniformFlowCheck(error / float(np.linalg.norm(u)), t.mass() / mass0 - 1, steps)


@dataclass(frozen=True)
class TaylorGreenCheck:
    """The viscosity fitted to a decaying 2D Taylor-Green vortex over the configured one, and the
    relative change of the total mass over the run."""

    viscosity_ratio: float
    mass_drift: float
    coarse_steps: int


def taylor_green(
    backend: Backend,
    box: RefinedBox,
    tau: float,
    collision: str = "bgk",
    wavelength: int = 32,
    u0: float = 0.02,
) -> TaylorGreenCheck:
    """The vortex u = u0 (-cos kx sin ky, sin kx cos ky), one wavelength over the periodic box of
    wavelength x wavelength x 2 coarse cells, with its pressure; its amplitude (the projection of
    u_x on its shape, each fine cell weighing an eighth) decays as exp(-2 nu k^2 t). Fitted over
    about 0.8 of an e-folding time at 32 cells, after a fifth of it (the acoustic transient of an
    equilibrium start)."""
    k = 2 * np.pi / wavelength
    nu = (tau - 0.5) / 3

    def vortex(x, y, z):
        p = -(u0**2) / 4 * (np.cos(2 * k * x) + np.cos(2 * k * y))
        ux = -u0 * np.cos(k * x) * np.sin(k * y)
        uy = u0 * np.sin(k * x) * np.cos(k * y)
        return np.stack([1 + 3 * p, ux, uy, 0 * x])

    t = TwoLevelBox(backend, (wavelength, wavelength, 2), box, tau, collision)
    t.initialise(vortex)
    mass0 = t.mass()
    every = max(1, wavelength**2 // 51)
    times, amplitudes = [], []
    for i in range(11):
        if i:
            t.advance(every)
        num = den = 0.0
        coarse, fine = t.moments()
        for m, level, centres, volume in (
            (coarse, t.coarse, t.coarse_centres(), 1.0),
            (fine, t.fine, t.fine_centres(), 1 / 8),
        ):
            cx, cy, cz = centres
            z, y, x = np.meshgrid(cz, cy, cx, indexing="ij")
            shape = (-np.cos(k * x) * np.sin(k * y))[level.active]
            num += volume * (m[1][level.active] * shape).sum()
            den += volume * (shape * shape).sum()
        times.append(t.coarse_steps)
        amplitudes.append(num / den)
    slope = np.polyfit(times[2:], np.log(amplitudes[2:]), 1)[0]
    return TaylorGreenCheck(-slope / (2 * k * k) / nu, t.mass() / mass0 - 1, t.coarse_steps)


@dataclass(frozen=True)
class PulseCheck:
    """A density pulse crossing into the fine level: its right-going half's amplitude ahead of
    the interface, and the largest density deviation behind it in the coarse level once a
    reflection would be there."""

    incident: float
    reflected: float

    @property
    def reflection(self) -> float:
        return self.reflected / self.incident


def pulse_reflection(backend: Backend, tau: float = 0.6, collision: str = "bgk") -> PulseCheck:
    """A Gaussian density pulse (amplitude 1e-3, sigma 4 coarse cells) at x = 100 of a periodic
    256 x 2 x 2 box refined over 130 <= x < 200: its right-going half reaches the interface at
    about step 52 (the sound speed 1/sqrt(3)); at step 20 it is at x = 111, at step 90 a
    reflection would be at x = 108, the left-going half far off at x = 48."""
    x0, sigma, amplitude = 100.0, 4.0, 1e-3
    t = TwoLevelBox(backend, (256, 2, 2), RefinedBox((130, 0, 0), (200, 2, 2)), tau, collision)
    t.initialise(
        lambda x, y, z: np.stack(
            [1 + amplitude * np.exp(-((x - x0) ** 2) / (2 * sigma**2)), 0 * x, 0 * x, 0 * x]
        )
    )
    xc = t.coarse_centres()[0]
    active = t.coarse.active[0, 0]

    def coarse_density() -> np.ndarray:
        return t.moments()[0][0].mean(axis=(0, 1)) - 1

    t.advance(20)
    incident = float(coarse_density()[active & (xc > 105) & (xc < 128)].max())
    t.advance(70)
    reflected = float(np.abs(coarse_density()[active & (xc > 80) & (xc < 129)]).max())
    return PulseCheck(incident, reflected)
