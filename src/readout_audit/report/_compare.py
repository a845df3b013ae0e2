"""Two runs of the same kind over the same items: check changes and paired differences."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit._exceptions import RunDirectoryError
from readout_audit.kind import get_kind
from readout_audit.log import Interval, Run, ScoreRecord, Verdict
from readout_audit.report._blocks import Section, TableBlock, fmt, interval
from readout_audit.report._report import run_summary
from readout_audit.stats import paired_bootstrap, resampling_clusters

Pairs = Sequence[tuple[ScoreRecord, ScoreRecord]]
PairedMetrics = Callable[[Pairs, int, int], list["PairedDifference"]]


class PairedDifference(BaseModel):
    """A metric in run A and run B on the same items, and B − A with its paired interval."""

    model_config = ConfigDict(extra="forbid")

    metric: str
    a: float
    b: float
    difference: Interval


class CheckChange(BaseModel):
    """A check's verdict in each run."""

    model_config = ConfigDict(extra="forbid")

    name: str
    a: Verdict | None
    b: Verdict | None
    a_finding: str | None
    b_finding: str | None


class RunRef(BaseModel):
    """Which run a side of the comparison is."""

    model_config = ConfigDict(extra="forbid")

    directory: str
    model: str | None
    n: int


class Comparison(BaseModel):
    """``readout compare``: verdict changes and paired differences B − A per record group."""

    model_config = ConfigDict(extra="forbid")

    kind: str
    a: RunRef
    b: RunRef
    n_paired: int
    checks: list[CheckChange]
    differences: dict[str, list[PairedDifference]]


def paired_difference(
    metric: str, estimates: tuple[float, float], replicates: np.ndarray, clusters: Sequence[str]
) -> PairedDifference:
    """B − A from the two runs' estimates and the replicates of the difference."""
    resampled = resampling_clusters(clusters)
    return PairedDifference(
        metric=metric,
        a=estimates[0],
        b=estimates[1],
        difference=Interval.from_replicates(
            estimates[1] - estimates[0],
            replicates,
            method=f"paired {'cluster' if resampled else 'item'} bootstrap percentile",
            n=len(clusters),
            n_clusters=len(set(clusters)),
        ),
    )


def mean_difference(
    name: str,
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[str],
    n_boot: int,
    seed: int,
) -> PairedDifference:
    """The mean of per-item values in run A and B, and B − A with its paired interval."""
    boot = paired_bootstrap(
        {"A": np.asarray(a, float), "B": np.asarray(b, float)},
        statistic="mean",
        clusters=resampling_clusters(clusters),
        n_boot=n_boot,
        seed=seed,
    )
    first, second = boot.readouts["A"], boot.readouts["B"]
    return paired_difference(
        name, (first.estimate, second.estimate), second.replicates - first.replicates, clusters
    )


def _per_record_metrics(pairs: Pairs) -> dict[str, Callable[[ScoreRecord], float | None]]:
    metrics: dict[str, Callable[[ScoreRecord], float | None]] = {
        "option mass": lambda r: r.option_mass,
        "argmax in the declared set": lambda r: float(r.argmax_is_option),
    }
    if any(a.choice_correct() is not None for a, _ in pairs):
        metrics["accuracy (log-likelihood choice)"] = lambda r: (
            None if (c := r.choice_correct()) is None else float(c)
        )
    return metrics


def _group_differences(
    pairs: Pairs,
    extra: Callable[[Pairs, int, int], list[PairedDifference]] | None,
    n_boot: int,
    seed: int,
) -> list[PairedDifference]:
    rows = []
    generic = _per_record_metrics(pairs) if isinstance(pairs[0][0], ScoreRecord) else {}
    for name, metric in generic.items():
        kept = [(metric(a), metric(b), a.cluster) for a, b in pairs]
        kept = [(x, y, c) for x, y, c in kept if x is not None and y is not None]
        if kept:
            xs, ys, cs = zip(*kept, strict=True)
            rows.append(mean_difference(name, xs, ys, cs, n_boot, seed))
    return rows + (extra(pairs, n_boot, seed) if extra is not None else [])


def _pair(a: Run[Any], b: Run[Any]) -> list[tuple[ScoreRecord, ScoreRecord]]:
    """Pair records with the same key (the kind's).

    Failing that, when each run scored a single variant (two prompt specs, say), pair records
    whose keys agree but for the variant (the same item, in the same split where a kind's key
    has one).
    """
    key = get_kind(a.manifest.kind).record_key
    by_b = {key(r): r for r in b.records}
    pairs = [(r, by_b[key(r)]) for r in a.records if key(r) in by_b]
    single = len({r.variant for r in a.records}) == 1 == len({r.variant for r in b.records})
    if not pairs and single:

        def unvaried(record: ScoreRecord) -> tuple[str, ...]:
            return key(record.model_copy(update={"variant": ""}))

        by_item = {unvaried(r): r for r in b.records}
        pairs = [(r, by_item[unvaried(r)]) for r in a.records if unvaried(r) in by_item]
    if not pairs:
        raise RunDirectoryError(f"{a.directory} and {b.directory} share no scored items")
    return pairs


def _ref(run: Run[Any]) -> RunRef:
    return RunRef(
        directory=str(run.directory), model=run.manifest.model.get("spec"), n=len(run.records)
    )


def compare_runs(a: Run[Any], b: Run[Any], *, n_boot: int = 20_000, seed: int = 0) -> Comparison:
    """Per-check verdict changes and paired differences (B − A) on the items both runs scored.

    Records are paired by the kind's record key, or by item id when each run holds a single
    variant; intervals are 95% paired bootstrap intervals over the items' clusters.
    """
    if a.manifest.kind != b.manifest.kind:
        raise RunDirectoryError(
            f"cannot compare a {a.manifest.kind!r} run with a {b.manifest.kind!r} run"
        )
    kind = get_kind(a.manifest.kind)
    pairs = _pair(a.of(kind.record_type), b.of(kind.record_type))
    checks_a = {c.name: c for c in run_summary(a).checks}
    checks_b = {c.name: c for c in run_summary(b).checks}
    checks = [
        CheckChange(
            name=name,
            a=checks_a[name].verdict if name in checks_a else None,
            b=checks_b[name].verdict if name in checks_b else None,
            a_finding=checks_a[name].finding if name in checks_a else None,
            b_finding=checks_b[name].finding if name in checks_b else None,
        )
        for name in dict.fromkeys([*checks_a, *checks_b])
    ]
    groups: dict[str, list[tuple[ScoreRecord, ScoreRecord]]] = {}
    for pair in pairs:
        first, second = pair[0].variant, pair[1].variant
        groups.setdefault(first if first == second else f"{first} → {second}", []).append(pair)
    return Comparison(
        kind=a.manifest.kind,
        a=_ref(a),
        b=_ref(b),
        n_paired=len(pairs),
        checks=checks,
        differences={
            group: _group_differences(members, kind.paired_metrics, n_boot, seed)
            for group, members in groups.items()
        },
    )


def comparison_sections(result: Comparison) -> list[Section]:
    """The comparison as report sections: who is A and B, verdict changes, paired differences."""
    runs = TableBlock(
        f"Runs ({result.n_paired} paired records)",
        ["run", "directory", "model", "records"],
        [
            [side, ref.directory, str(ref.model), str(ref.n)]
            for side, ref in (("A", result.a), ("B", result.b))
        ],
    )
    blocks: list[Any] = [runs]
    if result.checks:
        blocks.append(
            TableBlock(
                "Checks: A → B",
                ["check", "A", "B", "finding in B"],
                [
                    [
                        c.name,
                        str(c.a).upper(),
                        f"{str(c.b).upper()}{' (changed)' if c.a != c.b else ''}",
                        c.b_finding or "",
                    ]
                    for c in result.checks
                ],
                wrap=("finding in B",),
            )
        )
    blocks.append(
        TableBlock(
            "Paired differences B − A (95% paired bootstrap intervals)",
            ["group", "metric", "n", "A", "B", "B − A", "95% interval"],
            [
                [
                    group,
                    r.metric,
                    str(r.difference.n),
                    fmt(r.a),
                    fmt(r.b),
                    f"{r.difference.estimate:+.4f}",
                    interval(r.difference, signed=True),
                ]
                for group, rows in result.differences.items()
                for r in rows
            ],
        )
    )
    return [Section("Comparison", blocks)]
