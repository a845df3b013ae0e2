"""Scoring cuts (seed 001): every condition's target log-probabilities, shared forwards.

The scaffold prompts of a cut (empty, each forecast, the oracle) coincide up to the first
equation's prefix (the first window, for prose): that common prefix is the context of one
forward, and each condition's remaining prompt plus the target is a continuation scored from
its key-value cache. The unscaffolded controls are scored alone.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.kind import Job, RunOut, RunSettings, ScoreResult, run_kind
from readout_audit.lift._conditions import (
    CONTEXT,
    SFT,
    Condition,
    LiftSetup,
    conditions,
    target_text,
)
from readout_audit.lift._cut import Cut, sha256_text
from readout_audit.lift._effort import TokenCounts
from readout_audit.lift._record import LiftRecord
from readout_audit.lift._sft_scorer import SftScorer
from readout_audit.log import RunDirectory
from readout_audit.model import (
    DEFAULT_BATCH_SIZE,
    PositionRequest,
    PositionScores,
    RoutedExecutor,
    ScoringModel,
    TextCodec,
    check_model,
)
from readout_audit.progress import ProgressMode, as_mode

Forecasts = Mapping[str, Mapping[str, str]]
"""cut id → forecast setting → Z."""


def common_prefix(rows: Sequence[Sequence[int]]) -> int:
    """Length of the longest token prefix every row shares."""
    if not rows:
        return 0
    shortest = min(len(r) for r in rows)
    for i in range(shortest):
        token = rows[0][i]
        if any(r[i] != token for r in rows):
            return i
    return shortest


def leading_ids(codec: TextCodec, setup: LiftSetup) -> list[int]:
    """The special tokens every scorer prompt opens with: the tokenizer's own, or its BOS."""
    lead = list(codec.prefix_ids)
    bos = codec.tokenizer.bos_token_id
    if setup.bos and isinstance(bos, int) and bos not in lead:
        lead.insert(0, bos)
    return lead


def lift_record(
    model: ScoringModel,
    scores: PositionScores,
    *,
    cut: Cut,
    condition: Condition,
    n_prompt: int,
    shared: int,
    target_ids: Sequence[int],
) -> LiftRecord:
    """The condition's record: its continuation's last ``len(target_ids)`` log-probabilities."""
    logprobs = scores.continuations[0][-len(target_ids) :]
    return LiftRecord(
        item_id=cut.id,
        variant=condition.name,
        cluster=cut.paper,
        kind=cut.kind,
        prompt_sha256=sha256_text(condition.prompt),
        prompt_tail=condition.prompt[-60:],
        n_prompt_tokens=n_prompt,
        shared_tokens=shared,
        target_token_ids=list(target_ids),
        target_logprobs=[float(x) for x in logprobs],
        forecast_chars=None if condition.forecast is None else len(condition.forecast),
    )


def encode_scored(
    codec: TextCodec, lead: Sequence[int], prompt: str, target: str
) -> tuple[list[int], int]:
    r"""Prompt and target encoded as one text, as a server echoing them reads them.

    Returns the ids and the index of the target's first token: the first token that starts at or
    after the prompt's end (the reference scorer's rule). A token spanning the seam (``+ `` then
    ``\lVert``) belongs to neither and is not scored; encoding the two apart would score a split
    no tokenizer produces.
    """
    ids = codec.encode(prompt + target)
    start = common_prefix([ids, codec.encode(prompt)])
    while start < len(ids) and len(codec.decode(ids[:start])) < len(prompt):
        start += 1
    return [*lead, *ids], len(lead) + start


def cut_jobs(
    cut: Cut,
    forecasts: Mapping[str, str],
    setup: LiftSetup,
    codec: TextCodec,
    *,
    sft: bool = False,
) -> list[Job[Any]]:
    """The cut's jobs: its scaffold conditions over one shared context, its controls alone.

    ``sft``: also the SFT rung, the ``context`` prompt again (read by the fine-tuned scorer).
    """
    target = target_text(cut, setup)
    found = conditions(cut, forecasts, setup)
    if sft:
        (context,) = [c for c in found if c.name == CONTEXT]
        found.append(replace(context, name=SFT))
    lead = leading_ids(codec, setup)
    encoded = {c.name: encode_scored(codec, lead, c.prompt, target) for c in found}
    window = codec.context_window
    for c in found:
        ids, start = encoded[c.name]
        if start == len(ids):
            raise InputError("the target encodes to no tokens", item_id=cut.id, field="target")
        if window is not None and len(ids) > window:
            raise InputError(
                f"condition {c.name!r} is {len(ids)} tokens with its target, beyond the "
                f"scorer's window of {window}",
                item_id=cut.id,
                field="target",
            )
    scaffold = [ids[:start] for c in found if c.scaffold for ids, start in [encoded[c.name]]]
    shared = common_prefix(scaffold) if len(scaffold) > 1 else 0
    jobs = []
    for c in found:
        ids, start = encoded[c.name]
        split = shared if c.scaffold and shared > 0 else start
        request = PositionRequest(context=ids[:split], continuations=[ids[split:]])
        record = partial(
            lift_record,
            cut=cut,
            condition=c,
            n_prompt=start,
            shared=shared if c.scaffold else 0,
            target_ids=ids[start:],
        )
        jobs.append(Job((cut.id, c.name), request, record))
    return jobs


def same_tokens(codec: TextCodec, tuned: TextCodec, cuts: Sequence[Cut], setup: LiftSetup) -> None:
    """Refuse an SFT scorer whose tokenizer reads a rung's prompt as other tokens."""
    for cut in cuts:
        (context,) = [c for c in conditions(cut, {}, setup) if c.name == CONTEXT]
        text = context.prompt + target_text(cut, setup)
        if codec.encode(text) != tuned.encode(text):
            raise InputError(
                "the SFT scorer's tokenizer reads this cut's prompt as other tokens than the "
                "scorer's",
                item_id=cut.id,
                field="sft",
            )


def _digest(value: Any) -> str:
    """SHA-256 of a value's sorted JSON, for the manifest."""
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode("utf-8")).hexdigest()


def forecast_settings(forecasts: Forecasts) -> list[str]:
    """The settings of the forecasts, in the order they were first given."""
    return list(dict.fromkeys(s for per_cut in forecasts.values() for s in per_cut))


def setting_contrasts(
    settings: Sequence[str], contrasts: Sequence[tuple[str, str]] | None
) -> list[tuple[str, str]]:
    """The setting contrasts a − b: the given pairs (checked), or each setting and the next."""
    if contrasts is None:
        return list(itertools.pairwise(settings))
    for a, b in contrasts:
        unknown = [name for name in (a, b) if name not in settings]
        if unknown:
            raise InputError(
                f"contrast {a!r} − {b!r} names setting(s) {unknown} without forecasts "
                f"(settings: {', '.join(settings)})",
                field="contrasts",
            )
        if a == b:
            raise InputError(
                f"contrast {a!r} − {b!r} compares a setting to itself", field="contrasts"
            )
    return [(a, b) for a, b in contrasts]


def checked_counts(counts: TokenCounts, known: set[str]) -> dict[str, Any]:
    """Token counts as plain dicts, each a cut of the run with ``output``/``reasoning`` ≥ 0."""
    found: dict[str, Any] = {}
    for cut_id, by_setting in counts.items():
        if cut_id not in known:
            raise InputError("token counts name no cut of this run", item_id=cut_id, field="cut_id")
        for setting, count in by_setting.items():
            bad = [
                k
                for k, v in count.items()
                if k not in ("output", "reasoning")
                or not (v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 0))
            ]
            if bad:
                raise InputError(
                    f"setting {setting!r}: token counts must be output/reasoning integers ≥ 0",
                    item_id=cut_id,
                    field=bad[0],
                )
        found[cut_id] = {setting: dict(count) for setting, count in by_setting.items()}
    return found


def check_hardest_by(settings: Sequence[str], hardest_by: str | None) -> None:
    """Refuse a section 9 selector that is not one of the run's forecast settings."""
    if hardest_by is not None and hardest_by not in settings:
        raise InputError(
            f"{hardest_by!r} is not a setting of the forecasts ({', '.join(settings)})",
            field="hardest_by",
        )


def score_lift(
    model: ScoringModel,
    cuts: Sequence[Cut],
    out: RunOut,
    *,
    forecasts: Forecasts | None = None,
    setup: LiftSetup | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool | ProgressMode = False,
    overwrite: bool = False,
    toy: bool = True,
    seed: int = 0,
    contrasts: Sequence[tuple[str, str]] | None = None,
    sft: SftScorer | None = None,
    token_counts: TokenCounts | None = None,
    hardest_by: str | None = None,
) -> ScoreResult:
    """Score every cut under every condition into ``out`` (resumable; the summary follows).

    Every prompt is built and checked against the scorer's window before any is scored. The
    cuts and forecasts are kept in the run directory, with appendix A's toy check on the same
    scorer (``toy``); ``seed`` draws the report's example cuts. The settings keep the order
    their forecasts were given in; the setting contrasts (Table 6) are each setting against
    the next, or the ``contrasts`` pairs (a, b) given, e.g. within each model family.
    ``sft``: the context-only fine-tuned scorer, read as the ``sft`` rung on the cuts of its
    held-out papers (Table 8); the other conditions are read by ``model``. ``token_counts``:
    per cut and setting, the predictor's output and reasoning tokens (Table 7). ``hardest_by``:
    the setting whose lowest-lift fifth section 9's heuristic keeps (default: the last).
    """
    from readout_audit.lift._kind import LIFT

    check_model(model)
    setup = setup or LiftSetup()
    forecasts = forecasts or {}
    check_cuts(cuts, forecasts)
    rung = set() if sft is None else sft_rung(model, sft, cuts, setup)
    jobs = [
        j
        for c in cuts
        for j in cut_jobs(c, forecasts.get(c.id, {}), setup, model.codec, sft=c.id in rung)
    ]
    settings = forecast_settings(forecasts)
    pairs = setting_contrasts(settings, contrasts)
    check_hardest_by(settings, hardest_by)
    counts = checked_counts(token_counts or {}, {c.id for c in cuts})
    config = _run_config(
        setup, cuts, forecasts, counts, pairs, hardest_by=hardest_by, toy=toy, seed=seed
    )
    if sft is not None:
        dropped = sorted(c.id for c in cuts if c.paper in sft.held_out and c.id in sft.overlap)
        config["sft"] = {
            **sft.identity,
            "held_out": sorted(sft.held_out),
            "n_cuts": len(rung),
            "dropped": dropped,  # held out, but a training example holds the target
        }
    return run_kind(
        LIFT,
        model,
        out,
        config,
        _planner(model, cuts, forecasts, counts, jobs, toy=toy, bos=setup.bos),
        RunSettings(batch_size=batch_size, progress=as_mode(progress), overwrite=overwrite),
        executor=None if sft is None else _routed(model, sft.model, batch_size),
    )


def sft_rung(
    model: ScoringModel, sft: SftScorer, cuts: Sequence[Cut], setup: LiftSetup
) -> set[str]:
    """The cuts the SFT rung reads, its prompts' budgets and tokens checked against the run's."""
    rung = sft.scored(cuts)
    sft.check_setup(setup)
    same_tokens(model.codec, sft.model.codec, [c for c in cuts if c.id in rung], setup)
    return rung


def _run_config(
    setup: LiftSetup,
    cuts: Sequence[Cut],
    forecasts: Forecasts,
    counts: dict[str, Any],
    pairs: Sequence[tuple[str, str]],
    *,
    hardest_by: str | None,
    toy: bool,
    seed: int,
) -> dict[str, Any]:
    """The run's configuration: the budgets, and hashes of the cuts, forecasts and counts."""
    return {
        **setup.as_config(),
        "n_cuts": len(cuts),
        "cut_kinds": sorted({c.kind for c in cuts}),
        "cuts_sha256": _digest([c.model_dump() for c in cuts]),
        "forecast_settings": forecast_settings(forecasts),
        "contrasts": [list(pair) for pair in pairs],
        "forecasts_sha256": _digest({k: dict(v) for k, v in forecasts.items()}),
        "forecast_tokens_sha256": _digest(counts),
        "hardest_by": hardest_by,
        "toy": toy,
        "seed": seed,
    }


def check_cuts(cuts: Sequence[Cut], forecasts: Forecasts) -> None:
    """Refuse a run of both cut kinds, repeated cut ids, and forecasts of no cut of the run."""
    known = {c.id for c in cuts}
    if len({c.kind for c in cuts}) > 1:
        raise InputError("a run scores equation cuts or prose cuts, not both", field="kind")
    if len(known) != len(cuts):
        raise InputError("cut ids repeat", field="id")
    for cut_id in forecasts:
        if cut_id not in known:
            raise InputError("a forecast names no cut of this run", item_id=cut_id, field="cut_id")


def _planner(
    model: ScoringModel,
    cuts: Sequence[Cut],
    forecasts: Forecasts,
    counts: dict[str, Any],
    jobs: list[Job[Any]],
    *,
    toy: bool,
    bos: bool,
) -> Callable[[RunDirectory], list[Job[Any]]]:
    """The run's plan: its inputs and the toy check kept as artifacts once, then the jobs."""
    from readout_audit.lift._toy import toy_rows

    def plan(run_dir: RunDirectory) -> list[Job[Any]]:
        if run_dir.artifact("cuts") is None:
            run_dir.write_artifact("cuts", [c.model_dump() for c in cuts])
            run_dir.write_artifact("forecasts", {k: dict(v) for k, v in forecasts.items()})
            run_dir.write_artifact("forecast_tokens", counts)
        if toy and run_dir.artifact("toy") is None:
            run_dir.write_artifact("toy", [row.model_dump() for row in toy_rows(model, bos=bos)])
        return jobs

    return plan


def _routed(model: ScoringModel, tuned: ScoringModel, batch_size: int) -> RoutedExecutor:
    """The scorer's executor, with the SFT rung's jobs sent to the fine-tuned scorer's."""
    return RoutedExecutor(
        model.executor(batch_size), tuned.executor(batch_size), lambda key: key[-1] == SFT
    )
