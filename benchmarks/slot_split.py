#!/usr/bin/env python3
"""Where the momentum exchange and the surface integrals part ways on a body: each reporting
cell's three forces (momentum exchange, pressure, friction) averaged over a window and summed by
bands of the cell's direction from the body's centre (cos of its angle from +x), with the
exchange split into its parts along and across the cells' area vectors.

The case is the sphere of ../shared/diagnostics/momentum_balance.py (Re 10^6, 12 cells per
diameter, periodic along x, driven by a body force):

    OMP_NUM_THREADS=2 python benchmarks/slot_split.py [key=value ...]   e.g. walls.body_rule=surface

Forces are lattice units per step. Ends with one JSON line.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shapes.case_geometry import CASE_SCHEMA, case_mesh  # noqa: E402
from slipstream.model import body_surface  # noqa: E402
from solver import lattice  # noqa: E402
from solver.backends import select_backend  # noqa: E402
from solver.config import load_case  # noqa: E402
from solver.drag_breakdown import slot_cells  # noqa: E402
from solver.simulation import FORCE_FRICTION, FORCE_PRESSURE, FORCE_TOTAL, Simulation  # noqa: E402

BASE = [
    "domain.boundaries.x_min=periodic",
    "domain.boundaries.x_max=periodic",
    "domain.sponge.length_m=0",
    "flow.reynolds=1e6",
    "resolution.smagorinsky_cs=0.16",
    "resolution.u_lattice=0.1",
    "domain.size_m=[0.6,0.4,0.4]",
    "body.center_m=[0.2,0.2,0.2]",
    "resolution.cells_per_length=12",
    "flow.body_accel_m_s2=[2.0,0,0]",
]
DEVELOP_STEPS, WINDOW_STEPS, SAMPLE_EVERY = 500, 500, 10


def cut_link_equilibrium_x(sim: Simulation, rho: np.ndarray, uu: np.ndarray) -> np.ndarray:
    """Per slot, the x-force on the body of its body links' equilibrium exchange,
    -sum_q c_q,x 2 w_q (rho - 1 + 9/2 c_q c_q : <u u> - 3/2 tr <u u>), from the window's mean
    density and mean u u [3, 3, z, y, x] (lattice units): the pressure and the u u flux the
    staircase of links hands over, where the surface integral takes p a_k."""
    body = (sim.flags_host & lattice.BODY) != 0
    slot = sim.slot_host
    out = np.zeros(int(slot.max()) + 1)
    mine = slot >= 0
    trace = uu[0, 0] + uu[1, 1] + uu[2, 2]
    for q in range(1, lattice.Q):
        c = lattice.C[q]
        # the link q of a cell is cut when the cell at x - c is body
        source_is_body = np.roll(body, shift=(int(c[2]), int(c[1]), int(c[0])), axis=(0, 1, 2))
        cut = mine & source_is_body
        cuu = np.einsum("a,b,abzyx->zyx", c.astype(float), c.astype(float), uu)
        ex = 2.0 * lattice.W[q] * (rho - 1.0 + 4.5 * cuu - 1.5 * trace)
        np.add.at(out, slot[cut], -c[0] * ex[cut])
    return out


def main() -> int:
    case = load_case(ROOT / "cases" / "sphere.yaml", BASE + sys.argv[1:], schema=CASE_SCHEMA)
    mesh = case_mesh(case)
    sim = Simulation(case, select_backend("cpu"), mesh)
    surface = body_surface(case, sim, mesh)
    sim.attach_surface(surface.vertices_m, surface.faces)
    sim.advance(DEVELOP_STEPS)
    rho_sum, uu_sum, samples = 0.0, 0.0, 0
    for _ in range(WINDOW_STEPS // SAMPLE_EVERY):
        sim.advance(SAMPLE_EVERY, accumulate_slot_forces=True)
        fields = sim.fields()
        rho_sum = rho_sum + fields.rho
        uu_sum = uu_sum + np.einsum("azyx,bzyx->abzyx", fields.velocity, fields.velocity)
        samples += 1
    mean = sim.slot_force_sum() / WINDOW_STEPS
    equilibrium_x = cut_link_equilibrium_x(sim, rho_sum / samples, uu_sum / samples)
    area = sim.surface.area.astype(np.float64)
    norm = np.linalg.norm(area, axis=1)
    has_area = norm > 0
    xyz = slot_cells(sim).astype(np.float64)
    rel = xyz - xyz[has_area].mean(axis=0)
    cos_x = rel[:, 0] / np.maximum(np.linalg.norm(rel, axis=1), 1e-9)
    exchange, pressure, friction = (
        mean[:, kind, 0] for kind in (FORCE_TOTAL, FORCE_PRESSURE, FORCE_FRICTION)
    )
    normal = np.where(has_area[:, None], area / np.where(has_area, norm, 1.0)[:, None], 0.0)
    exchange_tangential_x = (
        mean[:, FORCE_TOTAL, 0] - np.einsum("sa,sa->s", mean[:, FORCE_TOTAL], normal) * normal[:, 0]
    )
    print(
        f"walls.body_rule={case.walls.body_rule}: x-forces per step over steps "
        f"{DEVELOP_STEPS}-{DEVELOP_STEPS + WINDOW_STEPS}, {len(exchange)} reporting cells"
    )
    print(
        f"exchange {exchange.sum():.4f}, pressure {pressure.sum():.4f}, friction "
        f"{friction.sum():.4f}; "
        f"the exchange's part across the area vectors {exchange_tangential_x.sum():.4f}; the body "
        "links' "
        f"equilibrium exchange (mean fields) {equilibrium_x.sum():.4f}"
    )
    edges = np.linspace(-1.0, 1.0, 9)
    band = np.clip(np.digitize(cos_x, edges) - 1, 0, len(edges) - 2)
    rows = []
    print("cos(angle from +x)   exchange  pressure  friction  exchange - both  links' equilibrium")
    for b in range(len(edges) - 1):
        m = band == b
        row = [float(v[m].sum()) for v in (exchange, pressure, friction, equilibrium_x)]
        rows.append(
            {
                "cos_x": [float(edges[b]), float(edges[b + 1])],
                "exchange": row[0],
                "pressure": row[1],
                "friction": row[2],
                "links_equilibrium": row[3],
            }
        )
        print(
            f"{edges[b]:+.2f} .. {edges[b + 1]:+.2f}       {row[0]:8.4f}  {row[1]:8.4f}  "
            f"{row[2]:8.4f}  "
            f"{row[0] - row[1] - row[2]:8.4f}        {row[3]:8.4f}"
        )
    print(
        json.dumps(
            {
                "benchmark": "slot_split",
                "body_rule": case.walls.body_rule,
                "exchange": float(exchange.sum()),
                "pressure": float(pressure.sum()),
                "friction": float(friction.sum()),
                "exchange_tangential_x": float(exchange_tangential_x.sum()),
                "links_equilibrium": float(equilibrium_x.sum()),
                "bands": rows,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
