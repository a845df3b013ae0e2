"""A recovery run's settings in one model, and the run as a stage of ``readout audit recover``."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit.kind import RunSettings, ScoreResult, StageRun
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.recover._audit import audit_recover, plan_items
from readout_audit.recover._setup import RecoverSetup
from readout_audit.recover._sources import RecoverSources


class RecoverRun(BaseModel):
    """What one recovery run reads (its splits) and how it scores and analyses them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sources: RecoverSources = Field(default_factory=RecoverSources)
    setup: RecoverSetup = Field(default_factory=RecoverSetup)


def recover_stage(run: RecoverRun, greedy_tokens: int) -> StageRun[ScoreResult]:
    """:func:`audit_recover` as a stage: the splits read now, planned before the weights load."""
    splits = run.sources.splits()

    def score(model: ScoringModel, out: Path, settings: RunSettings) -> ScoreResult:
        return audit_recover(
            model,
            splits,
            out,
            setup=run.setup,
            greedy_tokens=greedy_tokens,
            template_kwargs=settings.template_kwargs,
            **settings.loop_args(),
        )

    def preflight(codec: TextCodec, settings: RunSettings) -> None:
        plan_items(splits, run.setup, codec, settings.template_kwargs, greedy_tokens)

    return StageRun("recover", score, preflight)
