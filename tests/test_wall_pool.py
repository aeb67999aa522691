"""The surface rule's exchange pooled over patches of wall (walls.pool_cells,
cuda/lbm_wall_pool.cuh): the weights hand each cell's residual back in full, and on a plane wall
turned by atan(1/2) a
uniform flow along the steps loses to the walls what the law of the wall imposes, as on an
aligned wall, where without the pooling the walls take several times that
(benchmarks/staircase_slip.py; docs/validation.md)."""

from __future__ import annotations

import numpy as np
import pytest

from shapes.turned_slabs import staircase_case, wall_distance_cells, wall_slabs
from solver.backends import select_backend
from solver.errors import ConfigError
from solver.simulation import FORCE_FRICTION, FORCE_TOTAL, Simulation

LENGTH_CELLS = 4


def turned_wall(a: int, b: int, *overrides: str) -> Simulation:
    """channel.yaml's LES between the turned slabs, periodic, no drive, nu 1e-9 m^2/s (the law's
    stress about 2e-4 rho U^2), started uniform along x (along the steps)."""
    case = staircase_case(a, b, LENGTH_CELLS, list(overrides))
    sim = Simulation(case, select_backend("cpu"), wall_slabs(a, b))
    m = np.zeros((4, *sim.grid.shape_zyx), np.float32)
    m[0] = 1.0
    m[1] = sim.units.u_lattice
    sim.start_from(m)
    return sim


def momentum_x(sim: Simulation) -> float:
    f = sim.fields()
    return float((f.rho * f.velocity[0])[sim.fluid_mask].sum(dtype=np.float64))


def test_pool_hands_each_residual_back_in_full() -> None:
    sim = turned_wall(1, 2, "walls.pool_cells=3")
    start = np.asarray(sim.params["pool_start"])
    slot = np.asarray(sim.params["pool_slot"])
    weight = np.asarray(sim.params["pool_weight"], np.float64)
    linked = np.asarray(sim.params["slot_wall"])[:, 4] > 0
    assert sim.params["n_pool_slots"] == len(linked)
    handed = np.bincount(slot, weights=weight, minlength=len(linked))
    np.testing.assert_allclose(handed[linked], 1.0, rtol=1e-6)
    rows = np.diff(start)
    assert np.all(rows[~linked] == 0) and np.all(rows[linked] >= 7)
    # the patches wrap across the periodic faces: some slot gathers from one at the far side in y
    y = np.zeros(len(linked))
    cells = np.argwhere(sim.slot_host >= 0)
    y[sim.slot_host[tuple(cells.T)]] = cells[:, 1]
    row_of = np.repeat(np.arange(len(linked)), rows)
    assert np.any(np.abs(y[row_of] - y[slot]) > sim.grid.ny / 2)


def test_pool_needs_the_surface_rule() -> None:
    with pytest.raises(ConfigError, match="walls.pool_cells"):
        turned_wall(1, 2, "walls.pool_cells=3", "walls.body_rule=faces")
    assert turned_wall(1, 2).params["n_pool_slots"] == 0


def walls_take(sim: Simulation, steps: int, window: int) -> tuple[float, float, float]:
    """After steps, over the last window: the x momentum the walls' links took, the part the
    model imposed (both summed over the slots), and the fluid's loss of x momentum."""
    sim.advance(steps - window)
    before = momentum_x(sim)
    forces = sim.advance(window, accumulate_slot_forces=True)
    per_slot = sim.slot_force_sum()
    assert np.isclose(per_slot[:, FORCE_TOTAL, 0].sum(), forces[:, FORCE_TOTAL, 0].sum(), rtol=1e-9)
    return (
        float(per_slot[:, FORCE_TOTAL, 0].sum()),
        float(per_slot[:, FORCE_FRICTION, 0].sum()),
        before - momentum_x(sim),
    )


def first_layer_speed(sim: Simulation, a: int, b: int) -> float:
    in_gap, dist = wall_distance_cells(a, b)
    u = sim.fields().velocity[0].mean(axis=2) / sim.units.u_lattice
    return float(u[in_gap & (dist < 1.0)].mean())


def test_pooled_turned_wall_takes_the_modelled_stress() -> None:
    """26.6 deg, 600 steps, the last 150 counted: the pooled walls take the modelled stress (to
    1e-3) and the fluid loses what they take (within 3%: the fluid's momentum, summed from float32
    populations, and the exchange agree to 1.5% here); the first layer keeps the aligned wall's
    speed (0.973 U) within 0.02 U (0.979). Without the pooling the walls take 5.6 times the
    modelled stress and the first layer is 0.03 U slower (0.942)."""
    aligned = turned_wall(0, 1)
    walls_take(aligned, 600, 150)
    pooled = turned_wall(1, 2, "walls.pool_cells=3")
    taken, modelled, lost = walls_take(pooled, 600, 150)
    assert taken == pytest.approx(modelled, rel=1e-3)
    assert lost == pytest.approx(taken, rel=0.03)
    assert abs(first_layer_speed(pooled, 1, 2) - first_layer_speed(aligned, 0, 1)) < 0.02
    plain = turned_wall(1, 2)
    taken, modelled, lost = walls_take(plain, 600, 150)
    assert lost == pytest.approx(taken, rel=0.03)
    assert taken > 2.0 * modelled
    assert first_layer_speed(plain, 1, 2) < first_layer_speed(aligned, 0, 1) - 0.02
