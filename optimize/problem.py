"""What is minimized: the surrogate's objective plus its uncertainty plus constraint penalties.
One rule (Problem.score), used by CMA-ES through the Predictor, by the gradient search through
the Paddle model and by the feasibility check:

    score = objective + kappa * sigma(objective) + PENALTY * (violation^2 + trust^2)

- objective: Cd [-], or the drag area Cd * A [m^2];
- violation: the constraints' violations summed, each in shares of its limit's scale
  (limit_scale: |limit|, but at least LIMIT_FLOOR of the quantity's size, so that a limit of 0
  scores a finite penalty) [-]; 0 where every constraint holds;
- trust: how far sigma(Cd) lies beyond uncertainty.max_sigma_counts, in shares of it [-]; 0
  without a trust region or inside it.

Minimizing mean + kappa sigma keeps the search where the ensemble agrees with itself and with
the data: an upper confidence bound of the objective.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from optimize.design_space import DesignSpace
from optimize.opt_config import DERIVED, OptimizeConfig
from shapes.geometry_config import FAMILIES, family_overrides
from solver.errors import ConfigError

PENALTY = 1e3
#: A limit's scale is at least this share of its quantity's size (limit_scale) [-].
LIMIT_FLOOR = 0.1
#: One drag count: a thousandth of Cd [-].
DRAG_COUNT = 1e-3


@dataclass
class Evaluation:
    params: np.ndarray  # [n, d]
    cd: np.ndarray  # [n] surrogate mean
    cd_std: np.ndarray  # [n]
    objective: np.ndarray  # [n] Cd or Cd * A [m^2]
    objective_std: np.ndarray
    violation: (
        np.ndarray
    )  # [n] summed relative constraint violation plus trust-region excess, 0 where feasible
    score: np.ndarray  # [n] what the optimizers minimize
    quantities: dict[str, np.ndarray]  # derived quantities computed for these designs


def limit_scale(limit: float, size: float) -> float:
    """The scale a violation of limit is measured in [the quantity's unit]: |limit|, but at least
    LIMIT_FLOOR * size. size > 0 is the quantity's size (Problem._sizes), so a limit of 0 gives a
    finite penalty: measured as if the limit were LIMIT_FLOOR * size."""
    return max(abs(limit), LIMIT_FLOOR * size)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def family_mesh(family: str, params: dict[str, float]):
    """The closed mesh of one design (shapes/, through the geometry section's builder)."""
    from omegaconf import OmegaConf

    from shapes.geometry_config import GeometryConfig, build_geometry

    geometry = OmegaConf.merge(
        OmegaConf.structured(GeometryConfig),
        OmegaConf.from_dotlist(
            [o.removeprefix("geometry.") for o in family_overrides(family, params)]
        ),
    )
    return build_geometry(OmegaConf.to_object(geometry))


def derived_quantities(
    space: DesignSpace, params: np.ndarray, which: set[str], area_spacing_m: float | None = None
) -> dict[str, np.ndarray]:
    """volume_m3 [m^3] and frontal_area_m2 [m^2] of each design [n, d], from its mesh (only those
    asked for). The area by rays area_spacing_m [m] apart (needed for frontal_area_m2): the
    dataset's dx measures it as the solver measured the reference area of the Cd the surrogate
    learnt."""
    if not which:
        return {}
    from solver.backends.cpu import CpuBackend
    from solver.voxelize import frontal_area_m2

    backend = CpuBackend()
    out = {name: np.zeros(len(params)) for name in which}
    for k, row in enumerate(params):
        mesh = family_mesh(space.family, dict(zip(space.names, map(float, row), strict=False)))
        if "volume_m3" in which:
            out["volume_m3"][k] = mesh.volume_m3()
        if "frontal_area_m2" in which:
            out["frontal_area_m2"][k] = frontal_area_m2(
                backend, mesh.vertices_m, mesh.faces, (-1e9, 1e9), (-1e9, 1e9), area_spacing_m
            )
    return out


class Problem:
    """Scores designs through a predictor function params [n, d] -> (cd, cd_std).

    area_spacing_m: the dataset's cell size dx [m], which the frontal area (objective drag_area,
    constraints on frontal_area_m2) is measured with; None where the dataset's case leaves
    body.reference_length_m to each design's mesh, which those then refuse (ConfigError)."""

    def __init__(
        self,
        space: DesignSpace,
        config: OptimizeConfig,
        predict: Callable,
        area_spacing_m: float | None = None,
    ) -> None:
        self.space, self.config, self.predict = space, config, predict
        self.area_spacing_m = area_spacing_m
        for k in config.constraints:
            if k.quantity not in space.names and k.quantity not in DERIVED:
                raise ConfigError(
                    f"constraint quantity '{k.quantity}' is unknown: use a parameter name or one "
                    "of "
                    f"{DERIVED}"
                )
        constrained = {k.quantity for k in config.constraints if k.quantity in DERIVED}
        self.needs = constrained | (
            {"frontal_area_m2"} if config.objective == "drag_area" else set()
        )
        if "frontal_area_m2" in self.needs and area_spacing_m is None:
            raise ConfigError(
                "the frontal area (objective drag_area, constraints on frontal_area_m2) is "
                "measured "
                "on the dataset's cell size, but the dataset's case.yaml leaves "
                "body.reference_length_m unset: set it in the sweep's base case and generate the "
                "dataset again, or minimize cd without frontal-area constraints"
            )
        self.sizes = self._sizes(constrained)
        self.evaluations = 0

    def _sizes(self, derived: set[str]) -> dict[str, float]:
        """Each constrained quantity's size, which floors its limits' scales (limit_scale): a
        design parameter's documented range, high - low (shapes/, in its unit); volume_m3 [m^3]
        and frontal_area_m2 [m^2] at the baseline design."""
        documented = {p.name: p.high - p.low for p in FAMILIES[self.space.family]}
        at_baseline = derived_quantities(
            self.space, self.space.baseline[None], derived, self.area_spacing_m
        )
        return {
            k.quantity: documented[k.quantity]
            if k.quantity in documented
            else float(at_baseline[k.quantity][0])
            for k in self.config.constraints
        }

    def value(self, quantity: str, params: Any, quantities: dict[str, np.ndarray]) -> Any:
        """A constrained quantity of each design: a column of params [n, d] (a numpy array or a
        Paddle tensor), or a derived quantity from quantities."""
        return (
            params[:, self.space.names.index(quantity)]
            if quantity in self.space.names
            else quantities[quantity]
        )

    def violations(
        self, params: Any, quantities: dict[str, np.ndarray], relu: Callable = _relu
    ) -> list[Any]:
        """Each constraint's violation of each design, in shares of its limits' scales [-]; 0 where
        it holds. numpy arrays, or Paddle tensors with relu = paddle.nn.functional.relu."""
        out = []
        for k in self.config.constraints:
            value = self.value(k.quantity, params, quantities)
            violation = 0.0 * value
            for limit, sign in ((k.min, -1.0), (k.max, 1.0)):
                if limit is not None:
                    violation = violation + relu(sign * (value - limit)) / limit_scale(
                        limit, self.sizes[k.quantity]
                    )
            out.append(violation)
        return out

    def score(
        self,
        params: Any,
        cd: Any,
        cd_std: Any,
        quantities: dict[str, np.ndarray],
        relu: Callable = _relu,
    ) -> tuple[Any, Any, Any, Any]:
        """The rule of this module's docstring: (objective, objective_std, violation + trust,
        score) of designs params [n, d] with surrogate cd, cd_std [n]. numpy arrays, or Paddle
        tensors with relu = paddle.nn.functional.relu (the gradient search)."""
        area = quantities.get("frontal_area_m2", 1.0)
        objective, objective_std = cd * area, cd_std * area
        violation = sum(self.violations(params, quantities, relu), 0.0 * cd)
        u = self.config.uncertainty
        trust = 0.0 * cd
        if u.max_sigma_counts is not None:
            trust = relu(cd_std / DRAG_COUNT - u.max_sigma_counts) / u.max_sigma_counts
        score = objective + u.kappa * objective_std + PENALTY * (violation**2 + trust**2)
        return objective, objective_std, violation + trust, score

    def evaluate(self, params: np.ndarray) -> Evaluation:
        """Score designs [n, d] (or one [d], in the parameters' units) through the predictor."""
        params = np.atleast_2d(params)
        self.evaluations += len(params)
        cd, cd_std = self.predict(params)
        q = derived_quantities(self.space, params, self.needs, self.area_spacing_m)
        return Evaluation(params, cd, cd_std, *self.score(params, cd, cd_std, q), q)
