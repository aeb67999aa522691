"""Verification: the baseline and the best candidates simulated with the LBM solver, at the
dataset's resolution, as run_case.py runs a case (slipstream.job.run_case), each into its own
results folder with the ParaView files and pictures."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from shapes.case_geometry import CASE_SCHEMA
from shapes.geometry_config import family_overrides
from slipstream.job import run_case
from solver.atomic import write_text
from solver.config import load_case
from solver.errors import SlipstreamError


class VerificationError(SlipstreamError):
    """A verification run could not be done."""


@dataclass
class Verified:
    label: str
    params: np.ndarray
    cd_surrogate: float
    cd_std: float
    cd_lbm: float
    converged: bool
    folder: Path


def dataset_case(dataset_folder: Path) -> Path:
    """The resolved case every sample of the dataset was simulated with."""
    case = dataset_folder / "case.yaml"
    if not case.is_file():
        raise VerificationError(
            f"the dataset '{dataset_folder}' named in the model's metadata has no case.yaml: "
            "verification simulates at the dataset's settings, so keep the dataset folder"
        )
    return case


def simulate(
    case: Path, family: str, names: list[str], params: np.ndarray, out: Path, backend: str
) -> dict:
    """Run one design as run_case.py would; its summary.json (Cd, convergence, ...). A folder
    that already holds this design's run of this case (design.json) is reused."""
    overrides = [
        *family_overrides(family, dict(zip(names, map(float, params), strict=False))),
        f"name={out.name}",
        "output.images=false",
    ]
    design = {"case_sha256": hashlib.sha256(case.read_bytes()).hexdigest(), "overrides": overrides}
    try:
        if json.loads((out / "design.json").read_text()) == design:
            return json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        pass
    try:
        summary = run_case(load_case(case, overrides, schema=CASE_SCHEMA), out, backend).summary
    except SlipstreamError as exc:
        raise VerificationError(f"the LBM run of {out.name} failed: {exc}") from exc
    write_text(out / "design.json", json.dumps(design, indent=2) + "\n")
    return summary


def draw_pictures(folder: Path) -> None:
    """The run's pictures (Cp on the body, velocity slice, streamlines, Cd history) into
    folder/images, by `python -m viz` (once: kept when they exist)."""
    if (folder / "images" / "body_cp.png").is_file():
        return
    done = subprocess.run(
        [sys.executable, "-m", "viz", str(folder)], capture_output=True, text=True
    )
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise VerificationError(f"the pictures of {folder.name} could not be drawn: {tail}")
