"""Callbacks on schedules for the run loop (Oceananigans' ``Callback(func, IterationInterval(n))``).

A callback observes a run: the Runner calls ``func(runner)`` after every step that its schedule
names, once the state is checked for blow-ups, and the callback reads what it needs from
``runner.sim`` (fields, forces) and ``runner.state`` (the step, the force history). The loop
stops at every step a schedule names, so a callback sees the state of exactly that step; the
steps themselves are the same whatever the schedules (a run with callbacks gives the forces of
one without, bit for bit).

What decides the run's result stays in the Runner, not in callbacks: the convergence check, the
averaging window and the checkpoints are its state machine, written into every checkpoint, so
that a resumed run repeats an uninterrupted one. Progress reports and field snapshots are
callbacks (run_case.py adds them), and so is anything a user adds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from solver.run import Runner


@dataclass(frozen=True)
class IterationInterval:
    """Every ``interval`` steps [steps], counted from step 0 of the simulation (a resumed run
    keeps the same steps)."""

    interval: int

    def __post_init__(self) -> None:
        if self.interval < 1:
            raise ValueError(
                f"IterationInterval needs an interval of at least 1 step, not {self.interval}"
            )

    def due(self, step: int) -> bool:
        return step % self.interval == 0

    def next_after(self, step: int) -> int:
        """The first step after ``step`` that the schedule names."""
        return (step // self.interval + 1) * self.interval


@dataclass(frozen=True)
class Callback:
    """``func(runner)`` at every step the schedule names."""

    func: Callable[[Runner], None]
    schedule: IterationInterval
