"""Checkpoints: the populations and the run loop's state, in one .npz written atomically.

A checkpoint records a hash of the resolved case; resuming under a different case is refused,
since the saved populations would not mean what the new case assumes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from solver.atomic import atomic_path
from solver.config import CaseConfig, to_yaml
from solver.errors import CheckpointError

if TYPE_CHECKING:
    from solver.run import RunState

FILENAME = "state.npz"


@dataclass
class Checkpoint:
    populations: np.ndarray
    state: "RunState"


def case_hash(case: CaseConfig) -> str:
    """Hash of everything that shapes the physics (the run's step limit may change on resume)."""
    text = to_yaml(case)
    physics = "\n".join(line for line in text.splitlines() if "max_steps" not in line)
    return hashlib.sha256(physics.encode()).hexdigest()[:16]


def save_checkpoint(folder: Path, case: CaseConfig, ckpt: Checkpoint) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    s = ckpt.state
    meta = {
        "case_hash": case_hash(case), "step": s.step, "phase": s.phase,
        "converged_step": s.converged_step, "average_start": s.average_start,
        "n_samples": s.n_samples,
    }
    arrays = {"populations": ckpt.populations, "forces": s.force_history(),
              "meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}
    if s.rho_sum is not None:
        arrays["rho_sum"] = s.rho_sum
        arrays["velocity_sum"] = s.velocity_sum
    target = folder / FILENAME
    with atomic_path(target) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
    return target


def load_checkpoint(folder: Path, case: CaseConfig) -> Checkpoint:
    from solver.run import RunState

    path = folder / FILENAME
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at '{path}': run without --resume, or with "
                              "run.checkpoint_every > 0 first")
    try:
        with np.load(path) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            arrays = {k: data[k] for k in data.files if k != "meta"}
    except (OSError, ValueError, KeyError) as exc:
        raise CheckpointError(f"checkpoint '{path}' is damaged ({exc}): delete it and start again") from exc
    if meta["case_hash"] != case_hash(case):
        raise CheckpointError(f"checkpoint '{path}' belongs to a different case configuration: "
                              "resume with the same case and overrides, or use another --out folder")
    state = RunState(
        step=meta["step"], forces=[arrays["forces"]], phase=meta["phase"],
        converged_step=meta["converged_step"], average_start=meta["average_start"],
        rho_sum=arrays.get("rho_sum"), velocity_sum=arrays.get("velocity_sum"),
        n_samples=meta["n_samples"],
    )
    return Checkpoint(arrays["populations"], state)
