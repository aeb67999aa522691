"""The sweep driver: plan the samples, skip what the folder already holds, hand the rest to an
executor, keep the index, report progress and where the time went.

The dataset folder (docs/dataset.md):

    dataset.json      what defines the data (config hash, family, parameter ranges, ...)
    sweep.yaml        the sweep config as run;  case.yaml: the resolved base case
    samples/          sample_<id>.h5 per finished sample, sample_<id>.failed.json per failure
    index.csv         every planned sample with its status
    sweep_summary.json  the last run's counts and stage timings

The files in samples/ are the truth; index.csv is rebuilt from them on every run.

Over 250 lines: the plan, the folder's set-up and scan, the index and the report all read the
one SweepPlan; the one call that runs them is surrogate/make_dataset.py.
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import io
import json
import logging
import math
import shutil
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from omegaconf import OmegaConf

from shapes.case_geometry import CASE_SCHEMA
from shapes.geometry_config import FAMILIES
from solver import __version__
from solver.atomic import write_text
from solver.config import merge_case, read_yaml, to_yaml
from solver.errors import ConfigError, OutputError
from surrogate.dataset import DatasetMeta
from surrogate.executors import Executor
from surrogate.sample_job import SampleJob, SampleOutcome, failure_path, sample_path
from surrogate.sample_record import SCHEMA_VERSION, STAGES, check_sample
from surrogate.sampling import design_points
from surrogate.sweep_config import Range, SweepConfig, parameter_ranges
from viz.numbers import coefficient

log = logging.getLogger(__name__)

#: The index is rewritten at most this often while samples finish [s] (and always at the end).
INDEX_INTERVAL_S = 10.0


@dataclass
class SweepPlan:
    """What a sweep config asks for, resolved: the base case, the ranges, the design points and
    the hash of everything that defines the data."""

    config: SweepConfig
    folder: Path
    ranges: list[Range]
    points: np.ndarray  # [n_samples, d]
    base_case: dict[str, Any]  # the resolved case every sample starts from
    definition: dict[str, Any]  # what the config hash covers
    config_hash: str

    def parameters(self, sample_id: int) -> dict[str, float]:
        return {r.name: float(v) for r, v in zip(self.ranges, self.points[sample_id], strict=False)}


def plan_sweep(config: SweepConfig, sweep_path: Path, folder: Path) -> SweepPlan:
    """Resolve the base case (relative to the sweep file's folder) with the sweep's case keys and
    the family's geometry; draw the design points. ConfigError on a bad case."""
    base_path = (sweep_path.parent / config.base_case).resolve()
    user = OmegaConf.merge(read_yaml(base_path, "case"), OmegaConf.create(config.case))
    case = merge_case(
        user,
        [f"name={config.name}", f"geometry.source={config.family}", "output.images=false"],
        source=f"{sweep_path}: base_case {config.base_case} with case",
        schema=CASE_SCHEMA,
    )
    if case.body.shape != "mesh":
        raise ConfigError(
            f"{sweep_path}: the base case must have body.shape mesh (it has "
            f"'{case.body.shape}'): a sweep varies a shape family's mesh"
        )
    ranges = parameter_ranges(config)
    s = config.sampler
    points = design_points(ranges, s.method, s.n_samples, s.seed)
    base_case = OmegaConf.to_container(OmegaConf.structured(case))
    sampler = {"method": s.method, "seed": s.seed}
    if (
        s.method != "sobol"
    ):  # a Sobol sequence's first points do not change with n; a hypercube's do
        sampler["n_samples"] = s.n_samples
    definition = {
        "schema_version": SCHEMA_VERSION,
        "solver_version": __version__,
        "family": config.family,
        "case": base_case,
        "parameters": [asdict(r) for r in ranges],
        "sampler": sampler,
        "record": asdict(config.record),
    }
    digest = hashlib.sha256(json.dumps(definition, sort_keys=True).encode()).hexdigest()[:16]
    return SweepPlan(config, folder, ranges, points, base_case, definition, digest)  # type: ignore[arg-type]


@contextmanager
def dataset_lock(folder: Path) -> Iterator[None]:
    """Hold the folder for one sweep at a time (released by the OS if the process dies)."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise OutputError(
                f"another sweep is writing into '{folder}': wait for it, or choose "
                "another output folder"
            ) from exc
        yield


def prepare_folder(plan: SweepPlan, sweep_yaml: str, overwrite: bool) -> None:
    """Write dataset.json, sweep.yaml and case.yaml into a new folder; in a used one, refuse a
    different definition unless overwrite (which deletes the old dataset first)."""
    folder = plan.folder
    meta_path = folder / "dataset.json"
    if meta_path.is_file():
        try:
            old = json.loads(meta_path.read_text())
        except (OSError, ValueError):
            old = {}
        if old.get("config_hash") != plan.config_hash:
            if not overwrite:
                before = old.get("definition", {})
                changed = sorted(
                    k
                    for k in set(before) | set(plan.definition)
                    if before.get(k) != plan.definition.get(k)
                ) or ["?"]
                raise ConfigError(
                    f"'{folder}' holds a dataset made with another sweep config (it differs in: "
                    f"{', '.join(changed)}): choose another output folder, or pass "
                    "--overwrite to delete that dataset and start again"
                )
            log.warning("--overwrite: deleting the dataset in %s", folder)
            for name in ("samples", "dataset.json", "index.csv", "sweep_summary.json"):
                target = folder / name
                shutil.rmtree(target) if target.is_dir() else target.unlink(missing_ok=True)
    if not meta_path.is_file():
        meta = DatasetMeta(
            schema_version=SCHEMA_VERSION,
            config_hash=plan.config_hash,
            family=plan.config.family,
            parameters=list(plan.ranges),
            solver_version=__version__,
            definition=plan.definition,
            created_utc=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
        write_text(meta_path, meta.to_json())
    write_text(folder / "sweep.yaml", sweep_yaml)
    case = merge_case(plan.base_case, [], schema=CASE_SCHEMA)
    write_text(folder / "case.yaml", to_yaml(case))


@dataclass
class SampleState:
    status: str  # ok | failed | pending
    reason: str = ""
    cd: float = math.nan
    cl: float = math.nan
    converged: bool = False
    steps: int = 0
    timings_s: dict[str, float] = field(default_factory=dict)


def scan_samples(plan: SweepPlan, retry_failed: bool) -> dict[int, SampleState]:
    """What the folder holds for each planned sample. Stale temporary files of a killed run are
    removed; a damaged sample file, or one whose parameters differ from the plan, is removed and
    the sample planned again; failure records are kept unless retry_failed."""
    samples = plan.folder / "samples"
    samples.mkdir(parents=True, exist_ok=True)
    for stale in samples.glob(".sample_*.tmp"):
        stale.unlink(missing_ok=True)
    states: dict[int, SampleState] = {}
    for i in range(len(plan.points)):
        path, failed = sample_path(samples, i), failure_path(samples, i)
        states[i] = SampleState("pending")
        if path.is_file():
            try:
                summary = check_sample(path, plan.config_hash)
                if summary.sample_id != i or not np.allclose(
                    summary.parameters, plan.points[i], rtol=1e-12, atol=0
                ):
                    raise ValueError("its parameters are not the plan's")
            except ValueError as exc:
                log.warning("%s is damaged (%s): computing it again", path.name, exc)
                path.unlink()
            else:
                r = summary.scalars
                states[i] = SampleState(
                    "ok",
                    cd=float(r["cd"]),
                    cl=float(r["cl"]),
                    converged=bool(r["converged"]),
                    steps=int(r["steps"]),
                    timings_s=summary.timings_s,
                )
                failed.unlink(missing_ok=True)
                continue
        if failed.is_file():
            try:
                record = json.loads(failed.read_text())
                ok = record["config_hash"] == plan.config_hash
            except (OSError, ValueError, KeyError):
                ok = False
            if ok and not retry_failed:
                states[i] = SampleState(
                    "failed", reason=record["reason"], timings_s=record.get("timings_s", {})
                )
            else:
                failed.unlink()
    return states


def index_csv(plan: SweepPlan, states: dict[int, SampleState]) -> str:
    """index.csv: one row per planned sample."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    names = [r.name for r in plan.ranges]
    writer.writerow(
        [
            "sample_id",
            "status",
            "reason",
            "file",
            "cd",
            "cl",
            "converged",
            "steps",
            *[f"{s}_s" for s in STAGES],
            *names,
        ]
    )
    for i, st in sorted(states.items()):
        file = {
            "ok": sample_path(Path("samples"), i),
            "failed": failure_path(Path("samples"), i),
        }.get(st.status, "")
        times = [f"{st.timings_s[s]:.3f}" if s in st.timings_s else "" for s in STAGES]
        writer.writerow(
            [
                i,
                st.status,
                st.reason,
                file,
                _number(st.cd),
                _number(st.cl),
                int(st.converged) if st.status == "ok" else "",
                st.steps or "",
                *times,
                *[repr(float(v)) for v in plan.points[i]],
            ]
        )
    return buf.getvalue()


def _number(value: float) -> str:
    return "" if not math.isfinite(value) else f"{value:.6f}"


class SweepProgress:
    """tqdm on a terminal; one log line per finished sample otherwise. Rates count this run's
    samples only.

    Every sample of a sweep has the same grid, so its cost is its LBM steps. The time left is
    estimated from the steps per second this run has measured (all workers together) times the
    steps still to come: the finished samples' mean steps per sample for the likely figure, and
    run.max_steps for the bound (every sample running to its step limit)."""

    def __init__(self, total: int, done: int, failed: int, max_steps: int) -> None:
        self.total, self.done, self.failed = total, done, failed
        self.max_steps = max_steps
        self.computed = 0
        self.steps_computed = 0
        self.t0 = time.perf_counter()
        self.bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=done + failed, unit="sample", dynamic_ncols=True)

    def rate_per_hour(self) -> float:
        return 3600.0 * self.computed / max(time.perf_counter() - self.t0, 1e-9)

    def minutes_left(self) -> tuple[float, float]:
        """(likely, at most) minutes until every sample is done, from this run's measured steps
        per second; NaN before any sample ran steps."""
        steps_per_s = self.steps_computed / max(time.perf_counter() - self.t0, 1e-9)
        if self.steps_computed == 0:
            return math.nan, math.nan
        left = self.total - self.done - self.failed
        mean_steps = self.steps_computed / self.computed
        return left * mean_steps / steps_per_s / 60, left * self.max_steps / steps_per_s / 60

    def update(self, outcome: SampleOutcome) -> None:
        self.computed += 1
        self.steps_computed += outcome.steps
        if outcome.status == "ok":
            self.done += 1
        else:
            self.failed += 1
        likely, most = self.minutes_left()
        text = (
            f"done {self.done}, failed {self.failed}, {self.rate_per_hour():.0f} samples/h, "
            f"ETA {likely:.1f} min (at most {most:.1f})"
        )
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(text)
        else:
            what = (
                f"Cd {coefficient(outcome.cd)}"
                if outcome.status == "ok"
                else f"failed: {outcome.reason}: {outcome.message}"
            )
            log.info(
                "sample %d %s (%.1f s) | %d/%d %s",
                outcome.sample_id,
                what,
                sum(outcome.timings_s.values()),
                self.done + self.failed,
                self.total,
                text,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@dataclass
class SweepReport:
    total: int
    ok: int
    failed: int
    pending: int
    failures_by_reason: dict[str, int]
    computed_this_run: int
    wall_s: float
    samples_per_hour: float
    stage_seconds: dict[str, float]  # every finished sample of the dataset, summed over workers
    executor: str

    def text(self) -> str:
        lines = [
            f"{self.total} samples: {self.ok} ok, {self.failed} failed, {self.pending} pending"
        ]
        if self.failures_by_reason:
            lines.append(
                "failures: "
                + ", ".join(f"{k} {v}" for k, v in sorted(self.failures_by_reason.items()))
            )
        lines.append(
            f"this run: {self.computed_this_run} samples in {self.wall_s:.1f} s "
            f"({self.samples_per_hour:.0f} samples/h) on {self.executor}"
        )
        total = sum(self.stage_seconds.values())
        if total > 0:
            lines.append("where the time went (all finished samples, summed over workers):")
            lines += [
                f"  {s:<12}{t:9.1f} s {100 * t / total:6.1f}%"
                for s, t in self.stage_seconds.items()
            ]
        return "\n".join(lines)


def run_sweep(
    plan: SweepPlan, executor: Executor, backend: str, retry_failed: bool = False
) -> SweepReport:
    """Compute every planned sample the folder does not hold yet; returns the report (also
    written to sweep_summary.json). The caller holds the folder's lock."""
    states = scan_samples(plan, retry_failed)
    write_text(plan.folder / "index.csv", index_csv(plan, states))
    pending = [i for i, st in states.items() if st.status == "pending"]
    counts = Counter(st.status for st in states.values())
    log.info(
        "%s: %d samples planned, %d done, %d failed before, %d to compute on %s",
        plan.config.name,
        len(states),
        counts["ok"],
        counts["failed"],
        len(pending),
        executor.describe(),
    )
    units = {p.name: p.unit for p in FAMILIES[plan.config.family]}
    samples_dir = str((plan.folder / "samples").resolve())
    jobs = [
        SampleJob(
            sample_id=i,
            family=plan.config.family,
            parameters=plan.parameters(i),
            units=units,
            base_case=plan.base_case,
            record=plan.config.record,
            config_hash=plan.config_hash,
            samples_dir=samples_dir,
            backend=backend,
            seed=plan.config.sampler.seed + i,
        )
        for i in pending
    ]
    progress = SweepProgress(
        len(states), counts["ok"], counts["failed"], int(plan.base_case["run"]["max_steps"])
    )
    last_index = time.perf_counter()
    try:
        for outcome in executor.run(jobs):
            states[outcome.sample_id] = SampleState(
                outcome.status,
                outcome.reason,
                outcome.cd,
                outcome.cl,
                outcome.converged,
                outcome.steps,
                outcome.timings_s,
            )
            progress.update(outcome)
            if time.perf_counter() - last_index > INDEX_INTERVAL_S:
                write_text(plan.folder / "index.csv", index_csv(plan, states))
                last_index = time.perf_counter()
    finally:
        progress.close()
        write_text(plan.folder / "index.csv", index_csv(plan, states))
    counts = Counter(st.status for st in states.values())
    stage_seconds = {s: sum(st.timings_s.get(s, 0.0) for st in states.values()) for s in STAGES}
    report = SweepReport(
        total=len(states),
        ok=counts["ok"],
        failed=counts["failed"],
        pending=counts["pending"],
        failures_by_reason=dict(
            Counter(st.reason for st in states.values() if st.status == "failed")
        ),
        computed_this_run=progress.computed,
        wall_s=time.perf_counter() - progress.t0,
        samples_per_hour=progress.rate_per_hour(),
        stage_seconds=stage_seconds,
        executor=executor.describe(),
    )
    write_text(plan.folder / "sweep_summary.json", json.dumps(asdict(report), indent=2) + "\n")
    return report
