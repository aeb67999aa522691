"""The optimization's artifacts: history.png and report.md."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optimize.design_space import DesignSpace
from optimize.verify import Verified
from viz.numbers import coefficient


def history_png(path: Path, scores: np.ndarray, baseline_score: float, objective: str) -> None:
    """Every scored design's objective (with its uncertainty and penalties) against the
    evaluation count, the best so far, and the baseline."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), dpi=150)
    n = np.arange(1, len(scores) + 1)
    shown = scores < baseline_score + 10 * max(
        abs(baseline_score), 1e-9
    )  # penalised outliers off the axis
    ax.plot(n[shown], scores[shown], ".", ms=3, alpha=0.4, label="scored designs")
    ax.plot(n, np.minimum.accumulate(scores), "-", lw=2, label="best so far")
    ax.axhline(baseline_score, color="k", ls="--", lw=1, label="baseline")
    ax.set_xlabel("surrogate evaluations")
    ax.set_ylabel(f"{'Cd' if objective == 'cd' else 'Cd A [m²]'} + κσ + penalties")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


def report_md(
    space: DesignSpace,
    verified: list[Verified],
    objective: str,
    kappa: float,
    method: str,
    evaluations: int,
    best: Verified,
    areas: dict[str, float],
    rounds: list[dict],
) -> str:
    base = verified[0]
    lines = [
        f"# Shape optimization: {space.family}",
        "",
        f"{method} over {space.n_free} free parameters, {evaluations} surrogate evaluations, "
        "objective "
        f"{'Cd' if objective == 'cd' else 'drag area Cd·A'} + {kappa:g}σ. Each design below was "
        "simulated "
        "with the LBM solver at the dataset's resolution (its folder holds the ParaView files: "
        "case.vtm).",
        "",
        "| design | surrogate Cd ± σ | LBM Cd | LBM within 3σ | improvement, surrogate | "
        "improvement, LBM |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for v in verified:
        within = abs(v.cd_lbm - v.cd_surrogate) <= 3 * v.cd_std
        gain_s = 100 * (base.cd_surrogate - v.cd_surrogate) / base.cd_surrogate
        gain_l = 100 * (base.cd_lbm - v.cd_lbm) / base.cd_lbm
        lines.append(
            f"| [{v.label}]({v.folder.name}) | {coefficient(v.cd_surrogate)} ± "
            f"{coefficient(v.cd_std)} | "
            f"{coefficient(v.cd_lbm)}"
            f"{'' if v.converged else ' (not converged)'} | {'yes' if within else 'no'} | "
            f"{gain_s:+.1f}% | {gain_l:+.1f}% |"
        )
    if objective == "drag_area":
        lines += [
            "",
            "Drag area Cd·A [m²] by the LBM: "
            + ", ".join(f"{v.label} {v.cd_lbm * areas[v.label]:#.4g}" for v in verified),
        ]
    if len(rounds) > 1:
        lines += [
            "",
            "Active learning: after each round the verified designs joined the dataset and the "
            "surrogate "
            "was retrained from its last weights.",
            "",
            "| round | surrogate | best LBM-confirmed improvement |",
            "| --- | --- | --- |",
        ]
        lines += [
            f"| {r['round']} | `{r['model']}` | {100 * r['lbm_improvement']:+.1f}% |"
            for r in rounds
        ]
    unsettled = "" if best.converged else " Its LBM run did not converge: its Cd is provisional."
    lines += [
        "",
        f"Best by the LBM: **{best.label}** (`best.stl`), σ at it "
        f"{coefficient(best.cd_std)}.{unsettled}",
        "",
        "| parameter | unit | baseline | best | search range |",
        "| --- | --- | --- | --- | --- |",
    ]
    for i, name in enumerate(space.names):
        rng = f"{space.low[i]:g} – {space.high[i]:g}" if space.free[i] else "fixed"
        lines.append(
            f"| {name} | {space.units[i]} | {base.params[i]:.4g} | {best.params[i]:.4g} | {rng} |"
        )
    lines += ["", "![history](history.png)", ""]
    for v in (base, best):
        for picture in ("body_cp.png", "velocity_slice.png", "drag_breakdown.png"):
            if (v.folder / "images" / picture).is_file():
                lines.append(f"![{v.label} {picture[:-4]}]({v.folder.name}/images/{picture})")
    return "\n".join(lines) + "\n"
