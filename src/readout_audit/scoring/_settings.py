"""The score kind's settings, which are its stage: the items, and how far each is read."""

from __future__ import annotations

from readout_audit.data import Item
from readout_audit.kind import GreedyTokens, KindSettings, RunSettings, ScoreResult
from readout_audit.log import RunDirectory
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.readout import DEFAULT_GREEDY_TOKENS
from readout_audit.scoring._audit import SCORE, check_rendered, score


class ScoreSettings(KindSettings):
    """A scoring run: every item's declared options read at its scored position.

    ``run_stage(ScoreSettings(items=load_items("items.jsonl")), "runs/score")``.
    """

    kind = SCORE

    items: tuple[Item, ...]
    """The items, each read once (rendered through the chat template unless raw)."""
    greedy_tokens: GreedyTokens = DEFAULT_GREEDY_TOKENS
    """Length of the greedy continuation read at each scored position."""

    def preflight(self, codec: TextCodec, run: RunSettings) -> None:
        """Every item rendered and checked against the context window."""
        check_rendered(self.items, codec, run, self.greedy_tokens)

    def run(self, model: ScoringModel, out: RunDirectory, run: RunSettings) -> ScoreResult:
        """:func:`score` on the items."""
        return score(
            model,
            self.items,
            out,
            greedy_tokens=self.greedy_tokens,
            template_kwargs=run.template_kwargs,
            **run.loop_args(),
        )
