"""The entropic regularized collision: the kernel against a textbook NumPy version, its
conservation, and its linear stability at tau0 -> 1/2 (von Neumann), beside BGK's."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import run_periodic_step
from oracle import (
    collide_entropic,
    entropic_equilibrium,
    equilibrium,
    step_periodic_entropic,
    stress_covariance,
    stress_covariance_second_order,
)

from solver import lattice

W = lattice.W[:, None, None, None]


def _random_state(shape, seed=0, u_scale=0.05, neq=2e-3):
    rng = np.random.default_rng(seed)
    f = np.empty((19, *shape))
    for idx in np.ndindex(shape):
        u = u_scale * rng.standard_normal(3)
        f[(slice(None), *idx)] = entropic_equilibrium(1 + 0.01 * rng.standard_normal(), u)
    return f + neq * rng.standard_normal((19, *shape)) * W


@pytest.mark.parametrize(
    "cs_smag, g", [(0.0, (0.0, 0.0, 0.0)), (0.17, (0.0, 0.0, 0.0)), (0.0, (2e-4, -1e-4, 5e-5))]
)
def test_entropic_step_matches_numpy_oracle(cpu, cs_smag, g):
    """A random non-equilibrium state (|u| ~ 0.05) on a 7x5x4 periodic box, tau0 = 0.5001:
    one kernel step (closed-form moments, float32) equals the NumPy step (Newton with numpy's
    exp, the projection expanded about u = 0 with Q from the exact K, float64) to 2e-6 of each
    link's weight."""
    f = _random_state((4, 5, 7))
    got = run_periodic_step(cpu, f, 0.5001, cs_smag, collision="entropic", g=g)
    ref = step_periodic_entropic(f, 0.5001, cs_smag, np.array(g))
    assert np.max(np.abs(got - ref) / W) < 2e-6


def test_kernel_takes_the_expanded_projection(cpu):
    """At speeds up to |u| = 0.17 with a large non-equilibrium part (2e-2 of each weight) the
    expanded projection (lambda = (K0^-1 - K0^-1 Q K0^-1) pi, Q from the exact K by Richardson
    extrapolation in the oracle, in closed form in the kernel) and the exact one differ by 2e-3 of
    a weight: the kernel's step equals the expanded oracle to 2e-6 and differs from the exact one
    by more than 1e-3, so this test tells the two apart."""
    f = _random_state((4, 5, 7), seed=5, u_scale=0.12, neq=2e-2)
    got = run_periodic_step(cpu, f, 0.5001, 0.0, collision="entropic")
    expanded = step_periodic_entropic(f, 0.5001)
    exact = step_periodic_entropic(f, 0.5001, projection="exact")
    kernel_vs_expanded = np.max(np.abs(got - expanded) / W)
    kernel_vs_exact = np.max(np.abs(got - exact) / W)
    print(
        f"measured: kernel - expanded {kernel_vs_expanded:.1e}, "
        f"kernel - exact {kernel_vs_exact:.1e}"
    )
    assert kernel_vs_expanded < 2e-6
    assert kernel_vs_exact > 1e-3


@pytest.mark.parametrize("speed, damping_bound", [(0.1, 1e-3), (0.2, 1.5e-2), (0.3, 6e-2)])
def test_expanded_projection_only_damps(speed, damping_bound):
    """The expanded fit M = K0^-1 - K0^-1 Q K0^-1 against the exact K(u), 50 random directions:
    the eigenvalues of K M lie in [1 - bound, 1] (measured over these directions: 1 - 7.5e-4 at
    |u| = 0.1, 1 - 1.1e-2 at 0.2, 1 - 4.9e-2 at 0.3; over 200 more, 7.6e-4 and 5.0e-2). K M <= 1
    keeps the relaxation a contraction in the entropic scalar product; 1 - K M is the stress it
    damps beyond the exact projection's. The whole stress relaxation, the trace direction at
    omega_bulk = 1 with its norm to first order (3/2 (1 + 2 |u|^2)) included, has spectral
    radius <= 1 in that scalar product for omega in {0.5, 1.5, 1.99, 2}."""
    rng = np.random.default_rng(7)
    k0_inv = np.linalg.inv(stress_covariance(np.zeros(3)))
    trace = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    lowest, highest, radius = 1.0, 0.0, 0.0
    for _ in range(50):
        d = rng.standard_normal(3)
        u = speed * d / np.linalg.norm(d)
        k = stress_covariance(u)
        fit = k0_inv - k0_inv @ stress_covariance_second_order(u) @ k0_inv
        eig = np.linalg.eigvals(k @ fit).real
        lowest, highest = min(lowest, eig.min()), max(highest, eig.max())
        values, vectors = np.linalg.eigh(k)
        k_half = vectors @ np.diag(np.sqrt(values)) @ vectors.T
        inv_trace_norm = 1.5 * (1 + 2 * u @ u)
        for omega in (0.5, 1.5, 1.99, 2.0):
            relax = (1 - omega) * fit + (omega - 1) * inv_trace_norm * np.outer(trace, trace)
            radius = max(radius, np.abs(np.linalg.eigvalsh(k_half @ relax @ k_half)).max())
    print(
        f"measured: |u| = {speed}: eigenvalues of K M in "
        f"[1 - {1 - lowest:.1e}, 1 - {1 - highest:.1e}]; relaxation's radius {radius:.6f}"
    )
    assert highest <= 1 + 1e-12
    assert lowest >= 1 - damping_bound
    assert radius <= 1 + 1e-12


def test_entropic_step_conserves_mass_and_momentum(cpu):
    """Collision conserves mass exactly and momentum up to the body force (none here): the box's
    totals after a step equal those before to float32 round-off, at |u| up to ~0.3."""
    f = _random_state((4, 5, 7), seed=3, u_scale=0.1)
    got = run_periodic_step(cpu, f, 0.5000003, 0.16, collision="entropic")
    assert got.sum() == pytest.approx(f.sum(), rel=1e-7)
    j_before = lattice.C.T.astype(float) @ f.reshape(19, -1).sum(axis=1)
    j_after = lattice.C.T.astype(float) @ got.reshape(19, -1).sum(axis=1)
    assert np.max(np.abs(j_after - j_before)) < 1e-6 * f.sum() * 0.05


def test_entropic_equilibrium_at_rest_is_the_weights_and_moves_exactly(cpu):
    """At rest E = w; a uniform flow is a fixed point of the kernel's step (to round-off)."""
    assert np.allclose(entropic_equilibrium(1.0, np.zeros(3)), lattice.W, atol=1e-15)
    f = np.broadcast_to(
        entropic_equilibrium(1.02, np.array([0.1, -0.03, 0.02]))[:, None, None, None], (19, 3, 3, 3)
    ).copy()
    got = run_periodic_step(cpu, f, 0.5000003, 0.16, collision="entropic")
    assert np.max(np.abs(got - f) / W) < 1e-6


# ---- von Neumann analysis --------------------------------------------------------------------


def _bgk_collide(f, omega):
    rho = f.sum()
    u = lattice.C.astype(float).T @ f  # incompressible: u = j / rho_0
    eq = equilibrium(np.asarray(rho), u)
    return eq + (1 - omega) * (f - eq)


def max_growth(collide, f0, tau0, n_k=24):
    """Largest |lambda| of the linearised step (pull streaming after the collision) over a
    n_k^3 grid of wave vectors in [-pi, pi)^3, about the uniform state f0. The collision's
    Jacobian by central differences (float64, h = 1e-6)."""
    omega = 1.0 / tau0
    h = 1e-6
    jac = np.empty((19, 19))
    for i in range(19):
        d = np.zeros(19)
        d[i] = h
        jac[:, i] = (collide(f0 + d, omega) - collide(f0 - d, omega)) / (2 * h)
    ks = np.linspace(-np.pi, np.pi, n_k, endpoint=False)
    k = np.array(list(itertools.product(ks, ks, ks)))
    shift = np.exp(-1j * k @ lattice.C.T.astype(float))
    lam = np.abs(np.linalg.eigvals(shift[:, :, None] * jac[None]))
    return float(lam.max())


MEAN_FLOWS = [
    (0.0, 0.0, 0.0),
    (0.05, 0.0, 0.0),
    (0.1, 0.0, 0.0),
    (0.06, 0.05, 0.04),
    (0.2, 0.0, 0.0),
    (0.12, 0.1, 0.08),
]


#: The kernel's operator at every mean flow; the exact projection beside it at the two fastest.
SPECTRUM_CASES = [(u, "expanded") for u in MEAN_FLOWS] + [(u, "exact") for u in MEAN_FLOWS[-2:]]


@pytest.mark.parametrize("u, projection", SPECTRUM_CASES)
def test_entropic_is_linearly_stable_at_vanishing_viscosity(u, projection):
    """tau0 - 1/2 = 1e-6, mean flows up to |u| = 0.2: no mode of the linearised entropic step
    grows (max |lambda| <= 1 + 1e-9, the Jacobian's round-off), with the kernel's expanded
    projection and with the exact one."""
    u = np.array(u)

    def collide(f, omega):
        return collide_entropic(f, omega, projection=projection)

    growth = max_growth(collide, entropic_equilibrium(1.0, u), 0.5 + 1e-6)
    print(
        f"measured: entropic ({projection}), u = {u.tolist()}: max |lambda| - 1 = {growth - 1:.2e}"
    )
    assert growth <= 1 + 1e-9


def test_bgk_grows_at_vanishing_viscosity():
    """The contrast: BGK with the polynomial equilibrium at tau0 - 1/2 = 1e-6 and u = 0.1 has
    modes growing by more than 1e-3 per step (the instability of docs/solver.md)."""
    u = np.array([0.1, 0.0, 0.0])
    growth = max_growth(_bgk_collide, equilibrium(np.asarray(1.0), u), 0.5 + 1e-6)
    print(f"measured: bgk, u = (0.1, 0, 0): max |lambda| - 1 = {growth - 1:.2e}")
    assert growth > 1 + 1e-3
