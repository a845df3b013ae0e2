"""The judge report's sections: the registered study's, then the summary's own tables."""

from __future__ import annotations

from readout_audit.judge.analysis import JudgeSummary, table_sections
from readout_audit.judge.protocol import JudgeRecord
from readout_audit.judge.studies._study import get_study
from readout_audit.log import Run
from readout_audit.report import Section


def judge_sections(run: Run[JudgeRecord], summary: JudgeSummary) -> list[Section]:
    """The judge report's sections, those with data."""
    found = summary.study_result
    section = None if found is None else get_study(found.study).section
    first = [] if found is None or section is None else [section(found)]
    return first + table_sections(run, summary)
