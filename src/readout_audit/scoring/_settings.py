"""The score kind's settings, which are its stage: the items, and how far each is read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import JsonValue

from readout_audit.data import Item
from readout_audit.kind import (
    GreedyTokens,
    KindSettings,
    RunOut,
    RunSettings,
    ScoreResult,
    run_kind,
)
from readout_audit.log import RunDirectory
from readout_audit.model import DEFAULT_BATCH_SIZE, ScoringModel, TextCodec, check_model
from readout_audit.progress import ProgressMode, as_mode
from readout_audit.readout import DEFAULT_GREEDY_TOKENS, DEFAULT_TOP_K
from readout_audit.scoring._audit import (
    SCORE,
    check_rendered,
    prepare,
    score_job,
    scoring_config,
)


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
        """:func:`audit_score` of these settings."""
        return audit_score(model, self, out, run)


def audit_score(
    model: ScoringModel, settings: ScoreSettings, out: RunOut, run: RunSettings | None = None
) -> ScoreResult:
    """Score every item into the run directory ``out``, resuming it if it exists.

    All items are rendered, encoded and checked against the model's window before any is
    scored, so bad input stops the run before it writes anything.
    """
    check_model(model)
    run = run or RunSettings()
    greedy_tokens, kwargs = settings.greedy_tokens, dict(run.template_kwargs)
    jobs = [
        score_job(prepare(item, model.codec, kwargs, greedy_tokens), run.top_k, greedy_tokens)
        for item in settings.items
    ]
    config = scoring_config(settings.items, run.top_k, greedy_tokens, kwargs)
    return run_kind(SCORE, model, out, config, lambda _: jobs, run)


def score(
    model: ScoringModel,
    items: Sequence[Item],
    out: RunOut,
    *,
    top_k: int = DEFAULT_TOP_K,
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    template_kwargs: Mapping[str, JsonValue] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool | ProgressMode = False,
    overwrite: bool = False,
) -> ScoreResult:
    """:func:`audit_score` of items in memory, its settings given by keyword (a notebook's).

    ``progress``: True for a bar on a terminal and plain lines elsewhere, or a mode.
    """
    settings = ScoreSettings(items=tuple(items), greedy_tokens=greedy_tokens)
    run = RunSettings(
        top_k=top_k,
        template_kwargs=dict(template_kwargs or {}),
        batch_size=batch_size,
        progress=as_mode(progress),
        overwrite=overwrite,
    )
    return audit_score(model, settings, out, run)
