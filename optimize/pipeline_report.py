"""The pipeline's report, report.md and report.html, from the files the stages wrote: the
dataset, the surrogate's test metrics with a predicted-vs-LBM plot, the optimization table and
history, pictures of the baseline and the optimum, and where the time went.

The content is built once as blocks (heading, text, list, table, image) whose text is Markdown
(code spans, links relative to the report, emphasis) and rendered twice: as Markdown, and as
HTML through inline_html, a renderer for exactly that subset.

Over 250 lines: the blocks and both renderers stay together so the two reports cannot drift."""

from __future__ import annotations

import csv
import html
import json
import os
import platform
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import numpy as np

from optimize.pipeline import PipelineFolders, StageRecord
from solver.atomic import write_atomically, write_text
from solver.fidelity import BLOCKAGE_WARN, MIN_GAP_CELLS_DEFAULT
from surrogate.dataset import Dataset
from viz.numbers import coefficient


@dataclass
class Block:
    kind: str  # heading | text | list | table | image
    text: str = ""  # Markdown; an image's path relative to the report
    rows: list[list[str]] | None = None  # table: the first row is the header
    items: list[str] | None = None  # list


#: Markdown's inline code span, link, strong and emphasis (in this order of precedence).
_INLINE = re.compile(
    r"`([^`]+)`|\[([^\]]+)\]\(([^()\s]+)\)|\*\*(\S(?:.*?\S)?)\*\*|\*(\S(?:.*?\S)?)\*"
)


def inline_html(text: str) -> str:
    """The HTML of a line of Markdown with code spans, links, **strong** and *emphasis*; all else
    is escaped text."""
    parts: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        code, label, url, strong, emphasis = m.groups()
        parts.append(html.escape(text[pos : m.start()]))
        if code is not None:
            parts.append(f"<code>{html.escape(code)}</code>")
        elif label is not None:
            parts.append(f'<a href="{html.escape(url)}">{inline_html(label)}</a>')
        elif strong is not None:
            parts.append(f"<strong>{inline_html(strong)}</strong>")
        else:
            parts.append(f"<em>{inline_html(emphasis)}</em>")
        pos = m.end()
    parts.append(html.escape(text[pos:]))
    return "".join(parts)


def file_link(out: Path, path: Path) -> str:
    """Markdown naming path (inside out) as code: a link relative to the report in out when it
    exists, plain code when it does not. A folder's name ends with '/'."""
    name = path.relative_to(out).as_posix() + ("/" if path.is_dir() else "")
    return f"[`{name}`]({quote(name)})" if path.exists() else f"`{name}`"


def image_block(out: Path, path: Path) -> Block:
    """A picture inside out, by its path relative to the report."""
    return Block("image", quote(path.relative_to(out).as_posix()))


def _plot(path: Path, draw) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = draw(plt)
    write_atomically(path, lambda tmp: fig.savefig(tmp, format="png"))
    plt.close(fig)


def cars_png(path: Path, ds: Dataset, count: int = 4) -> None:
    """Side views of a few of the dataset's shapes (their surface meshes, x-z projection)."""
    from matplotlib.collections import PolyCollection

    picks = np.linspace(0, len(ds) - 1, min(count, len(ds))).round().astype(int)
    varied = [i for i in range(len(ds.parameter_names)) if ds.high[i] > ds.low[i]]

    def draw(plt):
        fig, axes = plt.subplots(
            len(picks), 1, figsize=(8, 2.0 * len(picks)), dpi=120, squeeze=False
        )
        for ax, k in zip(axes[:, 0], picks, strict=False):
            s = ds.sample(int(k))
            xz = s.vertices_m[:, [0, 2]]
            ax.add_collection(PolyCollection(xz[s.faces], facecolor="0.55", edgecolor="none"))
            ax.set_xlim(xz[:, 0].min() - 0.1, xz[:, 0].max() + 0.1)
            ax.set_ylim(0, xz[:, 1].max() + 0.1)
            ax.set_aspect("equal")
            values = ", ".join(
                f"{ds.parameter_names[i]} {ds.parameters[k, i]:.3g}"
                + ("" if ds.parameter_units[i] == "-" else f" {ds.parameter_units[i]}")
                for i in varied
            )
            state = "" if ds.converged[k] else " (not converged)"
            ax.set_title(
                f"sample {s.sample_id}: LBM Cd {coefficient(s.scalars['cd'])}{state}\n"
                + textwrap.fill(values, 110),
                fontsize=8,
            )
            ax.axis("off")
        fig.tight_layout()
        return fig

    _plot(path, draw)


def scatter_png(path: Path, predictions: Path) -> None:
    """Surrogate against LBM Cd on the held-out test shapes, with the ensemble's ±2σ."""
    rows = list(csv.DictReader(open(predictions)))
    lbm = np.array([float(r["cd_lbm"]) for r in rows])
    pred = np.array([float(r["cd_predicted"]) for r in rows])
    std = np.array([float(r.get("cd_std") or 0.0) for r in rows])

    def draw(plt):
        fig, ax = plt.subplots(figsize=(5, 5), dpi=120)
        ax.errorbar(lbm, pred, yerr=2 * std, fmt="o", capsize=3, label="test shapes (±2σ)")
        lo, hi = min(lbm.min(), pred.min()), max(lbm.max(), pred.max())
        ax.plot([lo, hi], [lo, hi], "k--", lw=1, label="surrogate = LBM")
        ax.set_xlabel("LBM Cd")
        ax.set_ylabel("surrogate Cd")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        return fig

    _plot(path, draw)


def machine() -> str:
    """The CPU's model name (Linux) or the platform's, and the CPU count."""
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} CPUs"


def fidelity_blocks(ds: Dataset) -> list[Block]:
    """A warning where the dataset's set-up was under-resolved: a body-wall gap under the default
    resolution.min_gap_cells, or blockage over 5% (docs/solver.md, "Fidelity")."""
    if not len(ds):
        return []
    first = ds.sample(0).scalars
    gaps = [ds.sample(k).scalars.get("gap_cells", np.nan) for k in range(len(ds))]
    warnings = []
    if np.nanmin(gaps) < MIN_GAP_CELLS_DEFAULT:
        warnings.append(
            f"the narrowest body–wall gap holds {np.nanmin(gaps):.2f}–{np.nanmax(gaps):.2f} cells, "
            f"under the {MIN_GAP_CELLS_DEFAULT:g} a resolved gap needs (the sweep lowered "
            "resolution.min_gap_cells)"
        )
    if first.get("blockage", 0.0) > BLOCKAGE_WARN:
        warnings.append(
            f"the body blocks {100 * first['blockage']:.1f}% of the tunnel section (over "
            f"{100 * BLOCKAGE_WARN:.0f}%)"
        )
    if not warnings:
        return []
    return [
        Block(
            "text",
            "Fidelity warning: " + "; ".join(warnings) + ". These Cd values are "
            "screening figures, not a wind tunnel's.",
        )
    ]


def build_report(out: Path, records: dict[str, StageRecord]) -> list[Block]:
    """The report's blocks from the files the stages wrote into out (links relative to out)."""
    f = PipelineFolders(out)
    images = out / "images"
    ds = Dataset(f.dataset)
    sweep = json.loads((f.dataset / "sweep_summary.json").read_text())
    metrics = json.loads((f.surrogate / "metrics.json").read_text())
    result = json.loads((f.optimize / "result.json").read_text())
    cars_png(images / "cars.png", ds)
    scatter_png(images / "scatter.png", f.surrogate / "test_predictions.csv")

    blocks = [
        Block("heading", f"Slipstream pipeline: {out.name}"),
        Block("text", f"{machine()}. The stages, each with its own files:"),
        Block(
            "list",
            items=[
                f"the sweep: {file_link(out, f.dataset)} (the index: "
                f"{file_link(out, f.dataset / 'index.csv')})",
                f"the surrogate: {file_link(out, f.surrogate)} (its test metrics: "
                f"{file_link(out, f.surrogate / 'metrics.json')}, the exported model: "
                f"{file_link(out, f.model)})",
                f"the optimization with its LBM verification: {file_link(out, f.optimize)} (its "
                "report: "
                f"{file_link(out, f.optimize / 'report.md')})",
            ],
        ),
    ]
    free = [p for p in ds.meta.parameters if p.high > p.low]
    blocks += [
        Block("heading", "Dataset"),
        Block(
            "text",
            f"{len(ds)} {ds.family} shapes simulated ({sweep['failed']} failed) from a "
            f"design of experiments over {len(free)} parameters:",
        ),
        Block(
            "table",
            rows=[["parameter", "unit", "low", "high"]]
            + [[p.name, p.unit, f"{p.low:g}", f"{p.high:g}"] for p in free],
        ),
        Block(
            "text",
            f"LBM Cd {coefficient(ds.cd.min())}–{coefficient(ds.cd.max())} (mean "
            f"{coefficient(ds.cd.mean())}); "
            f"{int(ds.converged.sum())} of {len(ds)} converged.",
        ),
        *fidelity_blocks(ds),
        image_block(out, images / "cars.png"),
    ]
    m = metrics
    rows = [
        ["metric", "value"],
        ["test shapes", str(m["shapes"]["test"])],
        ["Cd R²", f"{m['cd_r2']:.3f}"],
        ["Cd MAE [drag counts]", f"{m['cd_mae_counts']:.1f}"],
        ["Cd max error [drag counts]", f"{m['cd_max_error_counts']:.1f}"],
        ["Cd Spearman ρ", f"{m['cd_spearman']:.3f}"],
    ]
    if "cd_within_2sigma" in m:
        rows.append(["share within ±2σ", f"{m['cd_within_2sigma']:.2f}"])
    blocks += [
        Block("heading", "Surrogate"),
        Block(
            "text",
            f"{m['model']} trained on {m['shapes']['train']} shapes, early-stopped on "
            f"{m['shapes']['validation']}, measured on {m['shapes']['test']} held out "
            f"({file_link(out, f.surrogate / 'metrics.json')}):",
        ),
        Block("table", rows=rows),
        image_block(out, images / "scatter.png"),
    ]
    base = result["designs"][0]
    table = [["design", "surrogate Cd ± σ", "LBM Cd", "improvement by the LBM"]]
    for d in result["designs"]:
        gain = 100 * (base["cd_lbm"] - d["cd_lbm"]) / base["cd_lbm"]
        table.append(
            [
                d["label"],
                f"{coefficient(d['cd_surrogate'])} ± {coefficient(d['cd_std'])}",
                coefficient(d["cd_lbm"]),
                f"{gain:+.1f}%",
            ]
        )
    best = result["best"]
    blocks += [
        Block("heading", "Optimization"),
        Block(
            "text",
            f"{result['method']}, {result['surrogate_evaluations']} surrogate evaluations "
            f"({result['predictor_path']}); the baseline and the best designs simulated with the "
            "LBM. "
            f"Best by the LBM: {best} ({file_link(out, f.optimize / 'best.stl')}, "
            f"{file_link(out, f.optimize / 'report.md')}).",
        ),
        Block("table", rows=table),
        image_block(out, f.optimize / "history.png"),
    ]
    for label in ("baseline", best):
        blocks.append(
            Block(
                "text",
                f"{label}: Cp on the body, the time-averaged velocity and where "
                f"the drag comes from ({file_link(out, f.optimize / label / 'case.vtm')} in "
                "ParaView).",
            )
        )
        for picture in ("body_cp.png", "velocity_slice.png", "drag_breakdown.png"):
            if (f.optimize / label / "images" / picture).is_file():
                blocks.append(image_block(out, f.optimize / label / "images" / picture))

    stage_seconds = sweep["stage_seconds"]
    opt_seconds = result["seconds"]
    times = [
        ("meshing", stage_seconds["mesh"]),
        ("voxelization", stage_seconds["voxelize"]),
        ("LBM (dataset)", stage_seconds["simulate"]),
        ("post-processing", stage_seconds["postprocess"]),
        ("writing", stage_seconds["write"]),
        ("training", records["train"].seconds),
        ("inference", opt_seconds["inference"]),
        ("optimization", opt_seconds["optimization"]),
        ("verification (LBM)", opt_seconds["verification"]),
        ("retraining", opt_seconds["retraining"]),
    ]
    total = sum(t for _, t in times)
    blocks += [
        Block("heading", "Where the time went"),
        Block(
            "text",
            "The dataset's stages are summed over the sweep's workers; the rest is wall time. "
            "A stage reused from an earlier run shows the time it took then.",
        ),
        Block(
            "table",
            rows=[["stage", "seconds", "share"]]
            + [[name, f"{t:.1f}", f"{100 * t / total:.1f}%"] for name, t in times]
            + [["total", f"{total:.1f}", "100%"]],
        ),
    ]
    return blocks


def render_md(blocks: list[Block]) -> str:
    """The blocks as Markdown."""
    lines: list[str] = []
    for b in blocks:
        if b.kind == "heading":
            lines += [("# " if not lines else "## ") + b.text, ""]
        elif b.kind == "text":
            lines += [b.text, ""]
        elif b.kind == "list":
            assert b.items
            lines += [f"- {item}" for item in b.items] + [""]
        elif b.kind == "table":
            assert b.rows
            lines += ["| " + " | ".join(b.rows[0]) + " |", "|" + " --- |" * len(b.rows[0])]
            lines += ["| " + " | ".join(r) + " |" for r in b.rows[1:]] + [""]
        else:
            lines += [f"![{Path(b.text).stem}]({b.text})", ""]
    return "\n".join(lines)


def render_html(blocks: list[Block]) -> str:
    """The blocks as one HTML page; each picture links to its file."""
    body: list[str] = []
    for b in blocks:
        if b.kind == "heading":
            level = 1 if not body else 2
            body.append(f"<h{level}>{inline_html(b.text)}</h{level}>")
        elif b.kind == "text":
            body.append(f"<p>{inline_html(b.text)}</p>")
        elif b.kind == "list":
            assert b.items
            body.append(
                "<ul>" + "".join(f"<li>{inline_html(item)}</li>" for item in b.items) + "</ul>"
            )
        elif b.kind == "table":
            assert b.rows
            head = "".join(f"<th>{inline_html(c)}</th>" for c in b.rows[0])
            rows = "".join(
                "<tr>" + "".join(f"<td>{inline_html(c)}</td>" for c in r) + "</tr>"
                for r in b.rows[1:]
            )
            body.append(f"<table><tr>{head}</tr>{rows}</table>")
        else:
            src = html.escape(b.text)
            body.append(
                f'<p><a href="{src}"><img src="{src}" '
                f'alt="{html.escape(Path(b.text).stem)}"></a></p>'
            )
    style = (
        "body{font-family:sans-serif;max-width:960px;margin:2em "
        "auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}img{max-width:100%}"
        "code{background:#f3f3f3;padding:0 2px}"
    )
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Slipstream report</title>'
        f"<style>{style}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def write_report(out: Path, records: dict[str, StageRecord]) -> None:
    """report.md and report.html (and the pictures in images/) in out."""
    blocks = build_report(out, records)
    write_text(out / "report.md", render_md(blocks))
    write_text(out / "report.html", render_html(blocks))
