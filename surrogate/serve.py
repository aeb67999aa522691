"""Serve an exported surrogate elsewhere:

    python -m surrogate.serve triton MODEL_FOLDER OUT [--name NAME] [--precision fp32|fp16]

writes OUT/<name>/config.pbtxt and OUT/<name>/1/model.onnx, a Triton Inference Server model
repository entry (surrogate/triton.py; docs/deployment.md starts Triton on OUT and queries it).
A bad folder or option ends in one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from solver.cli_logging import configure_logging
from solver.errors import SlipstreamError
from solver.results import check_output_folder
from surrogate.predictor import PRECISIONS

log = logging.getLogger("surrogate.serve")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m surrogate.serve", description=__doc__.split("\n\n")[0]
    )
    commands = p.add_subparsers(dest="command", required=True)
    triton = commands.add_parser(
        "triton", help="write a Triton model repository entry (ONNX Runtime backend)"
    )
    triton.add_argument(
        "model", help="an exported surrogate folder (e.g. results/models/paramnet/model)"
    )
    triton.add_argument("out", help="the model repository folder (created if needed)")
    triton.add_argument(
        "--name", help="the model's name in the repository (default: its training name)"
    )
    triton.add_argument(
        "--precision", default="fp32", choices=PRECISIONS, help="TensorRT's precision"
    )
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    # force: importing paddle (through the Predictor's module) installed a root handler of its own
    configure_logging()
    args = parse_args(argv)
    from surrogate.triton import write_repository

    try:
        out = Path(args.out)
        check_output_folder(out)
        entry = write_repository(Path(args.model), out, args.name, args.precision)
    except SlipstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"error: cannot write into '{args.out}': {exc.strerror or exc}", file=sys.stderr)
        return 2
    log.info(
        "wrote %s (config.pbtxt, 1/model.onnx): tritonserver --model-repository %s", entry, out
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
