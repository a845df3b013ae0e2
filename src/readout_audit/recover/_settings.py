"""A recovery run's settings in one model, which is its stage: splits, setup, preflight, run."""

from __future__ import annotations

from functools import cached_property

from pydantic import Field, InstanceOf

from readout_audit._util import option_hint
from readout_audit.kind import GreedyTokens, KindSettings, RunSettings, ScoreResult
from readout_audit.log import RunDirectory
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.recover._audit import RecoverSplits, audit_recover, plan_items
from readout_audit.recover._kind import RECOVER
from readout_audit.recover._setup import RecoverSetup
from readout_audit.recover._sources import RecoverSources


class RecoverRun(KindSettings):
    """What one recovery run reads (its splits) and how it scores and analyses them."""

    kind = RECOVER

    sources: RecoverSources = Field(default_factory=RecoverSources)
    setup: RecoverSetup = Field(default_factory=RecoverSetup)
    splits: InstanceOf[RecoverSplits] | None = Field(
        default=None, json_schema_extra=option_hint(skip=True)
    )
    """The splits themselves, in Python, instead of those the sources name."""
    greedy_tokens: GreedyTokens = 0
    """Greedy tokens read at each scored position (none: the scores are sequence
    likelihoods)."""

    @cached_property
    def read_splits(self) -> RecoverSplits:
        """The splits given, or those the sources name, read once."""
        return self.splits if self.splits is not None else self.sources.splits()

    def read_inputs(self) -> None:
        """The splits, read now."""
        self.read_splits  # noqa: B018  (a cached read)

    def preflight(self, codec: TextCodec, run: RunSettings) -> None:
        """Every split planned (rendered, checked against the window) before the weights load."""
        plan_items(self.read_splits, self.setup, codec, run.template_kwargs, self.greedy_tokens)

    def run(self, model: ScoringModel, out: RunDirectory, run: RunSettings) -> ScoreResult:
        """:func:`audit_recover` of these settings."""
        return audit_recover(model, self, out, run)
