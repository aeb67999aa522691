"""Callbacks on schedules (solver/callbacks.py): a user observes a run without editing solver/."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import periodic_sphere_case

from solver.callbacks import Callback, IterationInterval
from solver.run import Runner
from solver.simulation import Simulation


def test_a_user_callback_records_the_largest_speed_on_its_schedule(cpu):
    """A callback every 100 steps and one every 70 (off the loop's check grid of 50) see steps
    100, 200, 300 and 70, 140, 210, 280; the largest speed they record at 100 steps equals the
    field of a bare simulation advanced 100 steps, and the run's forces equal those of a run
    without callbacks, bit for bit: stopping for a callback does not change the steps."""
    case = periodic_sphere_case(
        max_steps=300, check_every=50, convergence={"window_steps": 1000, "tolerance": 1e-6}
    )
    speeds: dict[int, float] = {}
    seen_70: list[int] = []

    def record_speed(runner: Runner) -> None:
        velocity = runner.sim.fields().velocity
        speeds[runner.state.step] = float(np.sqrt((velocity**2).sum(axis=0)).max())

    runner = Runner(
        Simulation(case, cpu), callbacks=[Callback(record_speed, IterationInterval(100))]
    )
    runner.add_callback(Callback(lambda r: seen_70.append(r.state.step), IterationInterval(70)))
    observed = runner.run()
    bare = Runner(Simulation(case, cpu)).run()

    assert sorted(speeds) == [100, 200, 300] and seen_70 == [70, 140, 210, 280]
    reference = Simulation(case, cpu)
    reference.advance(100)
    velocity = reference.fields().velocity
    assert speeds[100] == pytest.approx(float(np.sqrt((velocity**2).sum(axis=0)).max()), rel=1e-6)
    assert 0.05 < speeds[300] < 0.2  # above the free stream's 0.05 round the sphere
    np.testing.assert_array_equal(observed.force_history_lattice, bare.force_history_lattice)


def test_an_interval_below_one_step_is_refused():
    with pytest.raises(ValueError, match="at least 1 step"):
        IterationInterval(0)
