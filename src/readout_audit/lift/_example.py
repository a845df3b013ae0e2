"""One cut with every moving part exposed (seed 001, appendix C), rebuilt from a run's files.

The predictor prompt, the true suffix and what is scored, each forecast, each condition's
scorer prompt and its clipLL_2 against the empty scaffold and the same-budget recent context.
Prompts are rebuilt from the cut and the run's setup and checked against the hashes the
records hold, so what is shown is what was scored.
"""

from __future__ import annotations

from readout_audit._exceptions import InputError
from readout_audit.lift._conditions import CONTEXT, EMPTY, SFT, LiftSetup, conditions, target_text
from readout_audit.lift._cut import Cut, sha256_text
from readout_audit.lift._lift_stats import FrozenRow
from readout_audit.lift._predict import predictor_prompt
from readout_audit.lift._record import LiftRecord
from readout_audit.lift._rules import HEADLINE, score_tokens
from readout_audit.lift._summary import condition_rank, versus
from readout_audit.log import Run


class ConditionDetail(FrozenRow):
    """One condition of the cut: its scorer prompt and scores."""

    condition: str
    prompt: str
    clip2: float
    raw: float
    vs_empty: float | None
    vs_context: float | None


class ExampleDetail(FrozenRow):
    """Appendix C's expanded example."""

    cut_id: str
    paper: str
    predictor_prompt: str
    target: str
    scored_target: str
    """The target as scored (an equation's closing delimiter after it)."""
    forecasts: dict[str, str]
    conditions: list[ConditionDetail]


SHOWN = 1500
"""Characters of a long prompt shown on each side of the omitted middle (unless shown whole)."""


def example_detail(run: Run[LiftRecord], cut_id: str | None = None) -> ExampleDetail:
    """A lift run's cut ``cut_id`` (default: its first), each prompt checked against its record."""
    cuts = {c["id"]: c for c in run.artifacts.get("cuts", [])}
    if not cuts:
        raise InputError("holds no cuts: not a lift run", source=str(run.directory))
    cut_id = next(iter(cuts)) if cut_id is None else cut_id
    if cut_id not in cuts:
        raise InputError("is not a cut of this run", item_id=cut_id, field="cut")
    cut = Cut.model_validate(cuts[cut_id])
    forecasts = dict(run.artifacts.get("forecasts", {}).get(cut_id, {}))
    setup = LiftSetup.from_config(run.manifest.config)
    prompts = {c.name: c.prompt for c in conditions(cut, forecasts, setup)}
    prompts[SFT] = prompts[CONTEXT]
    records = {r.variant: r for r in run.records if r.item_id == cut_id}
    for name, record in records.items():
        if name not in prompts or sha256_text(prompts[name]) != record.prompt_sha256:
            raise InputError(
                f"condition {name!r}: its prompt cannot be rebuilt from the run's cut and setup",
                item_id=cut_id,
                field="prompt_sha256",
            )
    clip = {n: score_tokens(r.target_logprobs, HEADLINE).score for n, r in records.items()}

    return ExampleDetail(
        cut_id=cut_id,
        paper=cut.paper,
        predictor_prompt=predictor_prompt(cut),
        target=cut.target,
        scored_target=target_text(cut, setup),
        forecasts=forecasts,
        conditions=[
            ConditionDetail(
                condition=name,
                prompt=prompts[name],
                clip2=clip[name],
                raw=score_tokens(records[name].target_logprobs, "raw").score,
                vs_empty=versus(clip, name, EMPTY),
                vs_context=versus(clip, name, CONTEXT),
            )
            for name in sorted(records, key=condition_rank)
        ],
    )


def elided(text: str, full: bool) -> str:
    """The text, or its first and last ``SHOWN`` characters around a note of what is left out."""
    if full or len(text) <= 2 * SHOWN + 200:
        return text
    left = len(text) - 2 * SHOWN
    return f"{text[:SHOWN]}\n[… {left:,} characters omitted; --full shows them …]\n{text[-SHOWN:]}"


def _signed(value: float | None) -> str:
    return "–" if value is None else f"{value:+.3f}"


def example_text(detail: ExampleDetail, full: bool = False) -> str:
    """Appendix C's layout as plain text, long prompts elided unless ``full``."""
    parts = [
        f"Cut {detail.cut_id} (paper {detail.paper})",
        "",
        "Predictor prompt.",
        elided(detail.predictor_prompt, full),
        "",
        "True suffix.",
        detail.target,
        "",
        f"The scored target: {detail.scored_target!r}",
    ]
    for setting, z in detail.forecasts.items():
        parts += ["", f"Forecast {setting}.", z]
    for row in detail.conditions:
        parts += ["", f"Scoring prompt: {row.condition}.", elided(row.prompt, full)]
    parts += ["", f"{'condition':<28} {'clipLL_2':>9} {'raw':>8} {'vs. empty':>10} {'vs. C_B':>9}"]
    parts += [
        f"{row.condition:<28} {row.clip2:>9.3f} {row.raw:>8.3f} "
        f"{_signed(row.vs_empty):>10} {_signed(row.vs_context):>9}"
        for row in detail.conditions
    ]
    return "\n".join(parts)
