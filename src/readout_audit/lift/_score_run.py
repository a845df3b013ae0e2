"""``readout lift score`` as a library call: a cut file and forecast files in, a lift run out.

Everything that can be checked without the scorer is, before it opens: the forecasts against
the cuts, the setting contrasts, the SFT folder against the cuts and the prompts' budgets, and
every prompt against the scorer's window (with its tokenizer alone).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from readout_audit._exceptions import InputError
from readout_audit._util import INT_MAX, Seed, option_hint
from readout_audit.kind import ScoreResult, claim
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._cut import Cut
from readout_audit.lift._cutfile import read_cuts
from readout_audit.lift._effort import TokenCounts
from readout_audit.lift._forecasts import Forecast, read_forecasts
from readout_audit.lift._kind import LIFT
from readout_audit.lift._score import (
    Forecasts,
    check_hardest_by,
    cut_jobs,
    forecast_settings,
    score_lift,
    setting_contrasts,
)
from readout_audit.lift._sft_scorer import check_sft_setup, rung_cuts
from readout_audit.lift.sft import open_sft_scorer, read_sft
from readout_audit.model import DEFAULT_BATCH_SIZE, ScoringModel, TextCodec
from readout_audit.progress import ProgressMode


class LiftScoreRun(BaseModel):
    """What one lift run reads, where it is kept and how it scores (the scorer is chosen apart)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    cuts: Path = Field(json_schema_extra=option_hint(path="file"))
    """The cut file (from readout lift cut)."""
    forecasts: tuple[Path, ...] = Field(
        default=(), json_schema_extra=option_hint(path="file", repeat=True)
    )
    """Forecast files (from readout lift predict, or cut_id/setting/z lines); repeatable."""
    setting: str | None = None
    """The setting of forecast lines that name none."""
    out: Path
    """The run directory; a run of the same configuration there is resumed."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N cuts of the cut file (and only their forecasts)."""
    multipliers: tuple[Annotated[int, Field(ge=1, le=INT_MAX, strict=True)], ...] = Field(
        default=(1, 3), min_length=1
    )
    """Recent-context controls as multiples of B = |Y| + 40 (equation cuts)."""
    oracle: bool = True
    """Score the oracle: the true suffix in the scaffold (--no-oracle skips it)."""
    bos: bool = False
    """Open every scorer prompt with the tokenizer's BOS token (needed by servers that misread
    echoed log-probs of prompts without it, such as llama-cpp-python on SmolLM2)."""
    toy: bool = True
    """Run appendix A's toy check on the scorer (--no-toy skips it)."""
    seed: Seed = 0
    """Seeds the report's example cuts."""
    contrasts: tuple[tuple[str, str], ...] | None = Field(
        default=None, json_schema_extra=option_hint("--contrast", metavar="A,B", repeat=True)
    )
    """A setting contrast A − B (repeatable), e.g. within each model family; default: each
    setting against the next, in the order the forecasts were given."""
    sft: Path | None = Field(default=None, json_schema_extra=option_hint(path="dir"))
    """A finished readout lift sft directory: its fine-tuned scorer reads the SFT rung (the
    recent-context prompt) on the cuts of its held-out papers."""
    hardest_by: str | None = Field(default=None, json_schema_extra=option_hint(metavar="SETTING"))
    """Section 9's heuristic: compare the settings on the fifth of cuts where this setting's
    lift is lowest (default: the last setting given)."""
    batch_size: int = Field(default=DEFAULT_BATCH_SIZE, ge=1, le=INT_MAX, strict=True)
    """Scored positions per model call."""
    progress: ProgressMode = "off"
    """``off``: nothing on stderr; else a bar or a line at least every 10 s."""
    overwrite: bool = False
    """Delete the run already in ``out`` and start it again (else it is resumed)."""

    @field_validator("multipliers", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return tuple(int(m) for m in value.split(","))
            except ValueError:
                raise ValueError(f"{value!r} is not a comma-separated list of integers") from None
        return value

    @field_validator("contrasts", mode="before")
    @classmethod
    def _pairs(cls, value: Any) -> Any:
        if isinstance(value, list | tuple) and not value:
            return None
        if isinstance(value, list | tuple):
            return tuple(_pair(p) if isinstance(p, str) else p for p in value)
        return value

    def setup(self) -> LiftSetup:
        """The conditions' budgets."""
        return LiftSetup(multipliers=self.multipliers, oracle=self.oracle, bos=self.bos)


def _pair(text: str) -> tuple[str, str]:
    """``A,B`` as the pair (A, B)."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"{text!r} is not two settings A,B")
    return parts[0], parts[1]


class ScorerChoice(Protocol):
    """A scorer spec and how to open it (the CLI's model choice), with its placement."""

    @property
    def device(self) -> str: ...

    @property
    def dtype(self) -> str: ...

    @property
    def allow_download(self) -> bool: ...

    def open(self, preflight: Callable[[TextCodec], None] | None = None) -> ScoringModel: ...


def forecasts_by_cut(forecasts: Iterable[Forecast]) -> Forecasts:
    """Cut id → setting → Z, refusing a (cut, setting) that two files both give."""
    found: dict[str, dict[str, str]] = {}
    for f in forecasts:
        per_cut = found.setdefault(f.cut_id, {})
        if f.setting in per_cut:
            raise InputError(
                f"setting {f.setting!r} has two forecasts for this cut (two --forecasts files?)",
                item_id=f.cut_id,
                field="setting",
            )
        per_cut[f.setting] = f.z
    return found


def token_counts(forecasts: Iterable[Forecast]) -> TokenCounts:
    """Cut id → setting → the predictor's output and reasoning tokens, where reported."""
    found: dict[str, dict[str, dict[str, int | None]]] = {}
    for f in forecasts:
        if f.n_tokens is not None or f.reasoning_tokens is not None:
            counts = {"output": f.n_tokens, "reasoning": f.reasoning_tokens}
            found.setdefault(f.cut_id, {})[f.setting] = counts
    return found


@dataclass(frozen=True)
class ScoreInputs:
    """A lift run's inputs read and checked: its cuts, their forecasts and token counts."""

    cuts: list[Cut]
    forecasts: Forecasts
    counts: TokenCounts


def read_score_inputs(run: LiftScoreRun) -> ScoreInputs:
    """The cut file's first ``limit`` cuts with their forecasts, checked against them."""
    every = read_cuts(run.cuts)
    found = [f for p in run.forecasts for f in read_forecasts(p, setting=run.setting, cuts=every)]
    cuts = every[: run.limit]
    kept = {cut.id for cut in cuts}
    forecasts = forecasts_by_cut(f for f in found if f.cut_id in kept)
    settings = forecast_settings(forecasts)
    setting_contrasts(settings, run.contrasts)
    check_hardest_by(settings, run.hardest_by)
    return ScoreInputs(cuts, forecasts, token_counts(f for f in found if f.cut_id in kept))


def check_sft_folder(folder: Path, cuts: Sequence[Cut], setup: LiftSetup) -> None:
    """Refuse an SFT folder that is unfinished, damaged, or not of these cuts and budgets."""
    trained = read_sft(folder)
    plan = trained.plan
    rung_cuts(
        cuts, plan.split.held_out, plan.examples, plan.held_out_targets, plan.held_out_overlap
    )
    check_sft_setup(plan.setup, setup)


def score_cut_file(run: LiftScoreRun, scorer: ScorerChoice) -> ScoreResult:
    """Check the inputs and ``run.out``, open the scorer (and the SFT's), score every cut.

    ``run.out``'s run directory is opened (locked) before the scorer loads and closed at the
    end, whatever happens, as :func:`~readout_audit.kind.run_stage` does.
    """
    with claim(run.out, LIFT) as directory:
        setup = run.setup()
        inputs = read_score_inputs(run)
        if run.sft is not None:
            check_sft_folder(run.sft, inputs.cuts, setup)

        def preflight(codec: TextCodec) -> None:
            for cut in inputs.cuts:
                cut_jobs(cut, inputs.forecasts.get(cut.id, {}), setup, codec)

        model = scorer.open(preflight)
        tuned = None
        if run.sft is not None:
            tuned = open_sft_scorer(
                run.sft,
                device=scorer.device,
                dtype=scorer.dtype,
                allow_download=scorer.allow_download,
            )
        return score_lift(
            model, inputs.cuts, directory, forecasts=inputs.forecasts, setup=setup,
            batch_size=run.batch_size, progress=run.progress, toy=run.toy, seed=run.seed,
            contrasts=run.contrasts, sft=tuned, token_counts=inputs.counts,
            hardest_by=run.hardest_by, overwrite=run.overwrite,
        )  # fmt: skip
