"""The sweep's time estimate: from measured steps per second and the steps still to come."""

from __future__ import annotations

import pytest

import surrogate.sweep as sweep
from surrogate.sample_job import SampleOutcome


def test_eta_counts_steps_not_samples(monkeypatch):
    """32 samples, 2 finished in 60 s after 1000 steps each (33.3 steps/s): 30 left at the same
    1000 steps take 15 min; at the step limit of 4000 steps, 60 min."""
    clock = iter([0.0, 60.0, 60.0])
    monkeypatch.setattr(sweep.time, "perf_counter", lambda: next(clock))
    progress = sweep.SweepProgress(total=32, done=0, failed=0, max_steps=4000)
    progress.done, progress.computed, progress.steps_computed = 2, 2, 2000
    likely, most = progress.minutes_left()
    assert likely == pytest.approx(15.0) and most == pytest.approx(60.0)


def test_eta_is_unknown_before_any_steps(monkeypatch):
    monkeypatch.setattr(sweep.time, "perf_counter", lambda: 10.0)
    progress = sweep.SweepProgress(total=4, done=0, failed=0, max_steps=100)
    progress.update(SampleOutcome(sample_id=0, status="failed", reason="invalid shape"))
    assert all(v != v for v in progress.minutes_left())  # NaN: nothing measured yet
