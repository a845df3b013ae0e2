"""The lm-eval audit's summary: lm-eval's accuracy beside what the readout audit says of it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit._exceptions import RunDirectoryError
from readout_audit._util import write_json_atomic
from readout_audit.lmeval._advice import Advice, changed_decisions, task_advice
from readout_audit.lmeval._checks import by_task, lm_eval_checks
from readout_audit.lmeval._doc import stem_in_context
from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.lmeval._reproduce import Reproduction, reproduction
from readout_audit.log import Interval, Run, Summary, read_run
from readout_audit.options import LadderRung, by_rung, variant_summary
from readout_audit.readout import MASS_FLOOR
from readout_audit.stats import bootstrap_ci, resampling_clusters

N_BOOT = 20_000


class RepairRow(BaseModel):
    """One repair's reading of a task's documents: acc and option mass under it."""

    model_config = ConfigDict(extra="forbid")

    n_docs: int
    acc: Interval | None
    median_mass: float | None
    share_below_floor: float | None
    n_changed: int = 0
    """Documents whose acc decision (the highest log-likelihood) the repair changes."""


class TaskAudit(BaseModel):
    """One task (or group): lm-eval's metrics and the readout audit of the same positions."""

    model_config = ConfigDict(extra="forbid")

    name: str
    group: str | None
    n_docs: int
    acc: Interval | None
    """lm-eval's acc from the full-option log-likelihoods, with a bootstrap interval."""
    acc_norm: Interval | None
    acc_by_option_mass: Interval | None
    """Accuracy of the option whose first token holds the most probability at the position."""
    median_mass: float | None
    share_below_floor: float | None
    """Documents whose options hold under half of the next-token probability."""
    n_mass_measured: int = 0
    """Documents whose option mass is read (their options' first tokens differ): the set the
    median and the share below the floor count, named beside them."""
    acc_above_floor: float | None
    acc_below_floor: float | None
    n_moved_whitespace: int
    """Documents whose context ended in whitespace that lm-eval moved onto the continuations."""
    n_unscored: int
    """Documents with a continuation whose boundary merges with the context (no lm-eval metric)."""
    n_shared_first_tokens: int
    """Documents whose continuations share their first token: no option mass or option-mass
    accuracy is read for them (a shared token's probability separates nothing)."""
    repairs: dict[str, RepairRow]
    """``stem`` and ``whitespace_kept``, where the run read them."""
    n_stem_in_context: int = 0
    """Documents whose context already ends in the run's ``--stem``: not read with it again."""
    advice: list[Advice] = []
    """What to change in the task, ranked (:func:`task_advice`)."""
    reproduction: Reproduction | None = None


class LMEvalSummary(Summary):
    """Per task and per group: lm-eval's accuracy, the readout's mass, and reproduction."""

    kind: str = "lm-eval"
    tasks: list[TaskAudit]
    groups: list[TaskAudit]
    variants: dict[str, LadderRung]


def _interval(values: Sequence[float], clusters: Sequence[str]) -> Interval | None:
    if not values:
        return None
    boot = bootstrap_ci(
        np.asarray(values, dtype=float),
        n_boot=N_BOOT,
        seed=0,
        clusters=resampling_clusters(clusters),
    )
    return Interval.from_bootstrap(boot, clusters, n_boot=N_BOOT)


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _pick_correct(record: LMEvalRecord, readout: str) -> float | None:
    pick = record.readout_choices.get(readout)
    if pick is None or not record.gold:
        return None
    return float(pick in record.gold)


def task_audit(
    name: str,
    group: str | None,
    records: Sequence[LMEvalRecord],
    clusters_by: str,
    config: Mapping[str, Any] | None = None,
) -> TaskAudit:
    """One task's (or group's) row; ``clusters_by`` is ``doc`` or ``task`` for the bootstrap.

    ``config`` is the run's configuration (its ``stem`` and lm-eval settings), for the advice.
    """
    config = config or {}
    stem = config.get("stem")
    original = [r for r in records if r.variant == "production"]
    mass = _distinct_masses(original)
    median_mass, share_below = _mass_reading(mass)
    above, below = _acc_by_floor(original)
    repairs = {
        v: row
        for v in ("stem", "whitespace_kept")
        if (row := _repair(records, original, v, clusters_by)) is not None
    }
    n_stem_in_context = (
        0 if stem is None else sum(stem_in_context(r.rendered_tail, stem) for r in original)
    )
    source = config.get("source") or {}
    return TaskAudit(
        name=name,
        group=group,
        n_docs=len(original),
        acc=_metric(original, "acc", clusters_by),
        acc_norm=_metric(original, "acc_norm", clusters_by),
        acc_by_option_mass=_acc_by_option_mass(original, clusters_by),
        median_mass=median_mass,
        share_below_floor=share_below,
        n_mass_measured=len(mass),
        acc_above_floor=above,
        acc_below_floor=below,
        n_moved_whitespace=sum(bool(r.moved_whitespace) for r in original),
        n_unscored=sum(None in r.option_logprobs for r in original),
        n_shared_first_tokens=sum(r.distinct_first_tokens is False for r in original),
        repairs=repairs,
        n_stem_in_context=n_stem_in_context,
        advice=task_advice(
            original,
            median_mass,
            share_below,
            repairs,
            stem=stem,
            n_stem_in_context=n_stem_in_context,
            settings=source.get("tasks"),
        ),
        reproduction=reproduction(original),
    )


def _cluster(record: LMEvalRecord, clusters_by: str) -> str:
    """The bootstrap cluster of a record: its document, or its task (a group's rows)."""
    return record.item_id if clusters_by == "doc" else record.task


def _metric(rows: Sequence[LMEvalRecord], key: str, clusters_by: str) -> Interval | None:
    """lm-eval's metric ``key`` over the rows that have it, with its bootstrap interval."""
    kept = [r for r in rows if key in r.lm_eval_metrics]
    return _interval(
        [r.lm_eval_metrics[key] for r in kept], [_cluster(r, clusters_by) for r in kept]
    )


def _distinct_masses(rows: Sequence[LMEvalRecord]) -> list[float]:
    """The option masses of the rows whose options' first tokens differ."""
    # a first token the options share (lm-eval's "\nA" after a chat template) holds mass
    # that separates nothing: such documents have no option mass here
    return [r.option_mass for r in rows if r.option_mass is not None and r.distinct_first_tokens]


def _mass_reading(masses: Sequence[float]) -> tuple[float | None, float | None]:
    """The median option mass and the share below the floor; neither without a mass."""
    if not masses:
        return None, None
    return float(np.median(masses)), float(np.mean([m < MASS_FLOOR for m in masses]))


def _acc_by_floor(original: Sequence[LMEvalRecord]) -> tuple[float | None, float | None]:
    """lm-eval's acc on the measured documents at or above the mass floor, and below it."""
    measured = [r for r in original if r.distinct_first_tokens and r.option_mass is not None]
    above = [
        r.lm_eval_metrics["acc"]
        for r in measured
        if "acc" in r.lm_eval_metrics and (r.option_mass or 0.0) >= MASS_FLOOR
    ]
    below = [
        r.lm_eval_metrics["acc"]
        for r in measured
        if "acc" in r.lm_eval_metrics and (r.option_mass or 0.0) < MASS_FLOOR
    ]
    return _mean(above), _mean(below)


def _acc_by_option_mass(original: Sequence[LMEvalRecord], clusters_by: str) -> Interval | None:
    """Accuracy of the option whose first token is most probable, where first tokens differ."""
    by_mass = [
        (r, c)
        for r in original
        if r.distinct_first_tokens and (c := _pick_correct(r, "first_token")) is not None
    ]
    return _interval([c for _, c in by_mass], [_cluster(r, clusters_by) for r, _ in by_mass])


def _repair(
    records: Sequence[LMEvalRecord],
    original: Sequence[LMEvalRecord],
    variant: str,
    clusters_by: str,
) -> RepairRow | None:
    """The repair ``variant``'s reading of the task, if the run read it."""
    rows = [r for r in records if r.variant == variant]
    if not rows:
        return None
    median_mass, share_below = _mass_reading(_distinct_masses(rows))
    return RepairRow(
        n_docs=len(rows),
        acc=_metric(rows, "acc", clusters_by),
        median_mass=median_mass,
        share_below_floor=share_below,
        n_changed=changed_decisions(original, rows),
    )


def summarise_lm_eval(run: Run[LMEvalRecord]) -> LMEvalSummary:
    """Per task, per group (clustered by task) and per rung, from the records alone."""
    records, config = run.records, run.manifest.config
    tasks = [
        task_audit(name, found[0].group, found, "doc", config)
        for name, found in by_task(records).items()
    ]
    grouped: dict[str, list[LMEvalRecord]] = {}
    for record in records:
        if record.group is not None:
            grouped.setdefault(record.group, []).append(record)
    return LMEvalSummary(
        n_records=len(records),
        n_items=len({r.item_id for r in records}),
        tasks=tasks,
        groups=[task_audit(name, None, found, "task", config) for name, found in grouped.items()],
        variants={v: LadderRung(**variant_summary(group)) for v, group in by_rung(records).items()},
    )


def _row_view(row: TaskAudit, verdicts: Mapping[str, str]) -> dict[str, Any]:
    def estimate(value: Interval | None) -> float | None:
        return None if value is None else value.estimate

    return {
        "acc": estimate(row.acc),
        "acc_low": None if row.acc is None else row.acc.low,
        "acc_high": None if row.acc is None else row.acc.high,
        "acc_norm": estimate(row.acc_norm),
        "n_docs": row.n_docs,
        "readout_audit": {
            "median_option_mass": row.median_mass,
            "share_below_floor": row.share_below_floor,
            "acc_above_floor": row.acc_above_floor,
            "acc_below_floor": row.acc_below_floor,
            "acc_by_option_mass": estimate(row.acc_by_option_mass),
            "moved_whitespace": row.n_moved_whitespace,
            "shared_first_tokens": row.n_shared_first_tokens,
            "repairs": {
                name: {"acc": estimate(r.acc), "median_option_mass": r.median_mass}
                for name, r in row.repairs.items()
            },
            "reproduced": None if row.reproduction is None else row.reproduction.reproduced,
            "checks": {
                name.split(" ", 1)[0]: verdict
                for name, verdict in verdicts.items()
                if name.endswith(f" {row.name}")
            },
        },
    }


def results_view(summary: LMEvalSummary) -> dict[str, Any]:
    """A compact JSON for beside lm-eval's results file: its metrics and the audit's, per task."""
    verdicts = {check.name: check.verdict for check in summary.checks}
    return {
        "results": {row.name: _row_view(row, verdicts) for row in summary.tasks},
        "groups": {row.name: _row_view(row, verdicts) for row in summary.groups},
    }


def write_results_view(run_dir: str | Path, path: str | Path) -> None:
    """Write :func:`results_view` of the run ``run_dir`` to ``path`` (atomically)."""
    run = read_run(run_dir)
    if run.manifest.kind != "lm-eval":
        raise RunDirectoryError(f"{run_dir} is a {run.manifest.kind} run, not an lm-eval audit")
    typed = run.of(LMEvalRecord)
    summary = summarise_lm_eval(typed).model_copy(update={"checks": lm_eval_checks(typed.records)})
    write_json_atomic(Path(path), results_view(summary) | {"run": str(run_dir)})
