"""In-place streaming (`resolution.streaming: aa`, solver/streaming.py): the two-buffer pull's
flow in one buffer, on periodic grids, between walls and in the tunnel with a body, checkpoints
in the two-buffer layout, and what it does not run (refinement, the pooling) refused in one
line."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import PERIODIC, ROOT, decoded_populations, make_case

from solver.config import load_case, merge_case
from solver.errors import ConfigError
from solver.lattice import FLUID, INLET, OUTFLOW, TYPE_MASK
from solver.memory import population_bytes_per_cell
from solver.simulation import Simulation


def periodic_box(nx: int, collision: str, storage: str = "fp32", accel: float = 0.0):
    """A periodic box nx x 9 x 10 cells with a 3D Taylor-Green start at u = 0.05: BGK at Re 100,
    or the vehicle cases' entropic LES at Re 10^4; accel drives it along x."""
    entropic = collision == "entropic"
    return make_case(
        name="box",
        flow={
            "speed_m_s": 1.0,
            "reynolds": 1e4 if entropic else 100.0,
            "initial": "taylor_green",
            "body_accel_m_s2": [accel, 0.0, 0.0],
        },
        domain={"size_m": [1.0, 9 / nx, 10 / nx], "boundaries": PERIODIC},
        body={"reference_length_m": 1.0},
        resolution={
            "cells_per_length": nx,
            "u_lattice": 0.05,
            "collision": collision,
            "smagorinsky_cs": 0.16 if entropic else 0.0,
            "storage": storage,
        },
    )


@pytest.mark.parametrize(
    "nx, collision, storage, accel",
    [
        (12, "bgk", "fp32", 0.0),  # rows shorter than a chunk: cell by cell
        (33, "entropic", "fp32", 0.0),  # two chunks, one at each end of the row, and an overlap
        (40, "entropic", "fp32", 0.05),  # a whole chunk inside the row; a body force
        (33, "bgk", "fp16s", 0.0),  # 16-bit storage: every chunk through a block
    ],
)
def test_in_place_streaming_gives_the_pull(cpu, nx, collision, storage, accel):
    """After 7 steps (an odd number: the buffer in the pushed layout), 8 more and 1 more (the
    fields between: each puts the buffer back to parity 0), the populations and the velocity of
    in-place streaming equal the two-buffer pull's to float32 round-off: within 1e-6 of the
    populations' scale with float32 storage (the two shells contract the same arithmetic into
    fused multiply-adds differently in a few cells: 3e-9 after 20 steps on the LES box), and
    within one 16-bit step (2^-9 of the scale) with fp16s. A slot taken from the wrong link or
    cell differs by the populations' own size."""
    case = periodic_box(nx, collision, storage, accel)
    runs = {}
    for streaming in ("ab", "aa"):
        sim = Simulation(merge_case(case, [f"resolution.streaming={streaming}"]), cpu)
        states = []
        for steps in (7, 8, 1):
            sim.advance(steps)
            states.append((decoded_populations(sim.populations()), sim.fields().velocity))
        runs[streaming] = states
    tol = 1e-6 if storage == "fp32" else 2.0**-9
    for (f_ab, u_ab), (f_aa, u_aa) in zip(runs["ab"], runs["aa"], strict=True):
        scale = np.max(np.abs(f_ab))
        assert np.max(np.abs(f_aa - f_ab)) <= tol * scale
        assert np.max(np.abs(u_aa - u_ab)) <= tol * np.max(np.abs(u_ab)) * 10
    assert np.max(np.abs(runs["ab"][-1][1])) > 0.01  # the flow moves


def test_in_place_streaming_holds_one_buffer(cpu):
    """resolution.streaming=aa allocates one population buffer, 76 B per cell in float32 (38 B
    in 16-bit storage), and the memory estimate counts that."""
    ab = Simulation(periodic_box(16, "bgk"), cpu)
    aa = Simulation(merge_case(periodic_box(16, "bgk"), ["resolution.streaming=aa"]), cpu)
    assert aa._buffer.nbytes * 2 == ab._buffer.nbytes == 2 * 19 * ab.plane_stride * 4
    assert population_bytes_per_cell("fp32", "aa") == 76
    assert population_bytes_per_cell("fp16s", "aa") == 38
    assert population_bytes_per_cell("fp32", "ab") == 152


@pytest.mark.parametrize("first, second", [("aa", "aa"), ("ab", "aa"), ("aa", "ab")])
def test_checkpoint_resumes_across_streaming_modes(cpu, first, second):
    """populations() hands out the two-buffer layout at either parity, so a state saved after an
    odd number of steps resumes bit for bit in the same mode, and in the other mode to float32
    round-off, against the run that went on."""
    case = periodic_box(33, "entropic")
    sim = Simulation(merge_case(case, [f"resolution.streaming={first}"]), cpu)
    sim.advance(5)
    saved = sim.populations()
    sim.advance(6)
    resumed = Simulation(merge_case(case, [f"resolution.streaming={second}"]), cpu)
    resumed.load_populations(saved, 5)
    resumed.advance(6)
    assert resumed.step_count == sim.step_count == 11
    if first == second:
        assert np.array_equal(resumed.populations(), sim.populations())
    else:
        scale = np.max(np.abs(sim.populations()))
        assert np.max(np.abs(resumed.populations() - sim.populations())) <= 1e-6 * scale


@pytest.mark.parametrize(
    "case_file, overrides",
    [
        # the wall-modelled LES channel: plane walls filled with the law of the wall's blend
        ("channel.yaml", ["resolution.cells_per_length=8"]),
        ("poiseuille.yaml", []),  # BGK, halfway bounce-back, rows shorter than a chunk
        ("poiseuille.yaml", ["domain.boundaries.y_max=moving"]),  # the moving wall's pair rule
        # a duct with the wall model: its edges take the general wall rules (lbm_fill_wall_links)
        (
            "poiseuille.yaml",
            [
                "domain.size_m=[0.025,0.1,0.05]",
                "domain.boundaries.z_min=noslip",
                "domain.boundaries.z_max=moving",
                "resolution.collision=entropic",
                "resolution.smagorinsky_cs=0.16",
                "walls.model=loglaw",
            ],
        ),
    ],
    ids=["channel", "poiseuille", "moving-wall", "duct"],
)
def test_in_place_streaming_fills_walls_as_the_pull(cpu, case_file, overrides):
    """Grids between walls: the walls' links, filled before each step where the in-place step
    reads them (lbm_fill_plane_wall and, at edges, lbm_fill_wall_links, each through
    lbm_post_index and lbm_incoming_index), give the fluid cells the two-buffer pull's
    populations after 7 and 8 more steps, to 1e-6 of their scale. (The wall cells' own slots hold
    different things in the two modes and are never read as a state.)"""
    case = load_case(ROOT / "cases" / case_file, overrides)
    runs = {}
    for streaming in ("ab", "aa"):
        sim = Simulation(merge_case(case, [f"resolution.streaming={streaming}"]), cpu)
        assert sim.params["n_wall_fill"] > 0
        fluid = ((sim.flags_host & TYPE_MASK) == FLUID).reshape(-1)
        states = []
        for steps in (7, 8):
            sim.advance(steps)
            planes = sim.populations().reshape(19, -1)[:, : sim.grid.n_cells]
            states.append(planes[:, fluid].astype(np.float64))
        runs[streaming] = states
    for f_ab, f_aa in zip(runs["ab"], runs["aa"], strict=True):
        assert np.max(np.abs(f_aa - f_ab)) <= 1e-6 * np.max(np.abs(f_ab))


@pytest.mark.parametrize(
    "overrides",
    [
        [],  # interpolated bounce-back on the body, the wall model's face rule
        ["walls.body_rule=surface"],  # the rule about the true surface, with its mass return
        ["body.bounce_back=halfway", "walls.model=none"],
    ],
    ids=["faces", "surface", "halfway"],
)
def test_in_place_streaming_runs_the_tunnel_as_the_pull(cpu, overrides):
    """The box near the moving ground (body, inlet, outflow, free-slip walls, the rolling road,
    LES with the wall model) at 12 cells: the cells next to the body, the inlet and the outflow
    set aside before the in-place step and put back after it (lbm_general_cell_aside, _back),
    the free-slip copies of each parity, give the fluid cells the pull's populations, the inlet
    its density state and the body its force after 7 and 8 more steps: populations within 1e-5
    of their scale (the CPU-vs-GPU test's tolerance: the pull collides these cells in a batched
    vector loop and the in-place step one by one, whose float32 contractions differ by a unit in
    the last place after one step, 9e-10, and the LES flow grows that to 1e-7 in 15), the force
    within 1e-4 of itself. A population from the wrong slot differs by the populations' size."""
    case = load_case(
        ROOT / "cases" / "windtunnel_box.yaml",
        ["resolution.cells_per_length=12", "resolution.min_gap_cells=0", *overrides],
    )
    runs = {}
    for streaming in ("ab", "aa"):
        sim = Simulation(merge_case(case, [f"resolution.streaming={streaming}"]), cpu)
        updated = np.isin(sim.flags_host & TYPE_MASK, (FLUID, INLET, OUTFLOW)).reshape(-1)
        states = []
        for steps in (7, 8):
            forces = sim.advance(steps)
            planes = sim.populations().reshape(19, -1)[:, : sim.grid.n_cells]
            states.append((planes[:, updated].astype(np.float64), forces[-1], sim.inlet_state()))
        runs[streaming] = states
    assert runs["aa"][0][0].shape[1] > 0 and sim.params["n_general"] > 0
    assert sim.params["n_freeslip"] > 0 and sim.params["n_wall_fill"] > 0
    for (f_ab, force_ab, inlet_ab), (f_aa, force_aa, inlet_aa) in zip(
        runs["ab"], runs["aa"], strict=True
    ):
        assert np.max(np.abs(f_aa - f_ab)) <= 1e-5 * np.max(np.abs(f_ab))
        assert np.allclose(force_aa, force_ab, rtol=1e-4, atol=1e-6 * np.abs(force_ab).max())
        assert np.allclose(inlet_aa, inlet_ab, rtol=0, atol=1e-7)


def test_in_place_streaming_refuses_levels_and_pooling_in_one_line(cpu):
    """A refined case and the surface rule's pooling are refused, naming the key."""
    box = load_case(
        ROOT / "cases" / "windtunnel_box.yaml",
        [
            "resolution.streaming=aa",
            "resolution.cells_per_length=12",
            "resolution.min_gap_cells=0",
            "walls.body_rule=surface",
            "walls.pool_cells=2",
        ],
    )
    with pytest.raises(ConfigError, match="resolution.streaming=aa runs neither") as info:
        Simulation(box, cpu)
    assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="resolution.streaming"):
        load_case(ROOT / "cases" / "sphere_refined.yaml", ["resolution.streaming=aa"])
