#!/usr/bin/env python3
"""How the slip rule's least-squares density gradient weighs a wall cell's neighbours.

    python docs/experiments/density_fit_weights.py

The fit of `lbm_body_density_along` (cuda/lbm_wall_model.cuh): M grad = sum_i w_i (rho_i - rho) c_i,
M = sum_i w_i c_i c_i, over the D3Q19 neighbours i whose centres lie on the fluid side of a plane
with unit normal n, the cell's centre d cells off it (d + c_i . n > 0). Prints, with fixed seeds:
the weight of the cell's own density in the gradient along the plane (the norm of its part along
the plane) on the Ahmed body's 25 degree slant and its median over random planes; the least
det M / (tr M / 3)^3 over random planes (the kernel takes no gradient below 0.01); and how many
neighbours offset by more than 0.2 cells along a random direction t of the plane weigh in the
gradient along t against the sign of their offset, and the largest such offset. docs/solver.md,
"The slip rule", 3., quotes it.
"""

from __future__ import annotations

import numpy as np

C = np.array(
    [
        (x, y, z)
        for z in (-1, 0, 1)
        for y in (-1, 0, 1)
        for x in (-1, 0, 1)
        if 0 < abs(x) + abs(y) + abs(z) <= 2
    ],
    float,
)
W = np.where(np.abs(C).sum(axis=1) == 1, 1 / 18, 1 / 36)


def fit_matrix(n: np.ndarray, d: float) -> tuple[np.ndarray, np.ndarray]:
    """M and the fluid neighbours' mask for a cell d cells off the plane with normal n."""
    fluid = d + C @ n > 0
    m = (W[fluid, None, None] * C[fluid, :, None] * C[fluid, None, :]).sum(axis=0)
    return m, fluid


def own_weight_along(n: np.ndarray, d: float) -> float:
    """|the part along the plane of the own density's coefficient vector in grad|."""
    m, fluid = fit_matrix(n, d)
    own = -np.linalg.solve(m, (W[fluid, None] * C[fluid]).sum(axis=0))
    return float(np.linalg.norm(own - (own @ n) * n))


def main() -> None:
    slant = np.radians(25.0)
    n_slant = np.array([np.sin(slant), 0.0, np.cos(slant)])
    print(
        "own density's weight along the 25 deg slant, d = 0.006:",
        f"{own_weight_along(n_slant, 0.006):.3f}",
    )

    rng = np.random.default_rng(1)
    normals = rng.normal(size=(300, 3))
    weights = [
        own_weight_along(n / np.linalg.norm(n), d)
        for n in normals
        for d in (0.006, 0.1, 0.3, 0.5, 0.8)
    ]
    print(
        "own density's weight along the plane, 300 random planes x 5 distances:",
        f"median {np.median(weights):.3f}, max {max(weights):.3f}",
    )

    rng = np.random.default_rng(2)
    ratios = []
    for n in rng.normal(size=(2000, 3)):
        m, _ = fit_matrix(n / np.linalg.norm(n), rng.uniform(0.0, 1.0))
        ratios.append(np.linalg.det(m) / (np.trace(m) / 3) ** 3)
    print(f"det M / (tr M / 3)^3 over 2000 random planes and distances: min {min(ratios):.3f}")

    rng = np.random.default_rng(3)
    against, offset, largest = 0, 0, 0.0
    for n in rng.normal(size=(3000, 3)):
        n /= np.linalg.norm(n)
        d = rng.uniform(0.0, 1.0)
        t = np.cross(n, rng.normal(size=3))
        t /= np.linalg.norm(t)
        m, fluid = fit_matrix(n, d)
        weights_t = np.linalg.solve(m, C[fluid].T).T @ t
        along = C[fluid] @ t
        far = np.abs(along) > 0.2
        wrong = far & (np.sign(along) != np.sign(weights_t))
        offset += int(far.sum())
        against += int(wrong.sum())
        if wrong.any():
            largest = max(largest, float(np.abs(along[wrong]).max()))
    print(
        "neighbours offset by over 0.2 cells along t, 3000 random planes:",
        f"{against} of {offset} weigh against their offset's sign,",
        f"the largest such offset {largest:.2f} cells",
    )


if __name__ == "__main__":
    main()
