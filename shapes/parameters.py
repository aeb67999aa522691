"""A design parameter of a shape family: name, unit, bounds and baseline."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Parameter:
    name: str
    unit: str
    low: float
    high: float
    baseline: float
    meaning: str
