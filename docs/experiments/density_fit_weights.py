#!/usr/bin/env python3
"""How the slip rule's density gradient weighs a wall cell's neighbours and its own density.

    python docs/experiments/density_fit_weights.py

Two weighted least-squares fits of the density gradient over the D3Q19 neighbours i whose centres
lie on the fluid side of a plane with unit normal n, the cell's centre d cells off it
(d + c_i . n > 0), weights w_i the lattice's:
  anchored  M grad = sum_i w_i (rho_i - rho) c_i, M = sum_i w_i c_i c_i: through the cell's own
            density rho (`lbm_body_density_along` in cuda/lbm_wall_model.cuh);
  plane     the plane a + grad . c through the neighbours alone, the covariances about their
            weighted mean, the cell's own density left out (density_fit_plane.patch, beside this
            script: `git apply` it to main as of 9567490).
Prints for each, with fixed seeds: the weight of the cell's own density in the gradient along the
plane (the norm of its part along the plane) on the Ahmed body's 25 degree slant, on a step of a
plane 6 degrees off a grid plane (normal (0.108, 0, 0.994), 0.08 cells off: the car's deck), and its
median over random planes; the least det M / (tr M / 3)^3 over random planes (the kernel takes no
gradient below 0.01); how many neighbours offset by more than 0.2 cells along a random direction t
of the plane weigh in the gradient along t against the sign of their offset, and the largest such
offset; and the gradient along the plane that a density raised by 1 in the first layer (the cells
within half a cell of the plane, the cell's own among them) reads, which a gradient along the
surface would not. docs/solver.md, "The slip rule", 3., quotes it.
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
FITS = ("anchored", "plane")


def fit(n: np.ndarray, d: float, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """The fit's weights: grad = weights @ rho_fluid + own * rho. Returns (weights [3, k], own [3],
    the fluid neighbours' mask, det M / (tr M / 3)^3)."""
    fluid = d + C @ n > 0
    c, w = C[fluid], W[fluid]
    m = (w[:, None, None] * c[:, :, None] * c[:, None, :]).sum(axis=0)
    if kind == "anchored":
        weights = np.linalg.solve(m, (w[:, None] * c).T)
        own = -weights.sum(axis=1)
    else:
        mean = (w[:, None] * c).sum(axis=0) / w.sum()
        m = m - w.sum() * np.outer(mean, mean)
        weights = np.linalg.solve(m, (w[:, None] * (c - mean)).T)
        own = np.zeros(3)
    return weights, own, fluid, float(np.linalg.det(m) / (np.trace(m) / 3) ** 3)


def along(n: np.ndarray, v: np.ndarray) -> float:
    """|v's part along the plane with normal n|."""
    return float(np.linalg.norm(v - (v @ n) * n))


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def main() -> None:
    slant = np.radians(25.0)
    n_slant = np.array([np.sin(slant), 0.0, np.cos(slant)])
    n_deck = unit(np.array([0.108, 0.0, 0.994]))
    for kind in FITS:
        print(f"{kind}:")
        for name, n, d in (
            ("25 deg slant, d = 0.006", n_slant, 0.006),
            ("deck step, d = 0.08", n_deck, 0.08),
        ):
            print(
                f"  own density's weight along the plane, {name}:",
                f"{along(n, fit(n, d, kind)[1]):.3f}",
            )

        rng = np.random.default_rng(1)
        weights = [
            along(unit(n), fit(unit(n), d, kind)[1])
            for n in rng.normal(size=(300, 3))
            for d in (0.006, 0.1, 0.3, 0.5, 0.8)
        ]
        print(f"  the same, 300 random planes x 5 distances: median {np.median(weights):.3f}")

        rng = np.random.default_rng(2)
        ratios = [fit(unit(n), rng.uniform(0.0, 1.0), kind)[3] for n in rng.normal(size=(2000, 3))]
        print(f"  det M / (tr M / 3)^3, 2000 random planes and distances: min {min(ratios):.3f}")

        rng = np.random.default_rng(3)
        against, offset, largest = 0, 0, 0.0
        for n in rng.normal(size=(3000, 3)):
            n = unit(n)
            d = rng.uniform(0.0, 1.0)
            t = unit(np.cross(n, rng.normal(size=3)))
            weights_c, _, fluid, _ = fit(n, d, kind)
            offsets = C[fluid] @ t
            far = np.abs(offsets) > 0.2
            wrong = far & (np.sign(offsets) != np.sign(t @ weights_c))
            offset += int(far.sum())
            against += int(wrong.sum())
            if wrong.any():
                largest = max(largest, float(np.abs(offsets[wrong]).max()))
        print(
            f"  neighbours over 0.2 cells along t, 3000 random planes: {against} of {offset}",
            f"against their offset's sign, the largest such offset {largest:.2f} cells",
        )

        rng = np.random.default_rng(4)
        read = []
        for n in rng.normal(size=(1000, 3)):
            n = unit(n)
            d = rng.uniform(0.0, 0.5)
            weights_c, own, fluid, _ = fit(n, d, kind)
            layer = (d + C[fluid] @ n < 0.5).astype(float)
            read.append(along(n, weights_c @ layer + own))
        print(
            "  |grad| along the plane read from a first layer raised by 1, 1000 random planes:",
            f"median {np.median(read):.3f}, max {max(read):.3f}",
        )


if __name__ == "__main__":
    main()
