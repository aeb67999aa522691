"""Your own body from a mesh file, built in Python: a wind tunnel sized round it, the run, Cd, and
Cp on its skin in surface.vtp for ParaView (with the fields, summary.json and forces.csv).

    python examples/stl_body.py [MESH] [--unit m|cm|mm|in|ft] [--cells 42] [--steps 6000]
        [--out results/stl_body]              # default: the shipped Ahmed body, 25 degrees

The tunnel is 8 body lengths long with the nose 1.5 lengths from the inlet, 5 widths wide and
4.5 heights high (the bounding box blocks 4.4% of its section, the Ahmed body 3.9%), on a fixed
floor; the air is at 40 m/s, the treatment is the vehicle cases' (LES, wall model).
cases/mesh.yaml is a similar case as a YAML file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import slipstream as ss
from shapes.mesh import read_mesh
from solver.errors import SlipstreamError

ROOT = Path(__file__).resolve().parent.parent


def tunnel_case(
    mesh: Path, unit: str, cells: int, steps: int, min_gap_cells: float = 2.0
) -> ss.Case:
    """The case round the mesh file: its length sets the grid, Re and the tunnel."""
    length, width, height = (float(e) for e in np.ptp(read_mesh(mesh, unit).vertices_m, axis=0))
    tunnel = [8.0 * length, 5.0 * width, 4.5 * height]
    case = ss.Case(
        name="stl_body",
        flow=ss.Flow(speed_m_s=40.0, nu_m2_s=1.5e-5, density_kg_m3=1.204),
        domain=ss.Domain(size_m=tunnel, sponge=ss.Sponge(length_m=length, tau_outlet=0.8)),
        body=ss.Body(shape="mesh", reference_length_m=length),
        geometry=ss.Geometry(
            source="file",
            path=str(mesh),
            unit=unit,
            placement=ss.Placement(nose_x_m=1.5 * length, center_y_m=tunnel[1] / 2),
        ),
        resolution=ss.Resolution(
            cells_per_length=cells, u_lattice=0.1, smagorinsky_cs=0.16, min_gap_cells=min_gap_cells
        ),
        run=ss.Run(max_steps=steps, check_every=200, average_steps=steps // 4),
        output=ss.Output(images=False),
    )
    case.domain.boundaries.z_min = "noslip"  # a fixed floor, as in the Ahmed experiment
    return case


def main(argv: list[str] | None = None) -> ss.RunResult:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mesh", nargs="?", default=str(ROOT / "cases" / "meshes" / "ahmed_25deg.stl"))
    p.add_argument("--unit", default="m")
    p.add_argument("--cells", type=int, default=42, help="cells per body length")
    p.add_argument("--steps", type=int, default=6000)
    p.add_argument("--min-gap-cells", type=float, default=2.0)
    p.add_argument("--out", type=Path, default=Path("results") / "stl_body")
    args = p.parse_args(argv)
    case = tunnel_case(Path(args.mesh), args.unit, args.cells, args.steps, args.min_gap_cells)
    sim = ss.simulation(case)
    result = ss.run(sim)
    skin = ss.surface_cp(sim, result)
    ss.write_results(args.out, sim, result)
    # NaN where no fluid lies round a vertex (where the stilts stand on the floor)
    print(
        f"Cd {result.cd:.3f}  Cp on the skin {np.nanmin(skin.cp):.2f} .. {np.nanmax(skin.cp):.2f}"
        f"  -> {args.out / 'surface.vtp'}"
    )
    return result


if __name__ == "__main__":
    try:
        main()
    except SlipstreamError as exc:  # a bad mesh, option or folder: one line, exit 2
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
