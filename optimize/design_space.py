"""The design space of an optimization: the family's parameters, which are free, their bounds,
and the map between parameters (their units) and the unit cube the optimizers search."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optimize.opt_config import OptimizeConfig
from shapes.geometry_config import FAMILIES
from solver.errors import ConfigError
from surrogate.sweep_config import Range


@dataclass(frozen=True)
class DesignSpace:
    family: str
    names: list[str]
    units: list[str]
    low: np.ndarray  # [d] search bounds, inside the surrogate's trained bounds
    high: np.ndarray
    baseline: np.ndarray  # [d] the design to improve; fixed parameters keep its values
    free: np.ndarray  # [d] bool

    @property
    def n_free(self) -> int:
        return int(self.free.sum())

    def to_params(self, unit: np.ndarray) -> np.ndarray:
        """[n, n_free] in [0, 1] -> [n, d] parameters."""
        unit = np.atleast_2d(unit)
        params = np.repeat(self.baseline[None], len(unit), axis=0)
        params[:, self.free] = self.low[self.free] + unit * (
            self.high[self.free] - self.low[self.free]
        )
        return params

    def to_unit(self, params: np.ndarray) -> np.ndarray:
        params = np.atleast_2d(params)
        return (params[:, self.free] - self.low[self.free]) / (
            self.high[self.free] - self.low[self.free]
        )


def make_design_space(config: OptimizeConfig, family: str, trained: list[Range]) -> DesignSpace:
    """The space from the config and the surrogate's trained parameters (name, unit, low, high).
    ConfigError for unknown names, bounds outside the trained range, or nothing left free."""
    names = [p.name for p in trained]
    low = np.array([p.low for p in trained], float)
    high = np.array([p.high for p in trained], float)
    documented = {p.name: p for p in FAMILIES[family]}
    baseline = np.array([documented[n].baseline for n in names], float)
    baseline = np.clip(baseline, low, high)  # a parameter the data held fixed stays at its value
    for key, values in config.baseline.items():
        _known(key, names, "baseline")
        baseline[names.index(key)] = float(values)
    for key, values in config.bounds.items():
        _known(key, names, "bounds")
        i = names.index(key)
        if len(values) != 2 or not (low[i] <= values[0] <= values[1] <= high[i]):
            raise ConfigError(
                f"key 'bounds.{key}' must be [low, high] within the surrogate's trained range "
                f"[{low[i]:g}, {high[i]:g}] {trained[i].unit}"
            )
        low[i], high[i] = float(values[0]), float(values[1])
    for key in config.fixed:
        _known(key, names, "fixed")
    outside = [
        n for n, v, lo, hi in zip(names, baseline, low, high, strict=False) if not lo <= v <= hi
    ]
    if outside:
        raise ConfigError(
            f"key 'baseline.{outside[0]}' lies outside the search bounds: set it inside them"
        )
    free = (high > low) & ~np.isin(names, config.fixed)
    if not free.any():
        raise ConfigError(
            "key 'fixed' (with the surrogate's fixed parameters) leaves nothing free to optimize"
        )
    return DesignSpace(family, names, [p.unit for p in trained], low, high, baseline, free)


def _known(key: str, names: list[str], section: str) -> None:
    if key not in names:
        raise ConfigError(
            f"key '{section}.{key}' is not a parameter of the surrogate: use one of {names}"
        )
