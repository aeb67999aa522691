#!/usr/bin/env python3
"""Shapes per second of an exported ParamNet through the Predictor (Paddle Inference) and of the
same program in dygraph (paddle.jit.load), at batch 1, 64 and 1024, beside the time one LBM
sample of its dataset took: the speed-up the surrogate buys.

    python benchmarks/surrogate_throughput.py [--model results/models/paramnet/model]
                                              [--device auto|cpu|gpu] [--threads N]

Each figure is the best of 5 repeats of at least 0.5 s. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surrogate.predictor import Predictor  # noqa: E402

BATCHES = (1, 64, 1024)


def rate(call, batch: int) -> float:
    """Shapes per second: best of 5 repeats of at least 0.5 s each."""
    call()
    best = 0.0
    for _ in range(5):
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < 0.5:
            call()
            n += 1
        best = max(best, n * batch / (time.perf_counter() - t0))
    return best


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="results/models/paramnet/model")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.add_argument("--threads", type=int, default=None)
    args = p.parse_args()
    import paddle

    folder = Path(args.model)
    predictor = Predictor(folder, device=args.device, threads=args.threads)
    meta = predictor.meta
    if meta["kind"] != "paramnet":
        raise SystemExit("this benchmark times a ParamNet folder")
    low = np.array([q["low"] for q in meta["parameters"]])
    high = np.array([q["high"] for q in meta["parameters"]])
    dygraph = paddle.jit.load(str(folder / "model"))
    rng = np.random.default_rng(0)
    rows = []
    for batch in BATCHES:
        x = (low + rng.random((batch, len(low))) * (high - low)).astype(np.float32)
        tensor = paddle.to_tensor(x)
        rows.append({"batch": batch, "predictor_per_s": rate(lambda: predictor.predict_parameters(x), batch),
                     "dygraph_per_s": rate(lambda: dygraph(tensor), batch)})
    dataset = Path(meta["dataset"]["folder"])
    summary = json.loads((dataset / "sweep_summary.json").read_text())
    lbm_s = (summary["stage_seconds"]["simulate"] / max(summary["ok"] + summary["failed"], 1)
             if summary["ok"] else float("nan"))
    total_s = sum(summary["stage_seconds"].values()) / max(summary["ok"] + summary["failed"], 1)
    print(f"Predictor path: {predictor.path}")
    print(f"one LBM sample of {dataset}: {lbm_s:.1f} s simulation, {total_s:.1f} s with meshing and recording")
    print(f"{'batch':>6} {'Predictor shapes/s':>19} {'dygraph shapes/s':>17} {'x faster than LBM':>18}")
    for r in rows:
        print(f"{r['batch']:>6} {r['predictor_per_s']:>19.0f} {r['dygraph_per_s']:>17.0f} "
              f"{r['predictor_per_s'] * total_s:>18.3g}")
    print(json.dumps({"benchmark": "surrogate_throughput", "path": predictor.path, "rows": rows,
                      "lbm_sample_s": total_s, "lbm_simulate_s": lbm_s}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
