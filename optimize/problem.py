"""What is minimized: the surrogate's objective plus its uncertainty plus constraint penalties.

score = mean + kappa * sigma of the objective (Cd, or drag area Cd * A), + PENALTY * (the
constraint violations, each over its limit's scale)^2, + the same for sigma(Cd) beyond the
trust region. Minimizing mean + kappa sigma keeps the search where the ensemble agrees with
itself and with the data: an upper confidence bound of the objective.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from optimize.design_space import DesignSpace
from optimize.opt_config import DERIVED, OptimizeConfig
from shapes.geometry_config import family_overrides
from solver.errors import ConfigError

PENALTY = 1e3


@dataclass
class Evaluation:
    params: np.ndarray       # [n, d]
    cd: np.ndarray           # [n] surrogate mean
    cd_std: np.ndarray       # [n]
    objective: np.ndarray    # [n] Cd or Cd * A [m^2]
    objective_std: np.ndarray
    violation: np.ndarray    # [n] summed relative constraint violation, 0 where feasible
    score: np.ndarray        # [n] what the optimizers minimize
    quantities: dict[str, np.ndarray]  # derived quantities computed for these designs


def family_mesh(family: str, params: dict[str, float]):
    """The closed mesh of one design (shapes/, through the geometry section's builder)."""
    from omegaconf import OmegaConf

    from shapes.geometry_config import GeometryConfig, build_geometry

    geometry = OmegaConf.merge(OmegaConf.structured(GeometryConfig),
                               OmegaConf.from_dotlist([o.removeprefix("geometry.")
                                                       for o in family_overrides(family, params)]))
    return build_geometry(OmegaConf.to_object(geometry))


def derived_quantities(space: DesignSpace, params: np.ndarray, which: set[str],
                       area_spacing_m: float = 0.01) -> dict[str, np.ndarray]:
    """volume_m3 and frontal_area_m2 of each design, from its mesh (only those asked for). The
    area by rays area_spacing_m apart: the dataset's dx measures it as the solver measured the
    reference area of the Cd the surrogate learnt."""
    if not which:
        return {}
    from solver.backends.cpu import CpuBackend
    from solver.voxelize import frontal_area_m2

    backend = CpuBackend()
    out = {name: np.zeros(len(params)) for name in which}
    for k, row in enumerate(params):
        mesh = family_mesh(space.family, dict(zip(space.names, map(float, row))))
        if "volume_m3" in which:
            out["volume_m3"][k] = mesh.volume_m3()
        if "frontal_area_m2" in which:
            out["frontal_area_m2"][k] = frontal_area_m2(backend, mesh.vertices_m, mesh.faces, (-1e9, 1e9),
                                                        (-1e9, 1e9), area_spacing_m)
    return out


class Problem:
    """Scores designs through a predictor function params [n, d] -> (cd, cd_std)."""

    def __init__(self, space: DesignSpace, config: OptimizeConfig, predict, area_spacing_m: float = 0.01) -> None:
        self.space, self.config, self.predict = space, config, predict
        self.area_spacing_m = area_spacing_m
        for k in config.constraints:
            if k.quantity not in space.names and k.quantity not in DERIVED:
                raise ConfigError(f"constraint quantity '{k.quantity}' is unknown: use a parameter name or one of "
                                  f"{DERIVED}")
        self.needs = {k.quantity for k in config.constraints if k.quantity in DERIVED}
        if config.objective == "drag_area":
            self.needs.add("frontal_area_m2")
        self.evaluations = 0

    def evaluate(self, params: np.ndarray) -> Evaluation:
        params = np.atleast_2d(params)
        self.evaluations += len(params)
        cd, cd_std = self.predict(params)
        q = derived_quantities(self.space, params, self.needs, self.area_spacing_m)
        area = q.get("frontal_area_m2", np.ones(len(params)))
        objective, objective_std = cd * area, cd_std * area
        violation = np.zeros(len(params))
        for k in self.config.constraints:
            value = params[:, self.space.names.index(k.quantity)] if k.quantity in self.space.names else q[k.quantity]
            for limit, sign in ((k.min, -1.0), (k.max, 1.0)):
                if limit is not None:
                    violation += np.maximum(sign * (value - limit), 0.0) / max(abs(limit), 1e-9)
        u = self.config.uncertainty
        score = objective + u.kappa * objective_std + PENALTY * violation**2
        trust = np.zeros(len(params))
        if u.max_sigma_counts is not None:
            trust = np.maximum(cd_std / 1e-3 - u.max_sigma_counts, 0.0) / u.max_sigma_counts
            score = score + PENALTY * trust**2
        return Evaluation(params, cd, cd_std, objective, objective_std, violation + trust, score, q)
