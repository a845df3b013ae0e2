"""Plots for the HTML report, drawn with matplotlib (Agg) and returned as inline SVG text."""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from readout_audit.readout import MASS_FLOOR

plt.rcParams.update(
    {
        "svg.hashsalt": "readout-audit",  # the same run gives the same SVG
        "svg.fonttype": "path",
        "font.size": 9,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
)
LIFT_LABEL = "lift over recent context (clipLL_2)"
COLOURS = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#57606a", "#bf3989", "#0a7ea4"]


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # drop the XML prolog and doctype to inline it


def _legend(axes: Any, **kwargs: Any) -> None:
    """A legend whose labels (which may be users' names) are drawn as written, never as math."""
    for text in axes.legend(**kwargs).get_texts():
        text.set_parse_math(False)


def _log_x(axes: Any) -> None:
    """A log x axis whose ticks are labelled however narrow the data's range.

    Matplotlib labels powers of ten; with fewer than two in view (values within about one
    decade), the ticks at 1, 2 and 5 times a power of ten are labelled instead, or, when even
    those are fewer than two, evenly spaced ones. Call it once everything is drawn.
    """
    axes.set_xscale("log")
    axes.xaxis.set_minor_formatter(NullFormatter())
    low, high = axes.get_xlim()
    if math.floor(math.log10(high)) - math.ceil(math.log10(low)) < 1:
        axes.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axes.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))


def _right_legend_svg(figure: Figure, axes: Any, xlabel: str, ylabel: str, title: str) -> str:
    """Label the axes, put the legend right of them, title, and return the SVG."""
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    _legend(axes, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    axes.set_title(title)
    return _svg(figure)


def mass_distribution(masses: Mapping[str, Sequence[float]], title: str) -> str:
    """Each group's option masses on a log axis (jittered points and a box), floor marked."""
    names = list(masses)
    figure, axes = plt.subplots(figsize=(7.0, 0.45 * len(names) + 1.2))
    rng = np.random.default_rng(0)
    for row, name in enumerate(names):
        values = np.clip(np.asarray(masses[name], dtype=float), 1e-20, 1.0)
        if values.size == 0:
            axes.text(MASS_FLOOR, row, "not measurable ", ha="right", va="center", color="#57606a")
            continue
        axes.boxplot(
            values,
            positions=[row],
            orientation="horizontal",
            widths=0.5,
            showfliers=False,
            manage_ticks=False,
        )
        jitter = rng.uniform(-0.18, 0.18, values.size)
        axes.scatter(values, row + jitter, s=8, alpha=0.55, color=COLOURS[row % len(COLOURS)])
    axes.axvline(MASS_FLOOR, color="#d1242f", linestyle="--", linewidth=1)
    axes.text(MASS_FLOOR, -0.6, " 0.5 floor", color="#d1242f", va="top")
    axes.set_yticks(range(len(names)), names, parse_math=False)  # names may be users' text
    axes.set_ylim(len(names) - 0.2, -0.7)
    _log_x(axes)
    axes.set_xlabel("option mass μ at the scored position (log scale)")
    axes.set_title(title)
    return _svg(figure)


def class_bars(counts: Mapping[str, Mapping[str, int]], title: str) -> str:
    """Stacked horizontal bars: the share of each argmax class per group."""
    names = list(counts)
    classes = sorted({c for group in counts.values() for c in group})
    figure, axes = plt.subplots(figsize=(7.0, 0.45 * len(names) + 1.4))
    left = np.zeros(len(names))
    for index, cls in enumerate(classes):
        shares = np.array(
            [counts[n].get(cls, 0) / max(1, sum(counts[n].values())) for n in names], dtype=float
        )
        axes.barh(
            range(len(names)), shares, left=left, color=COLOURS[index % len(COLOURS)], label=cls
        )
        left += shares
    axes.set_yticks(range(len(names)), names, parse_math=False)
    axes.set_xlim(0, 1)
    axes.invert_yaxis()
    axes.set_xlabel("share of items")
    _legend(axes, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    axes.set_title(title)
    return _svg(figure)


def roc_curves(scores: Mapping[str, Sequence[float]], labels: Sequence[bool], title: str) -> str:
    """ROC curve of each score against the binary labels, with its AUC in the legend."""
    from readout_audit.stats import auc

    y = np.asarray(labels, dtype=bool)
    figure, axes = plt.subplots(figsize=(4.6, 4.2))
    for index, (name, values) in enumerate(scores.items()):
        s = np.asarray(values, dtype=float)
        order = np.argsort(-s, kind="mergesort")
        distinct = np.r_[np.flatnonzero(np.diff(s[order])), s.size - 1]
        tps = np.cumsum(y[order])[distinct]
        fps = (distinct + 1) - tps
        tpr = np.r_[0, tps / max(1, y.sum())]
        fpr = np.r_[0, fps / max(1, (~y).sum())]
        axes.plot(
            fpr, tpr, color=COLOURS[index % len(COLOURS)], label=f"{name} (AUC {auc(s, y):.3f})"
        )
    axes.plot([0, 1], [0, 1], color="#8c959f", linestyle=":", linewidth=1)
    axes.set_xlabel("false positive rate")
    axes.set_ylabel("true positive rate")
    _legend(axes, loc="lower right", fontsize=8)
    axes.set_title(title)
    return _svg(figure)


def reliability(
    probs: Mapping[str, Sequence[float]], labels: Sequence[bool], title: str, bins: int = 10
) -> str:
    """Observed frequency against mean predicted probability in equal-width bins."""
    y = np.asarray(labels, dtype=float)
    edges = np.linspace(0, 1, bins + 1)
    figure, axes = plt.subplots(figsize=(4.6, 4.2))
    for index, (name, values) in enumerate(probs.items()):
        p = np.clip(np.asarray(values, dtype=float), 0, 1)
        which = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
        xs, ys, ns = [], [], []
        for b in range(bins):
            inside = which == b
            if inside.any():
                xs.append(p[inside].mean())
                ys.append(y[inside].mean())
                ns.append(inside.sum())
        colour = COLOURS[index % len(COLOURS)]
        axes.plot(xs, ys, marker="o", color=colour, label=name)
        axes.scatter(xs, ys, s=[8 + 4 * n for n in ns], color=colour, alpha=0.35)
    axes.plot([0, 1], [0, 1], color="#8c959f", linestyle=":", linewidth=1)
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("mean predicted probability (bin)")
    axes.set_ylabel("observed frequency")
    _legend(axes, loc="upper left", fontsize=8)
    axes.set_title(title)
    return _svg(figure)


def intervals(rows: Mapping[str, tuple[float, float, float]], title: str, zero: bool) -> str:
    """Point estimates with 95% intervals (a forest plot); ``zero`` marks no difference."""
    names = list(rows)
    figure, axes = plt.subplots(figsize=(6.0, 0.4 * len(names) + 1.1))
    for row, name in enumerate(names):
        estimate, low, high = rows[name]
        axes.plot([low, high], [row, row], color=COLOURS[0], linewidth=2)
        axes.plot([estimate], [row], marker="o", color=COLOURS[0])
    if zero:
        axes.axvline(0, color="#8c959f", linestyle=":", linewidth=1)
    axes.set_yticks(range(len(names)), names, parse_math=False)
    axes.invert_yaxis()
    axes.set_title(title)
    return _svg(figure)


def budget_curves(
    curves: Mapping[str, Sequence[tuple[int, float, float]]], raw: Mapping[str, float], title: str
) -> str:
    """Corrected accuracy (mean ± sd over subsamples) against the fit budget, raw dashed."""
    figure, axes = plt.subplots(figsize=(7.0, 3.4))
    for index, (name, points) in enumerate(curves.items()):
        colour = COLOURS[index % len(COLOURS)]
        budgets, means, sds = (np.asarray(v, dtype=float) for v in zip(*points, strict=True))
        axes.errorbar(budgets, means, yerr=sds, marker="o", capsize=3, color=colour, label=name)
        axes.axhline(raw[name], color=colour, linestyle="--", linewidth=1)
    _log_x(axes)
    xlabel = "unlabelled fit examples (log scale); dashed: raw accuracy"
    return _right_legend_svg(figure, axes, xlabel, "held-out accuracy", title)


def null_histogram(
    counts: Sequence[int], edges: Sequence[float], observed: float, title: str
) -> str:
    """The permutation null's accuracies as a histogram, the observed accuracy marked."""
    figure, axes = plt.subplots(figsize=(7.0, 2.8))
    widths = np.diff(np.asarray(edges, dtype=float))
    axes.bar(edges[:-1], counts, width=widths, align="edge", color=COLOURS[5], alpha=0.7)
    axes.axvline(observed, color=COLOURS[1], linewidth=1.5)
    axes.text(observed, max(counts) if counts else 1, " observed", color=COLOURS[1], va="top")
    axes.set_xlabel("accuracy of the corrected predictions permuted with their label counts kept")
    axes.set_ylabel("permutations")
    axes.set_title(title)
    return _svg(figure)


def window_curves(curves: Mapping[str, Sequence[tuple[int, float, float]]], title: str) -> str:
    """Lift (± 2 SE) on the first N target tokens for each N, one line per setting."""
    figure, axes = plt.subplots(figsize=(7.0, 3.4))
    for index, (name, points) in enumerate(curves.items()):
        windows, means, ses = (np.asarray(v, dtype=float) for v in zip(*points, strict=True))
        axes.errorbar(
            range(len(windows)),
            means,
            yerr=2 * ses,
            marker="o",
            capsize=3,
            color=COLOURS[index % len(COLOURS)],
            label=name,
        )
        axes.set_xticks(range(len(windows)), [f"{int(w)}" for w in windows])
    axes.axhline(0, color="#8c959f", linestyle=":", linewidth=1)
    xlabel = "scored target tokens (first N)"
    return _right_legend_svg(figure, axes, xlabel, LIFT_LABEL, title)


def ecdf_curves(values: Mapping[str, Sequence[float]], title: str, xlabel: str) -> str:
    """Each group's empirical CDF of per-item values, its median dashed (seed 001, Figure 2)."""
    figure, axes = plt.subplots(figsize=(7.0, 3.4))
    for index, (name, points) in enumerate(values.items()):
        colour = COLOURS[index % len(COLOURS)]
        x = np.sort(np.asarray(points, dtype=float))
        axes.step(x, np.arange(1, x.size + 1) / x.size, where="post", color=colour, label=name)
        axes.axvline(float(np.median(x)), color=colour, linestyle="--", linewidth=1)
    axes.axvline(0, color="#8c959f", linestyle=":", linewidth=1)
    return _right_legend_svg(figure, axes, xlabel, "fraction of cuts", title)


def lift_vs_tokens(points: Mapping[str, tuple[float, float, float]], title: str) -> str:
    """Lift (± 2 SE) against mean reasoning tokens on a log axis, zero drawn at 1 (Figure 1)."""
    figure, axes = plt.subplots(figsize=(7.0, 3.4))
    for index, (name, (tokens, mean, se)) in enumerate(points.items()):
        colour = COLOURS[index % len(COLOURS)]
        x = max(tokens, 1.0)
        axes.errorbar([x], [mean], yerr=[2 * se], marker="o", capsize=3, color=colour, label=name)
    _log_x(axes)
    xlabel = "mean hidden reasoning tokens (log scale; none drawn at 1)"
    return _right_legend_svg(figure, axes, xlabel, LIFT_LABEL, title)
