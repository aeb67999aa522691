"""Numbers as people read them: force coefficients to the digits they mean, and the ticks of
axes and colour bars at round values (1, 2 or 5 times a power of ten apart, as
matplotlib's MaxNLocator spaces them)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

#: Decimals of a printed force coefficient: a drag count (0.0001) is the finest step quoted.
COEFFICIENT_DECIMALS = 4
#: The most decimals a tick label is given.
MAX_TICK_DECIMALS = 8
#: Slack of the comparisons with multiples of a step, relative to the step.
SLACK = 1e-9


def coefficient(value: float | None) -> str:
    """A dimensionless force coefficient (Cd, Cl, or a σ of one) to 4 significant digits and no
    finer than a drag count: 1.1872045 -> '1.187', 0.3 -> '0.3000', 0.0234567 -> '0.0235',
    -1e-08 -> '0.0000'. '-' for a missing or non-finite value."""
    if value is None or not math.isfinite(value):
        return "-"
    magnitude = math.floor(math.log10(abs(value))) if value else 0
    decimals = min(max(3 - magnitude, 0), COEFFICIENT_DECIMALS)
    return f"{round(value, decimals) + 0.0:.{decimals}f}"  # + 0.0: a rounded -0.0 prints as 0


def round_steps(at_least: float) -> Iterator[float]:
    """Round spacings (1, 2 or 5 times a power of ten) in ascending order, from the
    smallest not under at_least (> 0)."""
    decade = 10.0 ** math.floor(math.log10(at_least))
    while True:
        yield from (m * decade for m in (1, 2, 5) if m * decade >= at_least * (1 - SLACK))
        decade *= 10


def nice_ticks(lo: float, hi: float, max_ticks: int = 8) -> np.ndarray:
    """At most max_ticks round values inside [lo, hi] (a colour bar's labels), the finest round
    spacing that fits: from max_ticks >= 5 on at least two; [lo] for an empty range."""
    if not hi > lo:
        return np.array([lo])
    for step in round_steps((hi - lo) / (max_ticks + 1)):
        first, last = math.ceil(lo / step - SLACK), math.floor(hi / step + SLACK)
        if last - first + 1 <= max_ticks:
            return np.arange(first, last + 1) * step
    raise AssertionError("unreachable: round_steps does not end")


def ruler_ticks(lo: float, hi: float, min_step: float, max_ticks: int = 6) -> np.ndarray | None:
    """Round values in [lo, hi] to label an axis with, at the finest round spacing not under
    min_step (in the data's units) that gives at most max_ticks; those strictly inside where
    two or more are (so that an axis drawn one spacing past them ends at lo and hi when these
    are round), else those at the ends too; None where fewer than two, too few to read a
    spacing from."""
    if not hi > lo:
        return None
    for step in round_steps(max(min_step, (hi - lo) / (max_ticks + 1))):
        first, last = math.ceil(lo / step - SLACK), math.floor(hi / step + SLACK)
        if last - first + 1 <= max_ticks:
            break
    ticks = np.arange(first, last + 1) * step
    inner = ticks[(ticks > lo + SLACK * step) & (ticks < hi - SLACK * step)]
    return inner if len(inner) > 1 else ticks if len(ticks) > 1 else None


def tick_decimals(ticks: np.ndarray) -> int:
    """The fewest decimals that print every tick to within 1% of their spacing: round ticks
    exactly, and no two labels the same."""
    ticks = np.asarray(ticks, float)
    spacing = float(np.min(np.abs(np.diff(ticks)))) if ticks.size > 1 else abs(float(ticks[0]))
    tolerance = 0.01 * spacing if spacing > 0 else 0.0
    for decimals in range(MAX_TICK_DECIMALS):
        if np.all(np.abs(ticks - np.round(ticks, decimals)) <= tolerance):
            return decimals
    return MAX_TICK_DECIMALS
