"""The constrained-option audit (seed 000): every item under every rung of the prompt ladder."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.audit._checks import options_checks, variant_summary
from readout_audit.audit._forecast import attach_reader, forecast_downstream
from readout_audit.audit._score import (
    DEFAULT_BATCH_SIZE,
    PreparedItem,
    ScoreResult,
    prepare,
    run_audit,
    score_item,
    scoring_config,
)
from readout_audit.audit._summary import MASS_FLOOR
from readout_audit.data._mc import MCItem
from readout_audit.log._record import OptionsRecord, ScoreRecord
from readout_audit.model._backend import PositionRequest, PositionScores, ScoringModel
from readout_audit.model._codec import TextCodec
from readout_audit.prompt._spec import LADDER, PromptSpec, Variant, build_item
from readout_audit.readout._classes import continuation_class, token_class
from readout_audit.readout._position import (
    DEFAULT_GREEDY_TOKENS,
    DEFAULT_TOP_K,
    position_request,
)


def _choices(record: ScoreRecord) -> dict[str, int | None]:
    """The option each readout picks, by index.

    Full-option log-likelihood (lm-evaluation-harness acc), per character (acc_norm), per UTF-8
    byte (acc_bytes), first-token probability, and the option the greedy text opens with.
    """
    logliks = record.option_logprobs
    if any(lp is None for lp in logliks):
        picks: dict[str, int | None] = dict.fromkeys(
            ("loglik", "acc_norm", "acc_bytes", "first_token")
        )
    else:
        ll = np.array(logliks, dtype=np.float64)
        chars = np.array([len(o) for o in record.options], dtype=np.float64)
        octets = np.array([len(o.encode("utf-8")) for o in record.options], dtype=np.float64)
        firsts = np.array([t[0] for t in record.option_token_logprobs if t is not None])
        picks = {
            "loglik": int(np.argmax(ll)),
            "acc_norm": int(np.argmax(ll / chars)),
            "acc_bytes": int(np.argmax(ll / octets)),
            "first_token": int(np.argmax(firsts)),
        }
    head = record.greedy.text.strip()
    greedy = [i for i, o in enumerate(record.options) if o.strip() and head.startswith(o.strip())]
    picks["greedy"] = max(greedy, key=lambda i: len(record.options[i].strip())) if greedy else None
    return picks


def isolated_first_ids(codec: TextCodec, options: Sequence[str]) -> list[int | None]:
    """Each option's first token when encoded on its own: the paper's misleading reading."""
    return [ids[0] if (ids := codec.encode(o)) else None for o in options]


def options_request(job: PreparedItem, greedy_tokens: int, codec: TextCodec) -> PositionRequest:
    """The job's position request, also asking for the options' isolated first tokens."""
    isolated = isolated_first_ids(codec, job.item.options)
    return position_request(
        job.rendering, job.encodings, greedy_tokens, [t for t in isolated if t is not None]
    )


def options_record(
    model: ScoringModel,
    job: PreparedItem,
    *,
    spec: str,
    top_k: int,
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    scores: PositionScores | None = None,
) -> OptionsRecord:
    """Read one item × variant and classify what holds its scored position."""
    if scores is None:
        scores = model.score_positions([options_request(job, greedy_tokens, model.codec)])[0]
    base = score_item(model, job, top_k=top_k, scores=scores)
    letters = list(job.item.metadata.get("letters", []))
    isolated = isolated_first_ids(model.codec, base.options)
    wanted = sorted({t for t in isolated if t is not None})
    isolated_logprobs = [scores.distribution.logprob(t) for t in wanted]
    isolated_mass = (
        None
        if None in isolated or None in isolated_logprobs
        else sum(math.exp(lp) for lp in isolated_logprobs if lp is not None)
    )
    picks = _choices(base)
    chosen = {pick for pick in picks.values() if pick is not None}
    return OptionsRecord(
        **base.model_dump(),
        spec=spec,
        item_letters=letters,
        argmax_class=token_class(base.argmax_id, base.argmax_token, base.option_first_ids, letters),
        continuation_class=continuation_class(base.greedy.text, base.options, letters),
        isolated_first_ids=isolated,
        isolated_mass=isolated_mass,
        mass_argmax_disagree=(
            None
            if base.option_mass is None
            else base.argmax_is_option != (base.option_mass >= MASS_FLOOR)
        ),
        readout_choices=picks,
        readouts_agree=len(chosen) <= 1,
    )


def summarise_options(records: Sequence[ScoreRecord]) -> dict[str, Any]:
    """Per-variant summaries and the six checks, computed from the records alone."""
    typed = [r for r in records if isinstance(r, OptionsRecord)]
    order = list(LADDER)
    variants = sorted(
        {r.variant for r in typed},
        key=lambda v: (order.index(v) if v in order else len(order), v),
    )
    by_variant = {v: [r for r in typed if r.variant == v] for v in variants}
    return {
        "n_records": len(typed),
        "n_items": len({r.item_id for r in typed}),
        "variants": {v: variant_summary(group) for v, group in by_variant.items()},
        "checks": [check.as_dict() for check in options_checks(by_variant)],
        "downstream": forecast_downstream(typed),
    }


def audit_options(
    model: ScoringModel,
    items: Sequence[MCItem],
    spec: PromptSpec,
    out: str | Path,
    *,
    variants: Sequence[str] | None = None,
    top_k: int = DEFAULT_TOP_K,
    greedy_tokens: int = DEFAULT_GREEDY_TOKENS,
    template_kwargs: Mapping[str, Any] | None = None,
    reader: bool | None = None,
    note_budget: int = 32,
    extra_variants: Mapping[str, Variant] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = False,
) -> ScoreResult:
    """Run the constrained-option audit: every item under every selected ladder variant.

    One forward pass per item × variant serves the option mass, the argmax, every option's
    log-likelihood, the isolated reading and the greedy continuation. For a spec whose target
    is the note-only reader's correctness, the reader runs first (``reader=None``: whenever
    every item has a gold letter and a note or passage), writing notes from passages where
    items have none. Without the reader, a missing note is rendered empty.
    """
    ladder = {**LADDER, **(extra_variants or {})}
    chosen = list(variants or ladder)
    unknown = [v for v in chosen if v not in ladder]
    if unknown:
        raise InputError(
            f"unknown variant(s) {unknown}; expected some of {', '.join(ladder)}", field="variants"
        )
    kwargs = dict(template_kwargs or {})
    if reader is None:
        reader = spec.target == "reader_correct" and all(
            i.answer is not None and (i.note is not None or i.passage) for i in items
        )
    if reader:
        items = attach_reader(model, items, out, budget=note_budget)
    built = [build_item(spec, item, v, ladder) for item in items for v in chosen]
    jobs = [
        prepare(item, model.codec, kwargs, greedy_tokens, variant=v)
        for item, v in zip(built, [v for _ in items for v in chosen], strict=True)
    ]
    config = scoring_config(built, top_k, greedy_tokens, kwargs)
    config.update({"spec": spec.name, "variants": chosen, "reader": reader})
    if reader:
        config["note_budget"] = note_budget
    return run_audit(
        model,
        jobs,
        out,
        kind="options",
        config=config,
        make_record=lambda m, job, scores: options_record(
            m, job, spec=spec.name, top_k=top_k, scores=scores
        ),
        summariser=summarise_options,
        request=lambda job: options_request(job, greedy_tokens, model.codec),
        batch_size=batch_size,
        progress=progress,
    )
