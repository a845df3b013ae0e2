"""Two runs of the same kind over the same items: check deltas and paired differences."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from rich.console import Console

from readout_audit._exceptions import RunDirectoryError
from readout_audit.audit._summary import predicted_option, target_matches
from readout_audit.log._record import PTrueRecord, ScoreRecord, YesNoRecord
from readout_audit.log._run import Run
from readout_audit.report._summary import run_summary
from readout_audit.report._terminal import new_table, wide_console
from readout_audit.stats._bootstrap import binary_scores_bootstrap, paired_bootstrap
from readout_audit.stats._resample import resampling_clusters

Pairs = list[tuple[ScoreRecord, ScoreRecord]]


def _difference(
    name: str,
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[str],
    n_boot: int,
    seed: int,
) -> dict[str, Any]:
    boot = paired_bootstrap(
        {"A": np.asarray(a, float), "B": np.asarray(b, float)},
        statistic="mean",
        clusters=resampling_clusters(clusters),
        n_boot=n_boot,
        seed=seed,
    )
    return _interval_row(
        name,
        len(a),
        boot.readouts["A"].estimate,
        boot.readouts["B"].estimate,
        boot.readouts["B"].replicates - boot.readouts["A"].replicates,
    )


def _correct(record: ScoreRecord) -> bool | None:
    """Whether the option with the highest log-likelihood is the target, where there is one."""
    if record.target is None or isinstance(record.target, bool):
        return None
    chosen = predicted_option(record)
    return None if chosen is None else target_matches(record, chosen)


def _per_record_metrics(pairs: Pairs) -> dict[str, Callable[[ScoreRecord], float | None]]:
    metrics: dict[str, Callable[[ScoreRecord], float | None]] = {
        "option mass": lambda r: r.option_mass,
        "argmax in the declared set": lambda r: float(r.argmax_is_option),
    }
    if any(_correct(a) is not None for a, _ in pairs):
        metrics["accuracy (log-likelihood choice)"] = lambda r: (
            None if (c := _correct(r)) is None else float(c)
        )
    return metrics


def _group_differences(pairs: Pairs, n_boot: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for name, metric in _per_record_metrics(pairs).items():
        kept = [(metric(a), metric(b), a.cluster) for a, b in pairs]
        kept = [(x, y, c) for x, y, c in kept if x is not None and y is not None]
        if kept:
            xs, ys, cs = zip(*kept, strict=True)
            rows.append(_difference(name, xs, ys, cs, n_boot, seed))
    rows += _kind_differences(pairs, n_boot, seed)
    return rows


def _interval_row(
    metric: str, n: int, a: float, b: float, replicates: np.ndarray
) -> dict[str, Any]:
    low, high = np.quantile(replicates[np.isfinite(replicates)], [0.025, 0.975])
    return {
        "metric": metric,
        "n": n,
        "a": a,
        "b": b,
        "difference": b - a,
        "low": float(low),
        "high": float(high),
    }


def _kind_differences(pairs: Pairs, n_boot: int, seed: int) -> list[dict[str, Any]]:
    """F1 per yes/no readout; AUROC for P(True) when both runs judge the same correctness."""
    clusters = [a.cluster for a, _ in pairs]
    yesno = [(a, b) for a, b in pairs if isinstance(a, YesNoRecord) and isinstance(b, YesNoRecord)]
    if yesno and len(yesno) == len(pairs):
        return _f1_differences(yesno, clusters, n_boot, seed)
    ptrue = [(a, b) for a, b in pairs if isinstance(a, PTrueRecord) and isinstance(b, PTrueRecord)]
    if not ptrue or len(ptrue) != len(pairs):
        return []
    same = all(
        a.correct == b.correct and a.confidence is not None and b.confidence is not None
        for a, b in ptrue
    )
    y = np.array([a.correct for a, _ in ptrue])
    if not same or y.all() or not y.any():
        return []
    boot = paired_bootstrap(
        {"A": [a.confidence for a, _ in ptrue], "B": [b.confidence for _, b in ptrue]},
        y,
        statistic="auc",
        clusters=resampling_clusters(clusters),
        n_boot=n_boot,
        seed=seed,
    )
    return [
        _interval_row(
            "AUROC",
            len(ptrue),
            boot.readouts["A"].estimate,
            boot.readouts["B"].estimate,
            boot.readouts["B"].replicates - boot.readouts["A"].replicates,
        )
    ]


def _f1_differences(
    pairs: list[tuple[YesNoRecord, YesNoRecord]], clusters: list[str], n_boot: int, seed: int
) -> list[dict[str, Any]]:
    """Each readout's F1 in both runs from the same resamples (one seed), so B − A is paired."""
    label = [a.label == "yes" for a, _ in pairs]
    rows = []
    for readout in pairs[0][0].decisions:
        if not all(a.decisions.get(readout) and b.decisions.get(readout) for a, b in pairs):
            continue
        f1 = [
            binary_scores_bootstrap(
                [r.decisions[readout] == "yes" for r in side],
                label,
                n_boot=n_boot,
                seed=seed,
                clusters=resampling_clusters(clusters),
            )["f1"]
            for side in ([a for a, _ in pairs], [b for _, b in pairs])
        ]
        rows.append(
            _interval_row(
                f"F1 {readout}",
                len(pairs),
                f1[0].estimate,
                f1[1].estimate,
                f1[1].replicates - f1[0].replicates,
            )
        )
    return rows


def _pair(a: Run, b: Run) -> Pairs:
    """Pair records of the same item and variant.

    Failing that, when each run scored a single variant (two prompt specs, say), pair records
    of the same item.
    """
    by_b = {r.key: r for r in b.records}
    pairs = [(r, by_b[r.key]) for r in a.records if r.key in by_b]
    single = len({r.variant for r in a.records}) == 1 == len({r.variant for r in b.records})
    if not pairs and single:
        by_item = {r.item_id: r for r in b.records}
        pairs = [(r, by_item[r.item_id]) for r in a.records if r.item_id in by_item]
    if not pairs:
        raise RunDirectoryError(f"{a.directory} and {b.directory} share no scored items")
    return pairs


def compare_runs(a: Run, b: Run, *, n_boot: int = 20_000, seed: int = 0) -> dict[str, Any]:
    """Per-check verdict changes and paired differences (B − A) on the items both runs scored.

    Records are paired by (item id, variant or readout), or by item id when each run holds a
    single variant; intervals are 95% paired bootstrap intervals over the items' clusters.
    """
    if a.manifest.kind != b.manifest.kind:
        raise RunDirectoryError(
            f"cannot compare a {a.manifest.kind!r} run with a {b.manifest.kind!r} run"
        )
    pairs = _pair(a, b)
    checks_a = {c["name"]: c for c in run_summary(a).get("checks", [])}
    checks_b = {c["name"]: c for c in run_summary(b).get("checks", [])}
    checks = [
        {
            "name": name,
            "a": checks_a.get(name, {}).get("verdict"),
            "b": checks_b.get(name, {}).get("verdict"),
            "a_finding": checks_a.get(name, {}).get("finding"),
            "b_finding": checks_b.get(name, {}).get("finding"),
        }
        for name in dict.fromkeys([*checks_a, *checks_b])
    ]
    groups: dict[str, Pairs] = {}
    for pair in pairs:
        first, second = pair[0].variant, pair[1].variant
        groups.setdefault(first if first == second else f"{first} → {second}", []).append(pair)
    return {
        "kind": a.manifest.kind,
        "a": {
            "directory": str(a.directory),
            "model": a.manifest.model.get("spec"),
            "n": len(a.records),
        },
        "b": {
            "directory": str(b.directory),
            "model": b.manifest.model.get("spec"),
            "n": len(b.records),
        },
        "n_paired": len(pairs),
        "checks": checks,
        "differences": {
            group: _group_differences(members, n_boot, seed) for group, members in groups.items()
        },
    }


def print_comparison(result: dict[str, Any], console: Console | None = None) -> None:
    """The verdict changes and the paired differences as terminal tables."""
    console = wide_console(console or Console())
    console.print(
        f"A: {result['a']['directory']} ({result['a']['model']}, {result['a']['n']} records)  "
        f"B: {result['b']['directory']} ({result['b']['model']}, {result['b']['n']} records)  "
        f"paired: {result['n_paired']}"
    )
    if result["checks"]:
        table = new_table(title="Checks: A → B")
        for column in ("check", "A", "B", "finding in B"):
            table.add_column(column)
        for c in result["checks"]:
            changed = c["a"] != c["b"]
            table.add_row(
                c["name"],
                str(c["a"]).upper(),
                f"{str(c['b']).upper()}{' (changed)' if changed else ''}",
                c["b_finding"] or "",
            )
        console.print(table)
    table = new_table(title="Paired differences B − A (95% paired bootstrap intervals)")
    for column in ("group", "metric", "n", "A", "B", "B − A", "95% interval"):
        table.add_column(column, no_wrap=True)
    for group, rows in result["differences"].items():
        for r in rows:
            table.add_row(
                group,
                r["metric"],
                str(r["n"]),
                f"{r['a']:.4f}",
                f"{r['b']:.4f}",
                f"{r['difference']:+.4f}",
                f"[{r['low']:+.4f}, {r['high']:+.4f}]",
            )
    console.print(table)
