"""The run loop (solver/run.py) and the simulation share one step count."""

from __future__ import annotations

import numpy as np
from conftest import periodic_sphere_case

from solver.run import Runner
from solver.simulation import Simulation


def test_runner_continues_from_a_simulation_already_advanced(cpu):
    """sim.advance(100), then Runner(sim).run() to max_steps 300: the run ends at step 300 with
    300 rows of force history, the first 100 (not seen by the runner) NaN, the rest the same
    forces as a run of 300 steps from the start."""
    case = periodic_sphere_case(
        max_steps=300, check_every=50, convergence={"window_steps": 1000, "tolerance": 1e-6}
    )
    advanced = Simulation(case, cpu)
    advanced.advance(100)
    continued = Runner(advanced).run()
    straight = Runner(Simulation(case, cpu)).run()
    assert continued.steps == straight.steps == 300 and advanced.step_count == 300
    history = continued.force_history_lattice
    assert history.shape == straight.force_history_lattice.shape == (300, 3, 3)
    assert np.all(np.isnan(history[:100])) and np.all(np.isfinite(history[100:]))
    np.testing.assert_array_equal(history[100:], straight.force_history_lattice[100:])


def test_a_fixed_averaging_start_ignores_the_convergence_test(cpu):
    """run.average_from_step = 200, average_steps = 100: the averaging window is steps 200-300
    whether the convergence test passes at once (tolerance 100: at step 100, reported) or never
    (tolerance 1e-9), and the reported Cd is the mean over exactly that window."""

    def run(tolerance: float):
        case = periodic_sphere_case(
            max_steps=400,
            check_every=50,
            convergence={"window_steps": 50, "tolerance": tolerance},
            average_from_step=200,
            average_steps=100,
            sample_every=25,
        )
        return Runner(Simulation(case, cpu)).run()

    early, never = run(100.0), run(1e-9)
    assert early.converged_step == 100 and early.converged
    assert never.converged_step is None and not never.converged
    for result in (early, never):
        assert result.steps == 300 and result.averaged_steps == 100 and result.fields_averaged
        assert np.isclose(result.cd, np.mean(result.coefficients[200:300, 0, 0]), rtol=1e-9)
    np.testing.assert_array_equal(early.force_history_lattice, never.force_history_lattice)
