"""One optimization end to end: design space, feasibility, search through the surrogate, LBM
verification, active-learning rounds, and the artifacts (what optimize_shape.py runs).

Over 250 lines: the stages, one function each, pass one another the run's artifacts."""

from __future__ import annotations

import csv
import io
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf

from optimize.design_space import make_design_space
from optimize.opt_config import DERIVED, OptimizeConfig
from optimize.problem import Evaluation, Problem, derived_quantities, family_mesh
from optimize.report import history_png, report_md
from optimize.search import cmaes, distinct_best, projected_adam
from optimize.verify import Verified, dataset_case, draw_pictures, simulate
from shapes.case_geometry import CASE_SCHEMA
from shapes.mesh import write_mesh
from solver.atomic import write_atomically, write_text
from solver.config import load_case
from solver.errors import ConfigError
from viz.numbers import coefficient

log = logging.getLogger(__name__)

#: Designs sampled to test that the constraints can be met before searching.
FEASIBILITY_SAMPLES = 256


def gradient_score(problem: Problem, model: Callable) -> Callable:
    """The differentiable score of unit-cube points (a Paddle tensor [n, n_free]) through the
    Paddle model params -> (mean, std): Problem.score's rule, as the Predictor's path scores."""
    import paddle

    space = problem.space
    select = np.zeros((space.n_free, len(space.names)), np.float32)
    select[np.arange(space.n_free), np.flatnonzero(space.free)] = 1.0
    base = paddle.to_tensor(np.where(space.free, space.low, space.baseline).astype(np.float32))
    span = paddle.to_tensor(np.where(space.free, space.high - space.low, 0.0).astype(np.float32))
    select_t = paddle.to_tensor(select)

    def score(unit):
        params = base + paddle.matmul(unit, select_t) * span
        mean, std = model(params)
        return problem.score(params, mean[:, 0], std[:, 0], {}, paddle.nn.functional.relu)[-1]

    return score


def check_feasible(problem: Problem, seed: int) -> None:
    """ConfigError when none of the baseline and FEASIBILITY_SAMPLES Sobol designs meets a
    constraint (the search would only find a penalised design)."""
    if not problem.config.constraints:
        return
    from scipy.stats import qmc

    space = problem.space
    unit = qmc.Sobol(space.n_free, scramble=True, seed=seed).random(FEASIBILITY_SAMPLES)
    params = np.concatenate([space.baseline[None], space.to_params(unit)])
    quantities = derived_quantities(space, params, problem.needs, problem.area_spacing_m)
    for k, violation in zip(
        problem.config.constraints, problem.violations(params, quantities), strict=False
    ):
        if not np.any(violation == 0.0):
            v = problem.value(k.quantity, params, quantities)
            raise ConfigError(
                f"constraint on {k.quantity} (min {k.min}, max {k.max}) holds for none of "
                f"{len(params)} designs spread over the search space ({k.quantity} spans "
                f"{v.min():.4g}-{v.max():.4g}): relax it or widen the bounds"
            )


def dataset_dx_m(case: Path) -> float | None:
    """The dataset's cell size [m], body.reference_length_m / resolution.cells_per_length of its
    resolved case (read and validated by the solver's loader); None where the case leaves the
    reference length to each design's mesh."""
    resolved = load_case(case, schema=CASE_SCHEMA)
    length_m = resolved.body.reference_length_m
    return None if length_m is None else length_m / resolved.resolution.cells_per_length


def search(
    config: OptimizeConfig, space, problem: Problem, model_folder: Path
) -> tuple[np.ndarray, Evaluation, list[int]]:
    """One search: the score history, every design scored through the Predictor, and the
    indices of the best distinct feasible ones."""
    evaluations: list[Evaluation] = []

    def score(unit: np.ndarray) -> np.ndarray:
        e = problem.evaluate(space.to_params(unit))
        evaluations.append(e)
        return e.score

    x0 = space.to_unit(space.baseline)[0]
    if config.method == "cmaes":
        result = cmaes(
            score,
            x0,
            config.cmaes.sigma0,
            config.cmaes.max_evaluations,
            config.seed,
            config.cmaes.population,
        )
    else:
        from surrogate.export import load_dygraph

        g = config.gradient
        rng = np.random.default_rng(config.seed)
        starts = np.concatenate([x0[None], rng.random((g.starts - 1, space.n_free))])
        result = projected_adam(
            gradient_score(problem, load_dygraph(model_folder)), starts, g.steps, g.learning_rate
        )
        score(result.points)  # the Predictor's figures for every point the descent visited
    final = Evaluation(
        *(
            np.concatenate([getattr(e, f) for e in evaluations])
            for f in ("params", "cd", "cd_std", "objective", "objective_std", "violation", "score")
        ),
        quantities={},
    )
    feasible = final.violation <= 1e-9
    if not feasible.any():
        raise ConfigError("no design the search visited satisfies the constraints: relax them")
    chosen = distinct_best(
        type(result)(space.to_unit(final.params), final.score), feasible, config.verify.top_k
    )
    return result.scores, final, chosen


def run_optimization(config: OptimizeConfig, out: Path) -> dict:
    """Search, verify and write the artifacts into out; returns what result.json holds."""
    from surrogate.predictor import Predictor

    model_folder = Path(config.model)
    predictor = Predictor(model_folder, runtime=config.predictor.runtime)
    if predictor.spec.takes != "parameters":
        raise ConfigError(
            f"key 'model': '{config.model}' holds a {predictor.kind}; the optimizer searches "
            "parameters through a ParamNet"
        )
    meta = predictor.meta
    if meta.dataset is None:
        raise ConfigError(
            f"key 'model': '{config.model}' records no dataset (it was not exported by "
            "train_surrogate.py): the optimizer verifies on the dataset's case"
        )
    space = make_design_space(config, meta.dataset.family, meta.parameters or [])
    dataset = Path(meta.dataset.folder)
    case = dataset_case(dataset)
    dx_m = dataset_dx_m(case)

    seconds = {"inference": 0.0, "optimization": 0.0, "verification": 0.0, "retraining": 0.0}

    def make_problem(p: Predictor) -> Problem:
        def predict(params: np.ndarray):
            t0 = time.perf_counter()
            r = p.predict_parameters(params)
            seconds["inference"] += time.perf_counter() - t0
            return r.cd, r.cd_std

        return Problem(space, config, predict, area_spacing_m=dx_m)

    problem = make_problem(predictor)
    if config.method == "gradient" and problem.needs:
        raise ConfigError(
            "method gradient differentiates through the network: objective drag_area and "
            f"constraints on {DERIVED} need method cmaes"
        )
    check_feasible(problem, config.seed)
    areas: dict[str, float] = {}

    def verify(label: str, params: np.ndarray, cd: float, std: float) -> Verified:
        log.info(
            "verifying %s with the LBM (surrogate Cd %s +- %s)",
            label,
            coefficient(cd),
            coefficient(std),
        )
        t0 = time.perf_counter()
        summary = simulate(
            case, space.family, space.names, params, out / label, config.verify.backend
        )
        seconds["verification"] += time.perf_counter() - t0
        if config.objective == "drag_area":
            areas[label] = float(
                derived_quantities(space, params[None], {"frontal_area_m2"}, dx_m)[
                    "frontal_area_m2"
                ][0]
            )
        return Verified(
            label,
            params,
            float(cd),
            float(std),
            float(summary["cd"]),
            bool(summary["converged"]),
            out / label,
        )

    def lbm_objective(v: Verified) -> float:
        return v.cd_lbm * areas.get(v.label, 1.0)

    first = problem.evaluate(space.baseline)
    verified = [verify("baseline", first.params[0], first.cd[0], first.cd_std[0])]
    baseline_objective = lbm_objective(verified[0])
    histories, rounds, evaluations = [], [], 0
    for r in range(1, config.rounds + 1):
        if r > 1:
            problem = make_problem(predictor)
        t0, inference_before = time.perf_counter(), seconds["inference"]
        history, final, chosen = search(config, space, problem, model_folder)
        seconds["optimization"] += (
            time.perf_counter() - t0 - (seconds["inference"] - inference_before)
        )
        histories.append(history)
        evaluations += problem.evaluations
        prefix = "candidate" if config.rounds == 1 else f"round{r}_candidate"
        new = [
            verify(f"{prefix}_{n + 1}", final.params[i], final.cd[i], final.cd_std[i])
            for n, i in enumerate(chosen)
        ]
        verified += new
        gain = (baseline_objective - min(lbm_objective(v) for v in new)) / baseline_objective
        growing = not rounds or gain > max(x["lbm_improvement"] for x in rounds)
        rounds.append(
            {
                "round": r,
                "model": str(model_folder),
                "lbm_improvement": gain,
                "surrogate_evaluations": problem.evaluations,
            }
        )
        log.info("round %d: best LBM-confirmed improvement %.2f%%", r, 100 * gain)
        if r == config.rounds or not growing:
            if not growing:
                log.info("the LBM-confirmed improvement stopped growing: no more rounds")
            break
        from optimize.active_learning import add_to_dataset, retrain

        added = add_to_dataset(
            dataset, space.family, space.names, [v.params for v in new], config.verify.backend
        )
        log.info("round %d: %d designs added to %s; retraining", r, added, dataset)
        t0 = time.perf_counter()
        model_folder = retrain(model_folder, out / f"round_{r + 1}")
        seconds["retraining"] += time.perf_counter() - t0
        predictor = Predictor(model_folder, runtime=config.predictor.runtime)

    best = min(verified, key=lbm_objective)
    t0 = time.perf_counter()
    for v in {verified[0].label: verified[0], best.label: best}.values():
        draw_pictures(v.folder)
    seconds["verification"] += time.perf_counter() - t0
    history = np.concatenate(histories)
    mesh = family_mesh(space.family, dict(zip(space.names, map(float, best.params), strict=False)))
    write_atomically(out / "best.stl", lambda tmp: write_mesh(mesh, tmp, file_format="stl"))
    write_atomically(
        out / "history.png",
        lambda tmp: history_png(tmp, history, float(first.score[0]), config.objective),
    )
    write_text(
        out / "report.md",
        report_md(
            space,
            verified,
            config.objective,
            config.uncertainty.kappa,
            config.method,
            evaluations,
            best,
            areas,
            rounds,
        ),
    )
    rows = io.StringIO()
    writer = csv.writer(rows, lineterminator="\n")
    writer.writerow(["label", "cd_surrogate", "cd_std", "cd_lbm", "converged", *space.names])
    for v in verified:
        writer.writerow(
            [v.label, v.cd_surrogate, v.cd_std, v.cd_lbm, int(v.converged), *map(float, v.params)]
        )
    write_text(out / "candidates.csv", rows.getvalue())
    result_json = {
        "best": best.label,
        "objective": config.objective,
        "method": config.method,
        "surrogate_evaluations": evaluations,
        "predictor_path": predictor.path,
        "rounds": rounds,
        "seconds": seconds,
        "designs": [
            {
                "label": v.label,
                "cd_surrogate": v.cd_surrogate,
                "cd_std": v.cd_std,
                "cd_lbm": v.cd_lbm,
                "converged": v.converged,
                "objective_lbm": lbm_objective(v),
                "parameters": dict(zip(space.names, map(float, v.params), strict=False)),
            }
            for v in verified
        ],
    }
    write_text(out / "result.json", json.dumps(result_json, indent=2) + "\n")
    write_text(out / "config.yaml", OmegaConf.to_yaml(OmegaConf.structured(config)))
    return result_json
