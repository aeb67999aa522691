"""Sweep, train, predict in one script: simulate parametric cars into a dataset, train the
parameter surrogate on it, and ask it for the drag of the design in the middle of the sweep.

    python examples/sweep_train_predict.py [--samples 32] [--cells 20] [--steps 6500]
        [--epochs 3000] [--out results/example_sweep]

The sweep is cases/sweep_demo.yaml (four open parameters of the car), its size set by the
options: at the defaults it is the demo's dataset (half an hour on 2 cores); the test runs it
with 8 cars at 12 cells per length and 300 steps. Running it again computes only the missing
samples. The training config is built in Python (surrogate/train_config.py's dataclasses).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from solver.errors import SlipstreamError
from surrogate.make_dataset import make_dataset
from surrogate.predictor import ParamPrediction, Predictor
from surrogate.sweep_config import load_sweep, parameter_ranges
from surrogate.train_config import (
    OptimConfig,
    ParamNetConfig,
    SplitConfig,
    TrainConfig,
    validate_train_config,
)
from surrogate.train_run import train_and_export

ROOT = Path(__file__).resolve().parent.parent
SWEEP = ROOT / "cases" / "sweep_demo.yaml"


def main(argv: list[str] | None = None) -> tuple[dict, ParamPrediction]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=32)
    p.add_argument("--cells", type=int, default=20, help="cells per car length")
    p.add_argument("--steps", type=int, default=6500, help="LBM steps per car")
    p.add_argument("--epochs", type=int, default=3000)
    p.add_argument("--out", type=Path, default=Path("results") / "example_sweep")
    args = p.parse_args(argv)

    average = max(100, min(2500, args.steps * 2 // 5))
    sweep = load_sweep(
        SWEEP,
        [
            f"sampler.n_samples={args.samples}",
            f"case.resolution.cells_per_length={args.cells}",
            f"case.run.max_steps={args.steps}",
            f"case.run.average_steps={average}",
            f"case.run.convergence.window_steps={min(800, average)}",
        ],
    )
    report = make_dataset(sweep, SWEEP, args.out / "dataset")
    print(report.text())

    training = TrainConfig(
        name="example",
        dataset=str(args.out / "dataset"),
        model="paramnet",
        split=SplitConfig(validation=0.2, test=0.2),
        optim=OptimConfig(epochs=args.epochs, patience=max(50, args.epochs // 10)),
        paramnet=ParamNetConfig(members=3, hidden=[32, 32]),
        device="cpu",
    )
    validate_train_config(training)
    metrics = train_and_export(training, args.out / "surrogate")

    predictor = Predictor(args.out / "surrogate" / "model", runtime="onnxruntime")
    middle = {r.name: (r.low + r.high) / 2 for r in parameter_ranges(sweep)}
    prediction = predictor.predict_parameters(middle)
    print(
        f"test R2 of Cd {metrics['cd_r2']:.2f}; the middle design {middle}: "
        f"Cd {prediction.cd[0]:.3f} +- {prediction.cd_std[0]:.3f}"
    )
    return metrics, prediction


if __name__ == "__main__":
    try:
        main()
    except SlipstreamError as exc:  # a bad mesh, option or folder: one line, exit 2
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
