#!/usr/bin/env python3
"""Peak memory of writing fields.vti for a 512 x 256 x 256 grid, against the fields' own size.

    python benchmarks/write_fields_memory.py [--nx 512]

Builds the arrays run_case.py writes (velocity, pressure, Cp, vorticity, solid; random values,
so zlib works as hard as on real data), then writes them with viz.vti.write_vti and reports the
growth of the process's peak resident memory during the write beside the arrays' bytes. Ends
with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from viz.vti import write_vti  # noqa: E402


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nx", type=int, default=512)
    args = p.parse_args()
    nz, ny, nx = args.nx // 2, args.nx // 2, args.nx
    rng = np.random.default_rng(0)
    arrays = {
        "velocity": rng.standard_normal((3, nz, ny, nx), dtype=np.float32),
        "pressure": rng.standard_normal((nz, ny, nx), dtype=np.float32),
        "Cp": rng.standard_normal((nz, ny, nx), dtype=np.float32),
        "vorticity": rng.standard_normal((nz, ny, nx), dtype=np.float32),
        "solid": (rng.random((nz, ny, nx)) < 0.05).astype(np.uint8),
    }
    field_bytes = sum(a.nbytes for a in arrays.values())
    before = peak_rss_bytes()
    with tempfile.TemporaryDirectory() as folder:
        t0 = time.perf_counter()
        path = write_vti(Path(folder) / "fields.vti", 0.01, (0.0, 0.0, 0.0), arrays)
        seconds = time.perf_counter() - t0
        file_bytes = path.stat().st_size
    growth = peak_rss_bytes() - before
    print(
        f"grid {nx} x {ny} x {nz}: fields {field_bytes / 1e9:.2f} GB; peak memory grew by "
        f"{growth / 1e9:.2f} GB while writing ({growth / field_bytes:.2f} x the fields; "
        f"budget: about 2 x); file {file_bytes / 1e9:.2f} GB in {seconds:.1f} s"
    )
    print(
        json.dumps(
            {
                "grid": [nx, ny, nz],
                "field_bytes": field_bytes,
                "write_peak_growth_bytes": growth,
                "ratio": growth / field_bytes,
                "file_bytes": file_bytes,
                "seconds": seconds,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
