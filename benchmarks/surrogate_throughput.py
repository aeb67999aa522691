#!/usr/bin/env python3
"""Shapes per second of an exported ParamNet through the Predictor's two runtimes (Paddle
Inference and ONNX Runtime) and of the same program in dygraph (paddle.jit.load), at batch 1, 64
and 1024, beside the time one LBM sample of its dataset took: the speed-up the surrogate buys.

    python benchmarks/surrogate_throughput.py [--model results/models/paramnet/model]
                                              [--device auto|cpu|gpu] [--threads N]

--device auto runs each runtime where its Predictor would (a GPU where the installed Paddle or
onnxruntime has one). Each figure is the best of 5 repeats of at least 0.5 s. Ends with one
JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from surrogate.predictor import RUNTIMES, Predictor  # noqa: E402

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


def lbm_sample_seconds(dataset: Path) -> tuple[float, float]:
    """(simulation, simulation with meshing and recording) seconds per sample of the dataset's
    sweep (its sweep_summary.json); NaN where the dataset is not on this machine."""
    try:
        summary = json.loads((dataset / "sweep_summary.json").read_text())
    except (OSError, ValueError):
        return float("nan"), float("nan")
    samples = max(summary["ok"] + summary["failed"], 1)
    simulate = summary["stage_seconds"]["simulate"] / samples if summary["ok"] else float("nan")
    return simulate, sum(summary["stage_seconds"].values()) / samples


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="results/models/paramnet/model")
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"))
    p.add_argument("--threads", type=int, default=None)
    args = p.parse_args()
    import paddle

    folder = Path(args.model)
    predictors = {
        r: Predictor(folder, runtime=r, device=args.device, threads=args.threads) for r in RUNTIMES
    }
    meta = predictors["paddle"].meta
    if predictors["paddle"].spec.takes != "parameters":
        raise SystemExit("this benchmark times a model that takes parameters (a ParamNet folder)")
    low = np.array([q["low"] for q in meta["parameters"]])
    high = np.array([q["high"] for q in meta["parameters"]])
    dygraph = paddle.jit.load(str(folder / "model"))
    rng = np.random.default_rng(0)
    rows = []
    for batch in BATCHES:
        x = (low + rng.random((batch, len(low))) * (high - low)).astype(np.float32)
        tensor = paddle.to_tensor(x)
        row = {"batch": batch}
        for runtime, predictor in predictors.items():
            row[f"{runtime}_per_s"] = rate(lambda p=predictor, x=x: p.predict_parameters(x), batch)
        row["dygraph_per_s"] = rate(lambda t=tensor: dygraph(t), batch)
        rows.append(row)
    dataset = Path(meta["dataset"]["folder"])
    lbm_s, total_s = lbm_sample_seconds(dataset)
    for runtime, predictor in predictors.items():
        print(f"{runtime}: {predictor.path}")
    print(
        f"one LBM sample of {dataset}: {lbm_s:.1f} s simulation, {total_s:.1f} s with meshing and "
        "recording"
    )
    print(
        f"{'batch':>6} {'paddle shapes/s':>16} {'onnxruntime shapes/s':>21} "
        f"{'dygraph shapes/s':>17} "
        f"{'paddle / LBM sample':>20} {'onnxruntime / LBM sample':>25}"
    )
    for r in rows:
        print(
            f"{r['batch']:>6} {r['paddle_per_s']:>16.0f} {r['onnxruntime_per_s']:>21.0f} "
            f"{r['dygraph_per_s']:>17.0f} "
            f"{r['paddle_per_s'] * total_s:>20.3g} {r['onnxruntime_per_s'] * total_s:>25.3g}"
        )
    print(
        json.dumps(
            {
                "benchmark": "surrogate_throughput",
                "paths": {r: p.path for r, p in predictors.items()},
                "rows": rows,
                "lbm_sample_s": total_s,
                "lbm_simulate_s": lbm_s,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
