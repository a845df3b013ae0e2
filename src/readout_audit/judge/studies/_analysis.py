"""A judge run's analysis from its records alone, re-runnable without any endpoint.

The summary's own tables, then the registered study's analysis of a study run.
"""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.judge.analysis import (
    CHRONOLOGY,
    Chronology,
    JudgeAnalysisSettings,
    JudgeSummary,
    cover,
    judge_checks,
    judge_tables,
    kept_plan,
    set_apart,
)
from readout_audit.judge.protocol import JudgeRecord
from readout_audit.judge.studies._study import get_study
from readout_audit.log import Run


def analyse_judge(
    records: Sequence[JudgeRecord],
    settings: JudgeAnalysisSettings | None = None,
    planned: Sequence[JudgeRecord] | None = None,
    chronology: Chronology | None = None,
) -> JudgeSummary:
    """Gates, both test families and every descriptive table, with the checks first.

    ``planned``: the run's planned requests (as records of unknown outcome); each one without a
    record is analysed as unknown, so every denominator is the planned count, and a check
    compares the planned and recorded sets, and the plan with the inventory's counts. None:
    the records are taken as the plan. A record sent again under a protocol amendment is
    analysed as unknown too, and reported.
    ``chronology``: a served stream's balance over its send-time quartiles, checked (a study
    has none of the primary cells it counts: a study run's is ignored).
    """
    n_records = len(records)
    records, amended = set_apart(records)
    settings = settings or JudgeAnalysisSettings()
    coverage = None
    if planned is not None:
        records, coverage = cover(records, planned, settings.inventory_counts)
    if settings.study is not None:
        chronology = None
    summary = judge_tables(records, settings)
    if settings.study is not None and settings.search_stage is None:
        analyse = get_study(settings.study).analyse
        if analyse is not None:
            found = analyse(records, settings, summary.family)
            summary = summary.model_copy(update={"study_result": found})
    # the records on disk, not the unknown ones standing in for the missing
    update = {
        "coverage": coverage,
        "amended": amended,
        "n_records": n_records,
        "chronology": chronology,
    }
    summary = summary.model_copy(update=update)
    return summary.model_copy(update={"checks": judge_checks(summary)})


def summarise_judge(run: Run[JudgeRecord]) -> JudgeSummary:
    """The analysis of a run directory: its records against its plan, its manifest's settings."""
    planned = kept_plan(run.artifacts)
    settings = JudgeAnalysisSettings.from_config(run.manifest.config)
    balance = run.artifacts.get(CHRONOLOGY)
    chronology = None if balance is None else Chronology.model_validate(balance)
    return analyse_judge(run.records, settings, planned, chronology)
