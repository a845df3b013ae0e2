"""The ``judge`` audit kind: registered once, found by ``readout report`` and the runner."""

from __future__ import annotations

from readout_audit.judge.analysis import JudgeSummary
from readout_audit.judge.protocol import JudgeRecord
from readout_audit.judge.studies import judge_sections, summarise_judge
from readout_audit.kind import AuditKind, register_kind


def request_key(record: JudgeRecord) -> tuple[str, ...]:
    """A judge record's identity: its request id (one outcome per planned request)."""
    return (record.item_id,)


def prompt_tokens(record: JudgeRecord) -> int:
    """Tokens the judge read for a record (0 where a served judge reported none)."""
    return record.prompt_tokens or 0


JUDGE: AuditKind[JudgeRecord, JudgeSummary] = AuditKind(
    name="judge",
    title="judge robustness",
    record_type=JudgeRecord,
    summary_type=JudgeSummary,
    summarise=summarise_judge,
    sections=judge_sections,
    record_key=request_key,
    scored_tokens=prompt_tokens,
    frozen_requests=True,
)
register_kind(JUDGE)
