"""The run loop: steps a Simulation to convergence, averages, watches for blow-ups, checkpoints.

Phases: *develop* (step until the moving average of Cd settles or the step limit, or, with
``run.average_from_step``, until that step whatever Cd does), then *average*
(``run.average_steps`` more steps; forces every step, fields every ``run.sample_every``), then
done. A fixed start suits unsteady flows (shedding, turbulence), whose convergence test may pass
or not by the float rounding of the processor; the test is still made and reported. Everything
the loop decides depends on step numbers only, never on wall time, so a run resumed from a
checkpoint repeats the uninterrupted run bit for bit on the same backend.

Over 250 lines: the Runner's phases are one state machine, written into every checkpoint.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from solver.callbacks import Callback
from solver.checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from solver.config import CaseConfig
from solver.errors import DivergenceError
from solver.run_state import RunResult, RunState
from solver.simulation import FORCE_TOTAL, Fields, Simulation

if TYPE_CHECKING:
    from solver.refined_simulation import RefinedSimulation

log = logging.getLogger(__name__)

#: A lattice speed above this (Mach ~0.7) means the run has blown up.
RUNAWAY_U_LATTICE = 0.4


def likely_cause(sim: Simulation | RefinedSimulation) -> str:
    """The setting most likely to blame for a blow-up, and what to change."""
    u = sim.units
    if sim.case.resolution.smagorinsky_cs == 0.0 and u.tau < 0.55:
        return (
            f"tau = {u.tau:.4f} is close to 1/2 without a subgrid model: set "
            "resolution.smagorinsky_cs (e.g. 0.15) or lower resolution.cells_per_length"
        )
    if u.u_lattice > 0.08:
        return f"the lattice speed {u.u_lattice:g} is high: lower resolution.u_lattice (e.g. 0.05)"
    return (
        "an under-resolved body or an unsuitable boundary: raise resolution.cells_per_length "
        "or add a domain.sponge before the outflow"
    )


def check_health(
    sim: Simulation | RefinedSimulation,
    state: RunState,
    levels: tuple[Fields, ...],
    forces: np.ndarray,
) -> None:
    """Raise DivergenceError on NaN or runaway velocity on any level."""
    if not np.all(np.isfinite(forces)) or not all(np.all(np.isfinite(f.rho)) for f in levels):
        raise DivergenceError(
            f"the run diverged by step {state.step} (NaN in the flow): {likely_cause(sim)}"
        )
    speed = max(np.sqrt(np.max(np.sum(f.velocity**2, axis=0))) for f in levels)
    if not math.isfinite(speed):
        raise DivergenceError(
            f"the run diverged by step {state.step} (NaN velocity): {likely_cause(sim)}"
        )
    if speed > RUNAWAY_U_LATTICE:
        raise DivergenceError(
            f"the run diverged by step {state.step} (runaway velocity {speed:.2f} in lattice "
            "units, "
            f"{speed / sim.units.u_lattice:.1f} U): {likely_cause(sim)}"
        )


def _converged(cd: np.ndarray, window: int, tolerance: float) -> bool:
    if cd.size < 2 * window or not np.all(np.isfinite(cd[-2 * window :])):
        return False
    recent, before = cd[-window:].mean(), cd[-2 * window : -window].mean()
    return abs(recent - before) <= tolerance * abs(recent)


def bulk_velocity(sim: Simulation | RefinedSimulation, fields: Fields) -> float:
    """Mean x-velocity of the fluid cells of the finest level [lattice]."""
    return float(fields.velocity[0][sim.fluid_mask].mean())


class Runner:
    """Drives one Simulation (or RefinedSimulation: its steps are the fine level's) according to
    its case's ``run`` settings: the model is the Simulation, the Runner the time stepping around
    it (Oceananigans' Simulation), with the callbacks (solver/callbacks.py) that observe it."""

    def __init__(
        self,
        sim: Simulation | RefinedSimulation,
        checkpoint_dir: Path | None = None,
        callbacks: Sequence[Callback] = (),
    ) -> None:
        self.sim = sim
        self.case: CaseConfig = sim.case
        self.checkpoint_dir = checkpoint_dir
        self.callbacks = list(callbacks)
        # One clock: a simulation already advanced (sim.advance) continues from its step count;
        # the forces of the steps this runner did not see are NaN in its history.
        steps_before = sim.step_count
        self.state = RunState(
            step=steps_before,
            forces=[np.full((steps_before, 3, 3), np.nan)] if steps_before else [],
        )
        self._start_step, self._t0 = steps_before, time.perf_counter()

    def add_callback(self, callback: Callback) -> None:
        """Observe the run with callback from the next step its schedule names."""
        self.callbacks.append(callback)

    def steps_per_second(self) -> float:
        """The stepping rate of this run() so far [steps/s]."""
        return (self.state.step - self._start_step) / max(time.perf_counter() - self._t0, 1e-9)

    def recent_cd(self) -> float:
        """Mean Cd over the last convergence window (NaN before the first step)."""
        window = self.case.run.convergence.window_steps
        cd = self.sim.coefficients(self.state.recent_forces(window)[:, FORCE_TOTAL])[:, 0]
        return float(cd.mean()) if cd.size else math.nan

    def resume(self) -> None:
        """Continue from the checkpoint in checkpoint_dir (CheckpointError if unusable)."""
        assert self.checkpoint_dir is not None
        ckpt = load_checkpoint(self.checkpoint_dir, self.case, self.sim.n_populations)
        self.sim.load_populations(ckpt.populations, ckpt.state.step, ckpt.inlet_drho)
        self.sim.load_slot_force_sum(ckpt.state.slot_force_sum, ckpt.state.slot_force_steps)
        self.sim.load_element_force_sum(ckpt.state.element_force_sum)
        self.sim.load_wall_slopes(ckpt.wall_slopes)
        self.state = ckpt.state
        log.info("resumed from step %d (%s phase)", self.state.step, self.state.phase)

    def _next_stop(self) -> int:
        r, s = self.case.run, self.state
        stops = [r.max_steps, (s.step // r.check_every + 1) * r.check_every]
        if s.phase == "develop" and s.step < r.average_from_step:
            stops.append(r.average_from_step)
        if r.checkpoint_every:
            stops.append((s.step // r.checkpoint_every + 1) * r.checkpoint_every)
        stops.extend(c.schedule.next_after(s.step) for c in self.callbacks)
        if s.phase == "average" and s.average_start is not None:
            offset = s.step - s.average_start
            stops.append(s.step + r.sample_every - offset % r.sample_every)
            stops.append(s.average_start + r.average_steps)
        return min(stops)

    def run(self) -> RunResult:
        """Step until converged and averaged, or the step limit; checks, callbacks and
        checkpoints on their step multiples."""
        r, s, sim = self.case.run, self.state, self.sim
        self._start_step, self._t0 = s.step, time.perf_counter()
        while s.phase != "done" and s.step < r.max_steps:
            stop = self._next_stop()
            forces = sim.advance(stop - s.step, accumulate_slot_forces=s.phase == "average")
            s.forces.append(forces)
            s.step = stop
            if s.phase == "average" and s.average_start is not None:
                if (s.step - s.average_start) % r.sample_every == 0:
                    self._sample()
                if s.step >= s.average_start + r.average_steps:
                    s.phase = "done"
            if s.phase == "develop" and r.average_from_step and s.step >= r.average_from_step:
                s.phase, s.average_start = "average", s.step
            check_due = s.step % r.check_every == 0 or s.step >= r.max_steps
            checkpoint_due = bool(
                self.checkpoint_dir and r.checkpoint_every and s.step % r.checkpoint_every == 0
            )
            due = [c for c in self.callbacks if c.schedule.due(s.step)]
            if check_due or checkpoint_due or due or s.phase == "done":
                levels = sim.level_fields()
                check_health(sim, s, levels, forces)  # nothing dead is saved or written
                if check_due:
                    self._check(levels[-1])
            for callback in due:
                callback.func(self)
            if checkpoint_due:
                assert self.checkpoint_dir is not None
                s.slot_force_sum, s.slot_force_steps = sim.slot_force_sum(), sim.slot_force_steps
                s.element_force_sum = sim.element_force_sum()
                save_checkpoint(
                    self.checkpoint_dir,
                    self.case,
                    Checkpoint(sim.populations(), s, sim.inlet_state(), sim.wall_slopes()),
                )
        sim.backend.synchronize()
        wall = time.perf_counter() - self._t0
        return self._result(wall, s.step - self._start_step)

    def _check(self, fields: Fields) -> None:
        """In the develop phase, test for convergence: of Cd where there is a body, else of the
        bulk velocity (a channel: its mean over the fluid, sampled at each check)."""
        r, s, sim = self.case.run, self.state, self.sim
        window = r.convergence.window_steps
        cd = sim.coefficients(s.recent_forces(2 * window)[:, FORCE_TOTAL])[:, 0]
        s.bulk_velocity.append(bulk_velocity(sim, fields))
        if sim.reference_area_m2 is not None:
            monitor, window_samples, what = cd, window, "Cd"
        else:
            monitor, window_samples, what = (
                np.asarray(s.bulk_velocity),
                max(window // r.check_every, 1),
                "the bulk velocity",
            )
        fixed_start = r.average_from_step > 0
        if (
            s.converged_step is None
            and (s.phase == "develop" or fixed_start)
            and _converged(monitor, window_samples, r.convergence.tolerance)
        ):
            s.converged_step = s.step
            log.info("%s converged at step %d", what, s.step)
            if fixed_start:
                return
            # Averaging starts even at the step limit, so a resumed run with a higher limit
            # averages exactly as a straight run would.
            if r.average_steps > 0:
                s.phase, s.average_start = "average", s.step
            else:
                s.phase = "done"

    def _sample(self) -> None:
        levels = self.sim.level_fields()
        s = self.state
        if s.rho_sum is None or s.velocity_sum is None:
            s.rho_sum = [np.zeros(f.rho.shape) for f in levels]
            s.velocity_sum = [np.zeros(f.velocity.shape) for f in levels]
        for f, rho_sum, velocity_sum in zip(levels, s.rho_sum, s.velocity_sum, strict=True):
            rho_sum += f.rho
            velocity_sum += f.velocity
        s.n_samples += 1

    def _result(self, wall: float, steps_run: int) -> RunResult:
        s, r, sim = self.state, self.case.run, self.sim
        history = s.force_history()
        coeffs = sim.coefficients(history)
        if s.average_start is not None and s.average_start < len(history):
            window = history[s.average_start :]
        else:
            window = history[-min(r.convergence.window_steps, len(history)) :]
        force_mean = window.mean(axis=0)
        (cd, cl), (cd_p, cl_p), (cd_f, cl_f) = sim.coefficients(force_mean)
        if not sim.has_surface:
            cd_p = cl_p = cd_f = cl_f = math.nan
        mean_levels = None
        if s.n_samples and s.rho_sum is not None and s.velocity_sum is not None:
            mean_levels = sim.with_free_stream(
                tuple(
                    Fields(
                        rho=(rho / s.n_samples).astype(np.float32),
                        velocity=(velocity / s.n_samples).astype(np.float32),
                    )
                    for rho, velocity in zip(s.rho_sum, s.velocity_sum, strict=True)
                )
            )
        slot_sum = sim.slot_force_sum()
        slot_mean = (
            slot_sum / sim.slot_force_steps
            if slot_sum is not None and sim.slot_force_steps
            else None
        )
        element_sum = sim.element_force_sum()
        element_mean = (
            element_sum / sim.slot_force_steps
            if element_sum is not None and sim.slot_force_steps
            else None
        )
        mlups = sim.cell_updates_per_step * steps_run / max(wall, 1e-9) / 1e6
        return RunResult(
            steps=s.step,
            converged=s.converged_step is not None,
            converged_step=s.converged_step,
            averaged_steps=max(len(history) - s.average_start, 0)
            if s.average_start is not None
            else 0,
            force_history_lattice=history,
            coefficients=coeffs,
            cd=float(cd),
            cl=float(cl),
            cd_pressure=float(cd_p),
            cl_pressure=float(cl_p),
            cd_friction=float(cd_f),
            cl_friction=float(cl_f),
            force_mean_lattice=force_mean,
            levels=sim.level_fields(),
            mean_levels=mean_levels,
            slot_force_mean_lattice=slot_mean,
            element_force_mean_lattice=element_mean,
            wall_seconds=wall,
            mlups=mlups,
        )
