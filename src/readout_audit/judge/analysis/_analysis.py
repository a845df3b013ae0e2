"""A judge run's analysis from its records alone, re-runnable without any endpoint."""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.judge.analysis._checks import judge_checks
from readout_audit.judge.analysis._settings import JudgeAnalysisSettings
from readout_audit.judge.analysis._summary import JudgeSummary, judge_tables
from readout_audit.judge.protocol._record import JudgeRecord
from readout_audit.log._run import Run


def analyse_judge(
    records: Sequence[JudgeRecord], settings: JudgeAnalysisSettings | None = None
) -> JudgeSummary:
    """Gates, both test families and every descriptive table, with the checks first."""
    summary = judge_tables(records, settings or JudgeAnalysisSettings())
    return summary.model_copy(update={"checks": judge_checks(summary)})


def summarise_judge(run: Run[JudgeRecord]) -> JudgeSummary:
    """The analysis of a run directory: its JudgeRecords and its manifest's analysis settings."""
    records = run.records
    return analyse_judge(records, JudgeAnalysisSettings.from_config(run.manifest.config))
