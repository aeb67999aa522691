"""What the run loop knows besides the populations (RunState, written into every checkpoint) and
what a run produced (RunResult)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from solver.simulation import Fields


@dataclass
class RunState:
    """What the loop knows besides the populations; all of it goes into a checkpoint."""

    step: int = 0
    forces: list[np.ndarray] = field(
        default_factory=list
    )  # lattice forces per step, chunks [n, 3, 3]
    phase: str = "develop"  # develop | average | done
    converged_step: int | None = None
    average_start: int | None = None
    bulk_velocity: list[float] = field(
        default_factory=list
    )  # mean x-velocity of the fluid at each check [lattice]
    rho_sum: list[np.ndarray] | None = None  # float64 sums of sampled fields, one per level
    velocity_sum: list[np.ndarray] | None = None
    n_samples: int = 0
    slot_force_sum: np.ndarray | None = None  # per-slot forces summed over the averaging window
    slot_force_steps: int = 0
    element_force_sum: np.ndarray | None = None  # the volumetric wall's, per element, likewise

    def force_history(self) -> np.ndarray:
        """All forces so far, [step, kind, axis] (Simulation.advance); joins the chunks into one
        (cheap to call again)."""
        if len(self.forces) != 1:
            self.forces = [np.concatenate(self.forces) if self.forces else np.zeros((0, 3, 3))]
        return self.forces[0]

    def recent_forces(self, n: int) -> np.ndarray:
        """The forces of the last n steps (fewer early on), without joining the whole history."""
        parts, count = [], 0
        for chunk in reversed(self.forces):
            parts.append(chunk[-(n - count) :])
            count += len(parts[-1])
            if count >= n:
                break
        return np.concatenate(parts[::-1]) if parts else np.zeros((0, 3, 3))


@dataclass
class RunResult:
    """What a run produced: forces (lattice units) and coefficients per step, the reported
    means (over the averaging window, else the last convergence window), the fields, and how
    long it took. The pressure and friction parts are NaN without an attached surface."""

    steps: int
    converged: bool
    converged_step: int | None
    averaged_steps: int
    force_history_lattice: np.ndarray  # [steps, kind, axis]: total, pressure, friction
    coefficients: np.ndarray  # [steps, kind, 2]: Cd, Cl of each kind
    cd: float
    cl: float
    cd_pressure: float
    cl_pressure: float
    cd_friction: float
    cl_friction: float
    force_mean_lattice: np.ndarray  # [kind, axis] over the reported window
    levels: tuple[Fields, ...]  # the final state of each level, coarse first
    mean_levels: tuple[Fields, ...] | None  # averaged over the averaging window's samples
    slot_force_mean_lattice: np.ndarray | None  # [n_slots, kind, axis] over the averaging window
    element_force_mean_lattice: np.ndarray | None  # the volumetric wall's [E, axis], likewise
    wall_seconds: float
    mlups: float

    @property
    def fields(self) -> Fields:
        """The final state of the finest level (the body's)."""
        return self.levels[-1]

    @property
    def mean_fields(self) -> Fields | None:
        """The finest level's fields averaged over the averaging window, if any."""
        return self.mean_levels[-1] if self.mean_levels is not None else None

    @property
    def fields_averaged(self) -> bool:
        return self.mean_levels is not None

    @property
    def best_fields(self) -> Fields:
        """The time-averaged fields where the run averaged, else the final state."""
        return self.mean_fields if self.mean_fields is not None else self.fields
