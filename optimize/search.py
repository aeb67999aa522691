"""The two searches, over the unit cube of the free parameters.

- CMA-ES (Hansen & Ostermeier 2001; the `cma` package) on a score function of a batch of
  points: derivative-free, it calls the exported Predictor, the path a service uses.
- Projected gradient descent (Adam, Kingma & Ba 2015) through a differentiable Paddle score,
  from several starts, each step projected back onto the cube.
Both are seeded and repeatable, and both return every point they scored, in order.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass
class SearchResult:
    points: np.ndarray  # [m, k] every point scored, in the order scored
    scores: np.ndarray  # [m]

    @property
    def best(self) -> np.ndarray:
        return self.points[int(np.argmin(self.scores))]


def cmaes(
    score: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    sigma0: float,
    max_evaluations: int,
    seed: int,
    population: int | None = None,
) -> SearchResult:
    """Minimize score (a batch [n, k] -> [n]) over [0, 1]^k from x0."""
    import cma

    options = {
        "bounds": [0.0, 1.0],
        "seed": seed + 1,
        "maxfevals": max_evaluations,
        "verbose": -9,
        "tolx": 1e-6,
        "tolfun": 1e-9,
    }
    if population:
        options["popsize"] = population
    if len(x0) == 1:  # cma needs two dimensions: search a dummy second one that nothing reads
        return _one_dimensional(score, x0, sigma0, max_evaluations, seed, population)
    strategy = cma.CMAEvolutionStrategy(list(np.clip(x0, 0, 1)), sigma0, options)
    points, scores = [], []
    while not strategy.stop():
        batch = np.clip(np.array(strategy.ask()), 0.0, 1.0)
        values = score(batch)
        strategy.tell(list(batch), list(values))
        points.append(batch)
        scores.append(values)
    return SearchResult(np.concatenate(points), np.concatenate(scores))


def _one_dimensional(score, x0, sigma0, max_evaluations, seed, population) -> SearchResult:
    result = cmaes(
        lambda batch: score(batch[:, :1]),
        np.array([x0[0], 0.5]),
        sigma0,
        max_evaluations,
        seed,
        population,
    )
    return SearchResult(result.points[:, :1], result.scores)


def projected_adam(
    score: Callable, starts: np.ndarray, steps: int, learning_rate: float
) -> SearchResult:
    """Minimize score (a Paddle function of a [n, k] tensor -> [n]) from each start at once,
    with Adam steps projected onto [0, 1]^k; every start's point is recorded at every step."""
    import paddle

    x = paddle.to_tensor(np.clip(starts, 0, 1).astype(np.float32), stop_gradient=False)
    m = np.zeros(starts.shape, np.float32)
    v = np.zeros(starts.shape, np.float32)
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    points, scores = [], []
    for t in range(1, steps + 1):
        values = score(x)
        (grad,) = paddle.grad(values.sum(), x)
        g = grad.numpy()
        points.append(x.numpy().copy())
        scores.append(values.numpy().copy())
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        step = learning_rate * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
        x = paddle.to_tensor(np.clip(x.numpy() - step, 0.0, 1.0), stop_gradient=False)
    values = score(x)
    points.append(x.numpy())
    scores.append(values.numpy())
    return SearchResult(np.concatenate(points), np.concatenate(scores))


def distinct_best(
    result: SearchResult, feasible: np.ndarray, k: int, min_distance: float = 0.05
) -> list[int]:
    """Indices of the k best feasible points, each at least min_distance (in the unit cube's
    norm over sqrt(k)) from the better ones."""
    order = [i for i in np.argsort(result.scores) if feasible[i]]
    chosen: list[int] = []
    scale = math.sqrt(result.points.shape[1])
    for i in order:
        if all(
            np.linalg.norm(result.points[i] - result.points[j]) / scale >= min_distance
            for j in chosen
        ):
            chosen.append(int(i))
        if len(chosen) == k:
            break
    return chosen
