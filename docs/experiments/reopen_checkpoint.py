#!/usr/bin/env python3
"""Continue a turned channel's developed flow under other run keys or another wall rule: copy the
checkpoint of `benchmarks/turned_channel.py --out SRC` to DST, re-opened for stepping.

    python docs/experiments/reopen_checkpoint.py SRC DST --turn A:B [key=value ...]
    SLIP_EXP=N python benchmarks/turned_channel.py --turn A:B --out DST --resume [key=value ...]

The copy keeps the populations, the step and the force history; its statistics (the averaged
fields and slot forces) are cleared, its phase is set back to develop, and it carries the case
hash of the new keys, so the second command resumes it with them (the same key=value list both
times). An experiment helper for the wall-rule probes of docs/validation.md: a probe of a few
thousand steps measures how a rule's links exchange momentum in a flow another rule developed.
"""

from __future__ import annotations

import argparse
import json
import sys
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from turned_channel import channel_case  # noqa: E402

from solver.atomic import write_atomically  # noqa: E402
from solver.checkpoint import case_hash  # noqa: E402
from solver.errors import SlipstreamError  # noqa: E402


def _write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path, help="a turned_channel.py --out folder")
    parser.add_argument("dst", type=Path, help="the folder to resume from (created)")
    parser.add_argument("--turn", required=True, help="A:B of the run in SRC")
    args, overrides = parser.parse_known_args()
    a_text, _, b_text = args.turn.partition(":")
    if not (a_text.isdigit() and b_text.isdigit() and int(b_text) > 0):
        print(f"reopen_checkpoint: --turn {args.turn}: give A:B, integers, B > 0", file=sys.stderr)
        return 2
    state_path = args.src / "state.npz"
    if not state_path.is_file():
        print(
            f"reopen_checkpoint: no checkpoint {state_path}: "
            f"run turned_channel.py --out {args.src} first",
            file=sys.stderr,
        )
        return 2
    try:
        case = channel_case(int(a_text), int(b_text), overrides)
    except SlipstreamError as exc:
        print(f"reopen_checkpoint: {exc}", file=sys.stderr)
        return 2
    try:
        with np.load(state_path) as data:
            arrays = {k: data[k] for k in data.files}
        meta = json.loads(bytes(arrays.pop("meta")).decode())
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        print(
            f"reopen_checkpoint: checkpoint {state_path} is damaged ({type(exc).__name__}): "
            "run turned_channel.py again",
            file=sys.stderr,
        )
        return 2
    meta.update(
        case_hash=case_hash(case),
        phase="develop",
        average_start=None,
        converged_step=None,
        n_samples=0,
        slot_force_steps=0,
    )
    for key in arrays:
        if "_sum" in key:
            arrays[key] = np.zeros_like(arrays[key])
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    try:
        write_atomically(args.dst / "state.npz", lambda tmp: _write_npz(tmp, arrays))
    except SlipstreamError as exc:
        print(f"reopen_checkpoint: {exc}", file=sys.stderr)
        return 2
    print(f"{state_path} at step {meta['step']} -> {args.dst / 'state.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
