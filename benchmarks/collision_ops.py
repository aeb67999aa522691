#!/usr/bin/env python3
"""Where the entropic LES kernel's arithmetic goes: the vector instructions of one iteration of
the CPU library's bulk vector loop (16 cells in 512-bit registers, 8 in 256-bit ones), counted by
the collision function they were inlined from.

    python benchmarks/collision_ops.py

Compiles cuda/host/lbm_host.cpp with the library's own flags plus -g (so each instruction carries
its source line) and -DLBM_CHUNK_NOINLINE (so the chunk stays one function), disassembles the
entropic bulk chunk without a force (objdump -dl) and sorts its vector instructions into
arithmetic and register moves/spills by the function of cuda/lbm_collision.cuh whose lines they
come from. A static count, not a timing: the vector loop is straight-line code, so on a
processor bound by its vector ports the counts are what the cycles follow. Ends with one JSON line.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.backends import host_build  # noqa: E402
from solver.lattice import CUDA_DIR  # noqa: E402

CHUNK = "bulk_chunk<1, false>"
MOVES = ("vmovaps", "vmovups", "vmovss", "vmovd", "vbroadcastss", "vmovdqa", "vmovdqu")
STAGES = {
    "stage 1 (moments, entropic state, stress, subgrid)": {
        "lbm_raw_moments",
        "lbm_entropic_cell",
        "lbm_entropic_fit",
        "lbm_entropic_axes",
        "lbm_coshm1_sinh",
        "lbm_inverse_sym3",
        "lbm_entropic_mu2",
        "lbm_smagorinsky_omega",
        "lbm_entropic_zm1",
    },
    "stage 2 (the projection's polynomial)": {"lbm_entropic_polynomial"},
    "stage 3 (populations)": {"lbm_entropic_relax"},
}


def function_starts(header: Path) -> list[tuple[int, str]]:
    """(first line, name) of each device function in a header."""
    starts = []
    for number, line in enumerate(header.read_text().splitlines(), 1):
        match = re.match(r"__device__ __forceinline__ .*?(\w+)\(", line)
        if match:
            starts.append((number, match.group(1)))
    return starts


def disassemble() -> str:
    flags = [f for f in host_build.cxx_flags() if f != "-shared"]
    with tempfile.TemporaryDirectory() as tmp:
        obj = Path(tmp) / "lbm_host.o"
        subprocess.run(
            [
                "c++",
                *flags,
                "-g",
                "-DLBM_CHUNK_NOINLINE",
                "-c",
                "-o",
                str(obj),
                str(CUDA_DIR / "host" / "lbm_host.cpp"),
            ],
            check=True,
        )
        return subprocess.run(
            ["objdump", "-dl", "--no-show-raw-insn", "-C", str(obj)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout


def count(listing: str, vector_reg: str) -> Counter:
    starts = {"lbm_collision.cuh": function_starts(CUDA_DIR / "lbm_collision.cuh")}
    counts: Counter = Counter()
    inside, where = False, "other"
    for line in listing.splitlines():
        if re.match(r"^[0-9a-f]+ <", line):
            inside = CHUNK in line
            continue
        if not inside:
            continue
        source = re.match(r"^/\S*/([\w.]+):(\d+)", line)
        if source:
            name, number = source.group(1), int(source.group(2))
            where = name
            for first, func in starts.get(name, []):
                if first <= number:
                    where = func
            continue
        insn = re.match(r"^\s+[0-9a-f]+:\s+(\S+)\s*(.*)", line)
        if insn and insn.group(1).startswith("v") and vector_reg in insn.group(2):
            kind = "moves" if insn.group(1).startswith(MOVES) else "arithmetic"
            counts[(where, kind)] += 1
    return counts


def main() -> int:
    listing = disassemble()
    reg = "zmm" if "zmm" in listing else "ymm"
    counts = count(listing, reg)
    total = sum(v for (_, kind), v in counts.items() if kind == "arithmetic")
    if total == 0:
        print(f"no {reg} arithmetic found in {CHUNK}: the chunk did not vectorize", file=sys.stderr)
        return 1
    lanes = 16 if reg == "zmm" else 8
    print(
        f"flags: {' '.join(host_build.cxx_flags())}; {reg} registers: one vector iteration, "
        f"{lanes} cells"
    )
    result = {}
    for stage, funcs in STAGES.items():
        arith = sum(v for (f, k), v in counts.items() if f in funcs and k == "arithmetic")
        moves = sum(v for (f, k), v in counts.items() if f in funcs and k == "moves")
        result[stage] = {"arithmetic": arith, "moves": moves}
        print(f"{stage:55s} arithmetic {arith:5d} ({arith / total:4.0%})  moves {moves:4d}")
    known = set().union(*STAGES.values())
    rest = sum(v for (f, k), v in counts.items() if f not in known and k == "arithmetic")
    print(f"{'elsewhere (pull, store)':55s} arithmetic {rest:5d}")
    print(
        json.dumps(
            {
                "benchmark": "collision_ops",
                "register": reg,
                "cells": lanes,
                "arithmetic_total": total,
                "stages": result,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
