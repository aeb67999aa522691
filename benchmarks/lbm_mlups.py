#!/usr/bin/env python3
"""LBM throughput in MLUPs against the memory-bandwidth roofline measured in the same run.

    python benchmarks/lbm_mlups.py [--backend auto|cpu|cuda] [--seconds 5] [--sizes 64 128 192]
                                   [--car 64 [--car-set key=value ...]] [--storage fp32 fp16s]
                                   [--in-place]

For each backend and size (fully periodic N^3 box with BGK, then with the entropic LES operator
of the car cases; a channel with a sphere; cases/channel.yaml without and with the
wall model; with --car, cases/car.yaml at that many cells per length as it runs, and with BGK at
tau = 0.6 on the same grid, for timing only) it prints MLUPs, the
bytes one cell update moves (19 floats read, 19 written, one flag byte: 153 B), the copy
bandwidth (bytes read + written per second; on the CPU a copy with the step's own non-temporal
stores) measured on the same device in the same run, and
the fraction of the roofline bandwidth / 153 B reached (77 B with 16-bit storage: --storage
fp32 fp16s fp16c runs every case in each resolution.storage, the 16-bit rows marked so; --in-place
times the periodic boxes, the channel and the car again with resolution.streaming=aa, one
population buffer streamed in place, which moves the same bytes per update in half the memory:
rows marked [aa], each beside its two-buffer row as aa / ab), the populations' bytes per cell,
and the
vehicle kernel's speed against BGK's in the same run (LES / BGK: the LES box against the BGK box
of its size, the wall-modelled channel against the BGK box of the middle size, the car against
BGK on the car's grid). With lbmpy installed it also times lbmpy's generated kernels (D3Q19 SRT
float32, periodic box; for the LES box, SRT with
lbmpy's Smagorinsky subgrid model), its plain C build and its vectorized build for this CPU's
widest SIMD (its best), each per full step including its periodic copy, the vectorized one's
kernel alone beside them, and prints our ratio to the vectorized one per full step. The last
line is one JSON object
with every figure.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.backends import select_backend  # noqa: E402
from solver.config import merge_case  # noqa: E402
from solver.memory import population_bytes_per_cell  # noqa: E402
from solver.simulation import Simulation  # noqa: E402

#: Bytes one cell update moves, by resolution.storage: 19 populations read and 19 written, one
#: flag byte.
BYTES_PER_CELL = {"fp32": 19 * 4 * 2 + 1, "fp16s": 19 * 2 * 2 + 1, "fp16c": 19 * 2 * 2 + 1}
PERIODIC = {f"{a}_{s}": "periodic" for a in "xyz" for s in ("min", "max")}


def box_case(n: int) -> dict:
    return {
        "name": f"box{n}",
        "flow": {"speed_m_s": 1.0, "reynolds": 100.0, "initial": "taylor_green"},
        "domain": {"size_m": [1.0, 1.0, 1.0], "boundaries": PERIODIC},
        "body": {"reference_length_m": 1.0},
        "resolution": {"cells_per_length": n, "u_lattice": 0.05},
    }


def les_box_case(n: int) -> dict:
    """The periodic box at Re 1e7 with the car cases' collision: entropic regularized +
    Smagorinsky."""
    case = box_case(n)
    case["flow"]["reynolds"] = 1e7
    case["resolution"].update({"smagorinsky_cs": 0.16, "collision": "entropic"})
    return case


def sphere_channel_case(n: int) -> dict:
    """A channel 2n x n x n cells with a sphere of diameter n/4: inlet, outflow, free slip."""
    return {
        "name": f"sphere{n}",
        "flow": {"speed_m_s": 1.0, "reynolds": 100.0},
        "domain": {
            "size_m": [8.0, 4.0, 4.0],
            "boundaries": {"z_min": "freeslip"},  # the default tunnel, no rolling road
        },
        "body": {"shape": "sphere", "center_m": [2.0, 2.0, 2.0], "radius_m": 0.5},
        "resolution": {"cells_per_length": n // 4, "u_lattice": 0.05},
    }


def channel_case(model: str) -> dict:
    """cases/channel.yaml (wall-modelled LES channel, 16 cells per half-height) with walls.model."""
    case = dict(OmegaConf.to_container(OmegaConf.load(ROOT / "cases" / "channel.yaml")))
    case["walls"] = {"model": model}
    return case


def cpu_copy_bandwidth(seconds: float, backend) -> float:
    """Bytes read + written per second copying 1 GiB of float32 through the CPU library with the
    step's non-temporal stores (CpuBackend.stream_copy), all OpenMP threads: a copy with ordinary
    stores also reads each line it writes, and a kernel that streams its stores moves more than
    such a copy's figure (the BGK box at 116-126% of it, docs/performance.md)."""
    n = 2**28
    src = backend.zeros((n,), np.float32)
    src[:] = 1.0
    dst = backend.zeros((n,), np.float32)
    backend.stream_copy(dst, src)
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        backend.stream_copy(dst, src)
        done += 1
    elapsed = time.perf_counter() - t0
    return 2 * src.nbytes * done / elapsed


def gpu_copy_bandwidth(seconds: float) -> float:
    import cupy

    src = cupy.ones(2**28, cupy.float32)
    dst = cupy.empty_like(src)
    dst[...] = src
    cupy.cuda.Device().synchronize()
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            dst[...] = src
        cupy.cuda.Device().synchronize()
        done += 10
    elapsed = time.perf_counter() - t0
    return 2 * src.nbytes * done / elapsed


def car_cases(cells: int, overrides: list[str] | None = None) -> tuple:
    """cases/car.yaml at `cells` per length with `overrides` (key=value), its mesh, and the same
    grid with BGK at tau = 0.6 (the lattice speed kept, the viscosity raised: a timing case, not
    a flow to look at)."""
    from shapes.case_geometry import CASE_SCHEMA, case_mesh
    from solver.config import load_case
    from solver.units import derive_units

    base = [f"resolution.cells_per_length={cells}", *(overrides or [])]
    les = load_case(ROOT / "cases" / "car.yaml", base, schema=CASE_SCHEMA)
    mesh = case_mesh(les)
    units = derive_units(les, les.body.reference_length_m)
    nu_m2_s = (0.6 - 0.5) / 3.0 * units.dx_m**2 / units.dt_s
    bgk = load_case(
        ROOT / "cases" / "car.yaml",
        [
            *base,
            f"resolution.u_lattice={units.u_lattice}",
            "resolution.collision=bgk",
            "resolution.smagorinsky_cs=0",
            "walls.model=none",
            f"flow.nu_m2_s={nu_m2_s}",
        ],
        schema=CASE_SCHEMA,
    )
    return les, bgk, mesh


def time_simulation(
    case, backend, seconds: float, mesh=None, storage: str = "fp32"
) -> tuple[float, int]:
    """MLUPs of `case` (a dict of sections, stored as `storage`, or a CaseConfig) over about
    `seconds` of stepping."""
    if isinstance(case, dict):
        case = merge_case(case, [f"resolution.storage={storage}"])
    sim = Simulation(case, backend, mesh)
    sim.advance(10)
    backend.synchronize()
    steps, chunk, t0 = 0, 10, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        sim.advance(chunk)
        backend.synchronize()
        steps += chunk
    elapsed = time.perf_counter() - t0
    return sim.grid.n_cells * steps / elapsed / 1e6, sim.grid.n_cells


def lbmpy_mlups(
    n: int, seconds: float, smagorinsky: bool = False, vectorize: bool = False
) -> tuple[float, float] | None:
    """lbmpy's generated C kernel, D3Q19 SRT float32, periodic n^3 box (OpenMP); with
    smagorinsky, its Smagorinsky subgrid model (C_s 0.16, the vehicle cases' constant) at the
    vehicle cases' relaxation rate, omega0 = 2 - 1e-5. vectorize: pystencils' intrinsics for
    the widest SIMD of this CPU (Target.CurrentCPU), as lbmpy's best build. Returns its MLUPs
    per full step (the periodic copy of the ghost layers included, as ours) and of the kernel
    alone."""
    try:
        import pystencils as ps
        from lbmpy import LBMConfig, LBMOptimisation, LBStencil, Method, Stencil, create_lb_function
        from lbmpy.enums import SubgridScaleModel
    except ImportError:
        return None
    extra = {"subgrid_scale_model": (SubgridScaleModel.SMAGORINSKY, 0.16)} if smagorinsky else {}
    dh = ps.create_data_handling(
        domain_size=(n, n, n), periodicity=True, default_target=ps.Target.CPU
    )
    src = dh.add_array("src", values_per_cell=19, dtype=np.float32, layout="fzyx")
    dh.add_array_like("dst", "src")
    dst = dh.fields["dst"]
    config = ps.CreateKernelConfig(
        default_dtype="float32", target=ps.Target.CurrentCPU if vectorize else ps.Target.GenericCPU
    )
    config.cpu.openmp.enable = True
    if vectorize:
        config.cpu.vectorize.enable = True
        config.cpu.vectorize.assume_inner_stride_one = True
    kernel = create_lb_function(
        lbm_config=LBMConfig(
            stencil=LBStencil(Stencil.D3Q19),
            method=Method.SRT,
            relaxation_rate=2.0 - 1e-5 if smagorinsky else 1.6,
            compressible=True,
            **extra,
        ),
        lbm_optimisation=LBMOptimisation(symbolic_field=src, symbolic_temporary_field=dst),
        config=config,
    )
    dh.fill("src", 1.0 / 19)
    sync = dh.synchronization_function(["src"])

    def step() -> None:
        sync()
        dh.run_kernel(kernel)
        dh.swap("src", "dst")

    def kernel_only() -> None:
        dh.run_kernel(kernel)
        dh.swap("src", "dst")

    def mlups(run) -> float:
        for _ in range(5):
            run()
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            run()
            steps += 1
        return n**3 * steps / (time.perf_counter() - t0) / 1e6

    return mlups(step), mlups(kernel_only)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
    p.add_argument("--seconds", type=float, default=5.0, help="timed seconds per size")
    p.add_argument("--sizes", type=int, nargs="+", help="periodic box sizes (default per backend)")
    p.add_argument(
        "--sphere", type=int, default=96, help="channel height in cells for the sphere case"
    )
    p.add_argument("--no-lbmpy", action="store_true")
    p.add_argument(
        "--car", type=int, default=0, help="also time cases/car.yaml at this many cells per length"
    )
    p.add_argument(
        "--storage",
        nargs="+",
        default=["fp32"],
        choices=tuple(BYTES_PER_CELL),
        help="population storages to time every case with (resolution.storage)",
    )
    p.add_argument(
        "--in-place",
        action="store_true",
        help="also time the boxes, the channel and the car with resolution.streaming=aa",
    )
    p.add_argument(
        "--car-set",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="overrides of the car case, e.g. cases/sweep_demo.yaml's case section",
    )
    args = p.parse_args()
    backend = select_backend(args.backend)
    if backend.name == "cuda":
        bandwidth = gpu_copy_bandwidth(args.seconds)
        sizes = args.sizes or [128, 256]
    else:
        bandwidth = cpu_copy_bandwidth(args.seconds, backend)
        sizes = args.sizes or [64, 128, 192]
    roofline = {storage: bandwidth / size / 1e6 for storage, size in BYTES_PER_CELL.items()}
    print(f"device: {backend.describe()}  ({platform.processor() or platform.machine()})")
    print(
        f"copy bandwidth (read + written): {bandwidth / 1e9:.1f} GB/s -> roofline "
        + ", ".join(
            f"{roofline[s]:.0f} MLUPs at {BYTES_PER_CELL[s]} B per cell update ({s})"
            for s in args.storage
        )
    )
    rows = []
    n = sizes[len(sizes) // 2]
    for storage in args.storage:
        tag = "" if storage == "fp32" else f" [{storage}]"

        def timed(
            name: str, case, mesh=None, storage=storage, tag=tag, streaming: str = "ab"
        ) -> None:
            if streaming != "ab":
                if isinstance(case, dict):
                    case = merge_case(
                        case,
                        [f"resolution.storage={storage}", f"resolution.streaming={streaming}"],
                    )
                tag = f"{tag} [{streaming}]"
            mlups, cells = time_simulation(case, backend, args.seconds, mesh, storage)
            rows.append(
                {
                    "case": name + tag,
                    "storage": storage,
                    "streaming": streaming,
                    "cells": cells,
                    "mlups": mlups,
                }
            )

        for size in sizes:  # BGK and the LES operator of each size back to back, for their ratio
            timed(f"periodic box {size}^3", box_case(size))
            timed(f"periodic box {size}^3 entropic LES", les_box_case(size))
            if args.in_place:
                timed(f"periodic box {size}^3", box_case(size), streaming="aa")
                timed(f"periodic box {size}^3 entropic LES", les_box_case(size), streaming="aa")
        sphere = args.sphere
        timed(f"sphere channel {2 * sphere}x{sphere}x{sphere}", sphere_channel_case(sphere))
        for model in ("none", "loglaw"):
            timed(f"channel.yaml, walls.model {model}", channel_case(model))
            if args.in_place:
                timed(f"channel.yaml, walls.model {model}", channel_case(model), streaming="aa")
        if args.car:
            les, bgk, mesh = car_cases(args.car, [*args.car_set, f"resolution.storage={storage}"])
            timed(f"car.yaml at {args.car} cells", les, mesh)
            if args.in_place:
                les_aa = car_cases(
                    args.car,
                    [*args.car_set, f"resolution.storage={storage}", "resolution.streaming=aa"],
                )[0]
                timed(f"car.yaml at {args.car} cells", les_aa, mesh, streaming="aa")
            timed(f"car grid, BGK tau 0.6 at {args.car} cells", bgk, mesh)
    lbmpy: dict[str, dict[str, float | None]] = {}  # case name -> lbmpy's MLUPs by build, same box
    if backend.name == "cpu" and not args.no_lbmpy:
        for size in sizes:
            for case, smagorinsky in (
                (f"periodic box {size}^3", False),
                (f"periodic box {size}^3 entropic LES", True),
            ):
                c = lbmpy_mlups(size, args.seconds, smagorinsky=smagorinsky)
                simd = lbmpy_mlups(size, args.seconds, smagorinsky=smagorinsky, vectorize=True)
                lbmpy[case] = {
                    "c": c[0] if c else None,
                    "simd": simd[0] if simd else None,
                    "simd_kernel": simd[1] if simd else None,
                }
    print(
        f"{'case':39s} {'cells':>11s} {'MLUPs':>9s} {'B/cell':>7s} {'B/update':>9s} "
        f"{'roofline':>9s} "
        f"{'lbmpy C':>9s} {'lbmpy SIMD':>10s} {'SIMD kern':>10s} {'ours/SIMD':>10s}"
    )

    def cell(value: float | None, width: int) -> str:
        return f"{value:{width}.1f}" if value else f"{'-':>{width}s}"

    for row in rows:
        size = BYTES_PER_CELL[row["storage"]]
        row["bytes_per_update"] = size
        row["population_bytes_per_cell"] = population_bytes_per_cell(
            row["storage"], row["streaming"]
        )
        row["roofline_fraction"] = row["mlups"] / roofline[row["storage"]]
        ref = lbmpy.get(row["case"], {})
        row["lbmpy_mlups"] = ref.get("c")
        row["lbmpy_simd_mlups"] = ref.get("simd")
        row["lbmpy_simd_kernel_mlups"] = ref.get("simd_kernel")
        ratio = f"{row['mlups'] / ref['simd']:10.2f}" if ref.get("simd") else f"{'-':>10s}"
        print(
            f"{row['case']:39s} {row['cells']:11d} {row['mlups']:9.1f} "
            f"{row['population_bytes_per_cell']:7d} {size:9d} "
            f"{row['roofline_fraction']:8.0%} {cell(ref.get('c'), 9)} {cell(ref.get('simd'), 10)} "
            f"{cell(ref.get('simd_kernel'), 10)} {ratio}"
        )
    by_case = {row["case"]: row["mlups"] for row in rows}
    ratios = {}
    for storage in args.storage:
        tag = "" if storage == "fp32" else f" [{storage}]"
        for size in sizes:
            ratios[f"LES box {size}^3 / BGK box{tag}"] = (
                by_case[f"periodic box {size}^3 entropic LES{tag}"]
                / by_case[f"periodic box {size}^3{tag}"]
            )
        ratios[f"channel.yaml with the wall model / BGK box {n}^3{tag}"] = (
            by_case[f"channel.yaml, walls.model loglaw{tag}"] / by_case[f"periodic box {n}^3{tag}"]
        )
        if args.car:
            ratios[f"car.yaml / BGK on its grid{tag}"] = (
                by_case[f"car.yaml at {args.car} cells{tag}"]
                / by_case[f"car grid, BGK tau 0.6 at {args.car} cells{tag}"]
            )
    for name, value in ratios.items():
        print(f"LES / BGK: {name}: {value:.2f}")
    for row in rows:
        if row["streaming"] == "aa":
            row["over_ab"] = row["mlups"] / by_case[row["case"].removesuffix(" [aa]")]
            print(f"aa / ab: {row['case']}: {row['over_ab']:.2f}")
    if "fp32" in args.storage:
        for storage in args.storage:
            if storage == "fp32":
                continue
            for row in rows:
                if row["storage"] == storage and row["streaming"] == "ab":
                    base = by_case[row["case"].removesuffix(f" [{storage}]")]
                    row["over_fp32"] = row["mlups"] / base
                    print(f"{storage} / fp32: {row['case']}: {row['over_fp32']:.2f}")
    print(
        json.dumps(
            {
                "backend": backend.describe(),
                "copy_bandwidth_gb_s": bandwidth / 1e9,
                "roofline_mlups": roofline,
                "results": rows,
                "les_over_bgk": ratios,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
