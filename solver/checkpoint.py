"""Checkpoints: the populations and the run loop's state, in one .npz written atomically.

A checkpoint records a hash of the resolved case; resuming under a different case is refused,
since the saved populations would not mean what the new case assumes. It records the populations'
storage (resolution.storage) too, so that a resume in another storage is refused naming it.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf

from solver.atomic import write_atomically
from solver.backends.base import population_dtype
from solver.config import CaseConfig
from solver.errors import CheckpointError
from solver.run_state import RunState

FILENAME = "state.npz"


@dataclass
class Checkpoint:
    populations: np.ndarray
    state: RunState
    # the inlet cells' density - 1 [z, y] (Simulation.inlet_state); None in checkpoints written
    # before the step kept it apart from the populations
    inlet_drho: np.ndarray | None = None
    # the projected wall's slots' slopes (Simulation.wall_slopes); None without that wall
    wall_slopes: np.ndarray | None = None


def case_hash(case: CaseConfig) -> str:
    """Hash of everything that shapes the physics: the case less its name, step limit and
    output settings, which a resumed run may change, less resolution.storage, which a
    checkpoint records and load_checkpoint checks on its own (so the checkpoints written before
    the key existed, all float32, still resume), and less resolution.streaming, which does not
    change the state a checkpoint holds (the populations in the two-buffer layout either way:
    solver/streaming.py), so a run resumes in either mode."""
    physics = OmegaConf.to_container(OmegaConf.structured(case))
    assert isinstance(physics, dict)
    for key in ("name", "output"):
        physics.pop(key)
    physics["run"].pop("max_steps")
    physics["resolution"].pop("storage")
    physics["resolution"].pop("streaming")
    return hashlib.sha256(json.dumps(physics, sort_keys=True).encode()).hexdigest()[:16]


def save_checkpoint(folder: Path, case: CaseConfig, ckpt: Checkpoint) -> Path:
    """Write folder/state.npz atomically (the previous checkpoint stays until the rename)."""
    s = ckpt.state
    meta = {
        "case_hash": case_hash(case),
        "storage": case.resolution.storage,
        "streaming": case.resolution.streaming,  # a record: either mode resumes the state
        "step": s.step,
        "phase": s.phase,
        "converged_step": s.converged_step,
        "average_start": s.average_start,
        "n_samples": s.n_samples,
        "slot_force_steps": s.slot_force_steps,
    }
    arrays = {
        "populations": ckpt.populations,
        "forces": s.force_history(),
        "bulk_velocity": np.asarray(s.bulk_velocity, np.float64),
        "meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
    }
    if s.rho_sum is not None and s.velocity_sum is not None:
        for level, (rho, velocity) in enumerate(zip(s.rho_sum, s.velocity_sum, strict=True)):
            arrays[f"rho_sum_{level}"] = rho
            arrays[f"velocity_sum_{level}"] = velocity
    if s.slot_force_sum is not None:
        arrays["slot_force_sum"] = s.slot_force_sum
    if s.element_force_sum is not None:
        arrays["element_force_sum"] = s.element_force_sum
    if ckpt.inlet_drho is not None:
        arrays["inlet_drho"] = ckpt.inlet_drho
    if ckpt.wall_slopes is not None:
        arrays["wall_slopes"] = ckpt.wall_slopes
    target = folder / FILENAME

    def save(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            np.savez(fh, **arrays)

    write_atomically(target, save)
    return target


def load_checkpoint(folder: Path, case: CaseConfig, n_populations: int) -> Checkpoint:
    """Read folder/state.npz for this case; CheckpointError if missing, damaged or foreign."""
    path = folder / FILENAME
    if not path.is_file():
        raise CheckpointError(
            f"no checkpoint at '{path}': run without --resume, or with "
            "run.checkpoint_every > 0 first"
        )
    try:
        with np.load(path) as data:
            meta = json.loads(bytes(data["meta"]).decode())
            arrays = {k: data[k] for k in data.files if k != "meta"}
        n_levels = sum(1 for k in arrays if k.startswith("rho_sum_"))
        sums = [
            [arrays[f"{kind}_sum_{level}"] for level in range(n_levels)]
            for kind in ("rho", "velocity")
        ]
        state = RunState(
            step=int(meta["step"]),
            forces=[arrays["forces"]],
            phase=meta["phase"],
            converged_step=meta["converged_step"],
            average_start=meta["average_start"],
            rho_sum=sums[0] or None,
            velocity_sum=sums[1] or None,
            n_samples=int(meta["n_samples"]),
            slot_force_sum=arrays.get("slot_force_sum"),
            slot_force_steps=int(meta.get("slot_force_steps", 0)),
            element_force_sum=arrays.get("element_force_sum"),
            bulk_velocity=[float(v) for v in arrays["bulk_velocity"]],
        )
        populations = arrays["populations"]
        inlet_drho = arrays.get("inlet_drho")
        wall_slopes = arrays.get("wall_slopes")
        expected_hash = meta["case_hash"]
        storage = meta.get("storage", "fp32")
    except (OSError, ValueError, KeyError, TypeError, zipfile.BadZipFile) as exc:
        raise CheckpointError(
            f"checkpoint '{path}' is damaged ({type(exc).__name__}): delete it "
            "and start again without --resume"
        ) from exc
    if storage != case.resolution.storage:
        raise CheckpointError(
            f"checkpoint '{path}' holds populations stored as resolution.storage={storage}, "
            f"this run asks {case.resolution.storage}: resume with "
            f"resolution.storage={storage}, or use another --out folder"
        )
    if expected_hash != case_hash(case):
        raise CheckpointError(
            f"checkpoint '{path}' belongs to a different case configuration: "
            "resume with the same case and overrides, or use another --out folder"
        )
    sums_fit = state.n_samples == 0 or (
        state.rho_sum is not None
        and state.velocity_sum is not None
        and all(
            v.shape == (3, *r.shape) for r, v in zip(state.rho_sum, state.velocity_sum, strict=True)
        )
    )
    forces = state.force_history()
    if (
        populations.shape != (n_populations,)
        or populations.dtype != population_dtype(case.resolution.storage)
        or forces.shape[1:] != (3, 3)
        or len(forces) != state.step
        or not sums_fit
    ):
        raise CheckpointError(
            f"checkpoint '{path}' does not fit this grid: delete it and start "
            "again without --resume"
        )
    return Checkpoint(populations, state, inlet_drho, wall_slopes)
