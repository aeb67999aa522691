#!/usr/bin/env python3
"""Run one lattice-Boltzmann case.

    python run_case.py CASE.yaml [key=value ...] [--out DIR] [--backend auto|cpu|cuda] [--resume]

Writes DIR (default results/<case name>): config.yaml, forces.csv, summary.json, fields.vti
(on refinement levels one fields_level<i>.vti per level, coarse first), surface.vtp (the body with
Cp), case.vtm (all together), images/, and with the matching keys snapshots/ with fields.pvd and
checkpoint/ (docs/output.md). A bad case ends with one line naming
the key and
exit code 2, before anything is written.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from shapes.case_geometry import CASE_SCHEMA
from slipstream.job import run_case
from solver.backends import BACKENDS
from solver.callbacks import Callback, IterationInterval
from solver.cli_logging import configure_logging
from solver.config import load_case
from solver.errors import SlipstreamError
from solver.run import Runner
from viz.numbers import coefficient

log = logging.getLogger("run_case")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("case", help="case YAML (see cases/README.md)")
    p.add_argument("overrides", nargs="*", help="key=value overrides, e.g. run.max_steps=2000")
    p.add_argument("--out", help="results folder (default results/<case name>)")
    p.add_argument("--backend", default="auto", choices=BACKENDS)
    p.add_argument("--resume", action="store_true", help="continue from DIR/checkpoint")
    return p.parse_intermixed_args(argv)


class ProgressBar:
    """The run's progress callback: tqdm on a terminal; a log line every tenth of the run
    otherwise."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar = None
        self.last_logged = 0
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="step", dynamic_ncols=True)

    def __call__(self, runner: Runner) -> None:
        step, total = runner.state.step, self.total
        cd, rate = runner.recent_cd(), runner.steps_per_second()
        eta = (total - step) / rate if rate > 0 else float("nan")
        if self.bar is not None:
            self.bar.n = step
            self.bar.set_postfix_str(f"mean Cd {coefficient(cd)}, {rate:.0f} steps/s")
            self.bar.refresh()
        elif step - self.last_logged >= total / 10 or step >= total:
            self.last_logged = step
            log.info(
                "step %d/%d  mean Cd %s  %.0f steps/s  ETA %.0f s",
                step,
                total,
                coefficient(cd),
                rate,
                eta,
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _convergence(info: dict) -> str:
    """The final log line's words on convergence (info: summary.json's figures)."""
    if info["converged"]:
        return f"converged at step {info['converged_step']}"
    what = "the bulk velocity" if info["cd"] is None else "Cd"
    return f"NOT CONVERGED: {what} still changing at the step limit"


def main(argv: list[str] | None = None) -> int:
    configure_logging()
    args = parse_args(argv)
    try:
        case = load_case(args.case, args.overrides, schema=CASE_SCHEMA)
        out = Path(args.out) if args.out else Path("results") / case.name
        progress = ProgressBar(case.run.max_steps)
        try:
            done = run_case(
                case,
                out,
                args.backend,
                args.resume,
                [Callback(progress, IterationInterval(case.run.check_every))],
            )
        finally:
            progress.close()
        info = done.summary
    except SlipstreamError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    if "friction_factor" in info:
        mckeon = info["friction_factor_mckeon"]
        log.info(
            "Darcy f %.4g (McKeon %s)  Re_D %.4g  Re_tau %.4g  steps %d  %s  %.1f MLUPs  -> %s",
            info["friction_factor"],
            f"{mckeon:.4g}" if mckeon is not None else "-",
            info["re_d"],
            info["re_tau"],
            info["steps"],
            _convergence(info),
            info["mlups"],
            out,
        )
        return 0
    if case.flow.reynolds_tau is not None:
        log.info(
            "Cf %.4g (Dean %.4g)  Re_tau %.4g  Re_bulk %.4g  steps %d  %s  %.1f MLUPs  -> %s",
            info["cf"],
            info["cf_dean"],
            info["re_tau"],
            info["re_bulk"],
            info["steps"],
            _convergence(info),
            info["mlups"],
            out,
        )
        return 0
    log.info(
        "Cd %s (pressure %s, friction %s)  Cl %s  steps %d  %s  %.1f MLUPs  -> %s",
        coefficient(info["cd"]),
        coefficient(info["cd_pressure"]),
        coefficient(info["cd_friction"]),
        coefficient(info["cl"]),
        info["steps"],
        _convergence(info),
        info["mlups"],
        out,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
