"""The D3Q19 lattice as the kernels see it: link vectors, weights and cell flags.

The flag values are read from ``cuda/lbm_lattice.cuh`` so the Python side and the kernels cannot
disagree. Link order and weights mirror the header's ``D3Q19_LINKS`` table; a test checks them
against each other.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

CUDA_DIR = Path(__file__).resolve().parent.parent / "cuda"
HEADER = CUDA_DIR / "lbm_lattice.cuh"

#: Link vectors c_q, q = 0..18; opposite links are (1,2), (3,4), ..., (17,18).
# fmt: off
C = np.array(
    [
        (0, 0, 0),
        (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1),
        (1, 1, 0), (-1, -1, 0), (1, -1, 0), (-1, 1, 0),
        (1, 0, 1), (-1, 0, -1), (1, 0, -1), (-1, 0, 1),
        (0, 1, 1), (0, -1, -1), (0, 1, -1), (0, -1, 1),
    ],
    dtype=np.int64,
)
# fmt: on
#: Weights w_q.
W = np.array([1 / 3] + [1 / 18] * 6 + [1 / 36] * 12)
#: Opposite link of each link.
OPP = np.array([0] + [q + 1 if q % 2 else q - 1 for q in range(1, 19)])
Q = 19


def _read_flags(header: Path) -> dict[str, int]:
    text = header.read_text()
    return {
        m[1]: int(m[2], 0) for m in re.finditer(r"#define FLAG_(\w+)\s+(0x[0-9A-Fa-f]+|\d+)", text)
    }


_FLAGS = _read_flags(HEADER)
FLUID = _FLAGS["FLUID"]
SOLID = _FLAGS["SOLID"]
INLET = _FLAGS["INLET"]
OUTFLOW = _FLAGS["OUTFLOW"]
FREESLIP = _FLAGS["FREESLIP"]
MOVING = _FLAGS["MOVING"]
GHOST = _FLAGS["GHOST"]
TYPE_MASK = _FLAGS["TYPE_MASK"]
BODY = _FLAGS["BODY"]
BULK = _FLAGS["BULK"]


def _read_collisions(header: Path) -> dict[str, int]:
    text = header.read_text()
    return {
        m[1].lower(): int(m[2]) for m in re.finditer(r"#define LBM_COLLISION_(\w+)\s+(\d+)", text)
    }


#: Collision operators by their case-key name ("bgk", "entropic"), valued as in the kernels.
COLLISIONS = _read_collisions(CUDA_DIR / "lbm_collision.cuh")


def read_defines(header: Path, prefix: str) -> dict[str, int]:
    """The integer #defines named prefix + NAME in a header, by name.lower()."""
    text = header.read_text()
    return {
        m[1].lower(): int(m[2])
        for m in re.finditer(rf"#define {prefix}([A-Z0-9]+)\s+(\d+)\b", text)
    }


#: Wall models by their case-key name ("none", "loglaw"), valued as in the kernels.
WALL_MODELS = read_defines(CUDA_DIR / "lbm_wall_model.cuh", "LBM_WALL_")

#: The wall model's rules for the body by their case-key name ("faces", "surface").
WALL_BODY_RULES = read_defines(CUDA_DIR / "lbm_wall_model.cuh", "LBM_WALL_BODY_")


#: The layouts a population buffer may have ("pull", "swapped", "pushed"; solver/streaming.py),
#: valued as LBM_LAYOUT_* in the kernels.
LAYOUTS = read_defines(CUDA_DIR / "lbm_boundaries.cuh", "LBM_LAYOUT_")


def plane_stride(n_cells: int, itemsize: int = 4) -> int:
    """Distance in populations (of itemsize bytes: 4 for float32, 2 for 16-bit storage) between
    two links' planes: n_cells rounded up to 256 bytes, plus 320 bytes, so that the 19 planes start
    on 19 different cache lines of a 4 KiB page (a plane's offset there is q (256 a + 320) bytes,
    i.e. q (4 a + 5) lines: an odd multiple, distinct for q < 64; see docs/performance.md)."""
    per_256_bytes = 256 // itemsize
    return (n_cells + per_256_bytes - 1) // per_256_bytes * per_256_bytes + 320 // itemsize
