#!/usr/bin/env python3
"""Is the car's Cd a smooth function of its shape? Two scans of the parametric car with the LBM.

    python benchmarks/car_scans.py [key=value ...] [--out results/car_scans] [--backend
    auto|cpu|cuda]

Clearance 0.15-0.20 m (6 values, backlight 25 deg) and backlight angle 15-45 deg (7 values,
clearance 0.15 m), each a run_case.py run of cases/car.yaml at 64 cells per car length (the
0.15 m clearance holds 2.1 cells) in half the tunnel, cut by a free-slip symmetry plane through
the car's centre (the car and the flow are symmetric at zero yaw); the full tunnel's baseline is
run once beside it. Where the backlight scan jumps between 25 and 35 deg (the critical angle,
where the flow over the rear window separates), both angles are repeated from a slightly
perturbed initial state. Runs that finished are kept (kill it and run it again: it continues).
key=value overrides apply to every run (e.g. walls.model=none, the set-up before the wall model).

Prints for every run Cd, its pressure and friction parts and their sum against Cd, Cl, and the
per-step scatter of Cd in the averaging window; then each scan's quadratic fit and its largest
residual as a share of the mean Cd (the backlight fit may step once between 25 and 35 deg);
draws docs/images/car_scans.png; ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import run_case  # noqa: E402

CASE = str(ROOT / "cases" / "car.yaml")
#: Half of car.yaml's tunnel, 18 m long, cut at the car's centre plane (y = 0) by a free-slip wall.
HALF = [
    "domain.size_m=[18.0,5.0,5.5]",
    "domain.origin_m=[0.0,0.0,0.0]",
    "domain.boundaries.y_min=freeslip",
    "geometry.placement.center_y_m=0.0",
    "domain.sponge.length_m=3.0",
]
RUN = [
    "run.max_steps=11000",
    "run.check_every=250",
    "run.convergence.window_steps=1500",
    "run.convergence.tolerance=5e-3",
    "run.average_steps=2000",
    "run.sample_every=100",
    "output.fields=false",
]
CLEARANCES = [0.15, 0.16, 0.17, 0.18, 0.19, 0.20]
BACKLIGHTS = [15.0, 20.0, 25.0, 30.0, 35.0, 40.0, 45.0]
PERTURBATION = 0.02


def run_name(clearance: float, backlight: float, perturbed: bool = False) -> str:
    return f"clearance{clearance:.2f}_backlight{backlight:.0f}" + (
        "_perturbed" if perturbed else ""
    )


def simulate(out: Path, name: str, overrides: list[str], backend: str, common: list[str]) -> dict:
    """The summary of one run (common: the overrides of every run), running it unless its folder
    already holds one; with the averaging window's per-step Cd scatter added."""
    folder = out / name
    summary = folder / "summary.json"
    if not summary.is_file():
        code = run_case.main(
            [CASE, *overrides, *RUN, *common, "--backend", backend, "--out", str(folder)]
        )
        if code != 0:
            raise SystemExit(f"run {name} failed (exit {code}): see its log above")
    info = json.loads(summary.read_text())
    forces = np.genfromtxt(folder / "forces.csv", delimiter=",", names=True)
    window = (
        forces["cd"][-info["averaged_steps"] :] if info["averaged_steps"] else forces["cd"][-1500:]
    )
    info["cd_step_std"] = float(window.std())
    info["name"] = name
    return info


def car(clearance: float, backlight: float, perturbed: bool = False) -> list[str]:
    extra = [f"flow.initial_perturbation={PERTURBATION}"] if perturbed else []
    return [
        *HALF,
        f"geometry.car.ground_clearance_m={clearance}",
        f"geometry.car.backlight_angle_deg={backlight}",
        *extra,
    ]


def quadratic_residual(x: np.ndarray, cd: np.ndarray, step_after: float | None = None) -> float:
    """Largest |residual| of a least-squares quadratic in x (plus a step at step_after) as a share
    of the mean Cd."""
    columns = [np.ones_like(x), x, x**2]
    if step_after is not None:
        columns.append((x > step_after).astype(float))
    design = np.stack(columns, axis=1)
    coef, *_ = np.linalg.lstsq(design, cd, rcond=None)
    return float(np.max(np.abs(design @ coef - cd)) / cd.mean())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(ROOT / "results" / "car_scans"))
    p.add_argument("--backend", default="auto", choices=("auto", "cpu", "cuda"))
    p.add_argument("overrides", nargs="*", help="key=value for every run, e.g. walls.model=none")
    args = p.parse_args()
    out = Path(args.out)
    common = args.overrides
    full = simulate(out, "full_tunnel_baseline", [], args.backend, common)
    clearance = [
        simulate(out, run_name(c, 25.0), car(c, 25.0), args.backend, common) for c in CLEARANCES
    ]
    backlight = [
        simulate(out, run_name(0.15, b), car(0.15, b), args.backend, common) for b in BACKLIGHTS
    ]
    cd_b = np.array([r["cd"] for r in backlight])
    inner = [i for i, b in enumerate(BACKLIGHTS[:-1]) if 25.0 <= b and BACKLIGHTS[i + 1] <= 35.0]
    jump = max(inner, key=lambda i: abs(cd_b[i + 1] - cd_b[i]))
    repeats = [
        simulate(
            out,
            run_name(0.15, BACKLIGHTS[i], True),
            car(0.15, BACKLIGHTS[i], True),
            args.backend,
            common,
        )
        for i in (jump, jump + 1)
    ]

    print(
        f"{'run':34s} {'Cd':>7s} {'Cd_p':>7s} {'Cd_f':>7s} {'split':>7s} {'Cl':>7s} {'std/Cd':>7s} "
        f"{'gap':>5s} {'block':>6s}"
    )
    for r in [full, *clearance, *backlight, *repeats]:
        split = (r["cd_pressure"] + r["cd_friction"] - r["cd"]) / r["cd"]
        print(
            f"{r['name']:34s} {r['cd']:7.4f} {r['cd_pressure']:7.4f} {r['cd_friction']:7.4f} "
            f"{split:+7.1%} "
            f"{r['cl']:7.3f} {r['cd_step_std'] / r['cd']:7.1%} {r['gap_cells']:5.2f} "
            f"{r['blockage']:6.1%}"
        )
    x_c = np.array(CLEARANCES)
    cd_c = np.array([r["cd"] for r in clearance])
    x_b = np.array(BACKLIGHTS)
    res_c = quadratic_residual(x_c, cd_c)
    res_b_smooth = quadratic_residual(x_b, cd_b)
    res_b_step = quadratic_residual(x_b, cd_b, step_after=BACKLIGHTS[jump])
    half_vs_full = backlight[BACKLIGHTS.index(25.0)]["cd"] / full["cd"] - 1
    print(
        f"clearance scan: largest residual of a quadratic {res_c:.1%} of the mean Cd "
        f"{cd_c.mean():.4f}"
    )
    print(
        f"backlight scan: quadratic {res_b_smooth:.1%}; with a step between {BACKLIGHTS[jump]:.0f} "
        "and "
        f"{BACKLIGHTS[jump + 1]:.0f} deg {res_b_step:.1%} of the mean Cd {cd_b.mean():.4f}"
    )
    print(
        "repeats from a perturbed state: "
        + ", ".join(
            f"{BACKLIGHTS[i]:.0f} deg Cd {r['cd']:.4f} (straight {cd_b[i]:.4f})"
            for i, r in zip((jump, jump + 1), repeats, strict=False)
        )
    )
    print(f"half tunnel against the full one (baseline car): Cd {half_vs_full:+.1%}")
    draw(x_c, clearance, x_b, backlight, repeats, (jump, jump + 1))
    print(
        json.dumps(
            {
                "full_tunnel_baseline": full,
                "clearance_m": CLEARANCES,
                "clearance_runs": clearance,
                "backlight_deg": BACKLIGHTS,
                "backlight_runs": backlight,
                "repeats": repeats,
                "clearance_quadratic_residual": res_c,
                "backlight_quadratic_residual": res_b_smooth,
                "backlight_step_quadratic_residual": res_b_step,
                "backlight_step_after_deg": BACKLIGHTS[jump],
                "half_vs_full": half_vs_full,
            }
        )
    )
    return 0


def draw(x_c, clearance, x_b, backlight, repeats, repeated) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, x, runs, label in (
        (axes[0], x_c, clearance, "ground clearance [m]"),
        (axes[1], x_b, backlight, "backlight angle [deg]"),
    ):
        for key, style, name in (
            ("cd", "o-", "Cd (momentum exchange)"),
            ("cd_pressure", "s--", "pressure part"),
            ("cd_friction", "^:", "friction part"),
        ):
            ax.plot(x, [r[key] for r in runs], style, label=name)
        ax.set_xlabel(label)
        ax.set_ylabel("drag coefficient")
        ax.grid(alpha=0.3)
    axes[1].plot(
        [x_b[i] for i in repeated],
        [r["cd"] for r in repeats],
        "kx",
        markersize=10,
        label="repeat, perturbed start",
    )
    axes[0].legend()
    axes[1].legend()
    fig.suptitle("Parametric car, 64 cells per length, half tunnel (benchmarks/car_scans.py)")
    fig.tight_layout()
    target = ROOT / "docs" / "images" / "car_scans.png"
    fig.savefig(target, dpi=100)


if __name__ == "__main__":
    sys.exit(main())
