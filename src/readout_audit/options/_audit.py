"""The constrained-option audit (seed 000): every item under every rung of the prompt ladder."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.data import Item, MCItem
from readout_audit.kind import (
    AuditKind,
    Job,
    RunOut,
    RunSettings,
    ScoreResult,
    register_kind,
    run_kind,
)
from readout_audit.log import RunDirectory, ScoreRecord, Summary
from readout_audit.model import (
    PositionRequest,
    PositionScores,
    ScoringModel,
    TextCodec,
    check_model,
)
from readout_audit.options._accuracy import RungAccuracy, rung_accuracy
from readout_audit.options._checks import options_checks, variant_summary
from readout_audit.options._downstream import WRITTEN_TOKENS, Downstream, forecast_downstream
from readout_audit.options._forecast import READER_FILE, attach_reader
from readout_audit.options._headline import options_headline
from readout_audit.options._paired import options_paired_metrics
from readout_audit.options._record import OptionsRecord
from readout_audit.options._sections import options_sections
from readout_audit.prompt import FORECAST, LADDER, PromptSpec, Variant, build_item, select_rungs
from readout_audit.readout import (
    DEFAULT_GREEDY_TOKENS,
    MASS_FLOOR,
    letter_pull,
    position_request,
    read_continuation,
    token_class,
)
from readout_audit.scoring import (
    PreparedItem,
    prepare,
    score_item,
    scoring_config,
)

if TYPE_CHECKING:
    from readout_audit.options._settings import OptionsSettings


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
    metadata = job.item.metadata
    letters = list(metadata.get("letters", []))
    recitals = [metadata.get("question", ""), *metadata.get("instructions", [])]
    continuation = read_continuation(base.greedy.text, base.options, letters, recitals)
    argmax_class = token_class(base.argmax_id, base.argmax_token, base.option_first_ids, letters)
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
        argmax_class=argmax_class,
        letter_pull=letter_pull(
            argmax_class == "answer_letter", base.argmax_token, base.greedy.text
        ),
        continuation_class=continuation.continuation_class,
        answer_then_option=continuation.answer_then_option,
        option_anywhere=continuation.option_anywhere,
        letter_anywhere=continuation.letter_anywhere,
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


class LadderRung(BaseModel):
    """One rung's records: option mass, what holds the argmax, what the continuation does."""

    model_config = ConfigDict(extra="forbid")

    n: int
    median_mass: float | None
    min_mass: float | None
    below_floor: int
    n_mass_measured: int
    letter_rate: float
    """Share of items with letter pull: an item letter at the argmax that the continuation
    shows is the item's answer letter (not the article of ``A clever question!``)."""
    option_argmax_rate: float
    n_argmax_off_options: int
    """Items whose argmax is not one of the declared options' first tokens (the options and the
    argmax diverge), counted where the boundary is preserved."""
    median_isolated_mass: float | None
    argmax_classes: dict[str, int]
    continuation_classes: dict[str, int]
    """What the greedy continuation does first (the paper's Table 16 classes)."""
    n_answer_then_option: int
    """Continuations that answer the item first and then give a declared option."""
    n_option_anywhere: int
    """Continuations with a declared option anywhere outside a recited option list."""
    n_letter_anywhere: int
    """Continuations with an item letter used as an answer anywhere."""
    n_shared_first_tokens: int
    n_boundary_not_preserved: int
    endings: dict[str, int]
    n_mass_argmax_disagree: int
    n_readout_disagreements: int
    readout_disagreements: list[str]
    accuracy: RungAccuracy | None = None
    """Accuracy against the items' gold answers (answer-type specs); None without them."""


class OptionsSummary(Summary):
    """The constrained-option audit: the ladder, its checks and the forecast's downstream."""

    kind: str = "options"
    variants: dict[str, LadderRung]
    downstream: Downstream | None = None


def by_rung(typed: Sequence[OptionsRecord]) -> dict[str, list[OptionsRecord]]:
    """The audit's records per variant, in ladder order (a spec file's own rungs last)."""
    order = [*LADDER, *FORECAST.variants]
    variants = sorted(
        {r.variant for r in typed},
        key=lambda v: (order.index(v) if v in order else len(order), v),
    )
    return {v: [r for r in typed if r.variant == v] for v in variants}


def summarise_options(records: Sequence[OptionsRecord]) -> OptionsSummary:
    """Per-variant summaries and the forecast's downstream, from the records alone.

    The checks are the kind's (:data:`OPTIONS` ``.summary`` adds them).
    """
    groups = by_rung(records)
    typed = [r for group in groups.values() for r in group]
    return OptionsSummary(
        n_records=len(typed),
        n_items=len({r.item_id for r in typed}),
        variants={
            v: LadderRung(**variant_summary(group), accuracy=rung_accuracy(group))
            for v, group in groups.items()
        },
        downstream=forecast_downstream(typed),
    )


def ladder_items(
    spec: PromptSpec,
    items: Sequence[MCItem],
    variants: Sequence[str] | None = None,
    extra_variants: Mapping[str, Variant] | None = None,
) -> list[tuple[Item, str]]:
    """Every item under every selected rung of the ladder (all rungs by default)."""
    chosen, _ = select_rungs(spec, variants, extra_variants)
    return [(build_item(spec, item, v, extra_variants), v) for item in items for v in chosen]


def audit_options(
    model: ScoringModel, settings: OptionsSettings, out: RunOut, run: RunSettings | None = None
) -> ScoreResult:
    """Run the constrained-option audit: every item under every selected ladder variant.

    One forward pass per item × variant serves the option mass, the argmax, every option's
    log-likelihood, the isolated reading and the greedy continuation. For a spec whose target
    is the note-only reader's correctness, the reader runs first (``reader=None``: whenever
    every item has a gold letter and a note or passage), writing notes from passages where
    items have none; the writer and the reader render with the chat-template arguments too,
    and the original position's greedy text then runs at least 48 tokens for readout (f).
    Without the reader, a missing note is rendered empty. The forecast spec's own rungs
    include T1 and T1_stem, readouts (d) and (e).
    """
    check_model(model)
    run = run or RunSettings()
    spec, items, greedy_tokens = settings.spec.spec, settings.loaded, settings.greedy_tokens
    variants, extra = settings.variants, settings.spec.variants
    chosen, _ = select_rungs(spec, variants, extra)
    kwargs = dict(run.template_kwargs)
    reader = settings.reader
    if reader is None:
        reader = spec.target == "reader_correct" and all(
            i.answer is not None and (i.note is not None or i.passage) for i in items
        )
    written = max(greedy_tokens, WRITTEN_TOKENS) if reader else greedy_tokens

    def build(sources: Sequence[MCItem]) -> list[tuple[Item, str]]:
        return ladder_items(spec, sources, variants, extra)

    def plan(run_dir: RunDirectory) -> list[Job[Any]]:
        sources = (
            attach_reader(
                model, items, run_dir.directory, budget=settings.note_budget, template_kwargs=kwargs
            )
            if reader
            else items
        )
        jobs = []
        for item, variant in build(sources):
            tokens = written if variant == "production" else greedy_tokens
            prepared = prepare(item, model.codec, kwargs, tokens, variant=variant)
            request = options_request(prepared, tokens, model.codec)
            record = partial(options_record, job=prepared, spec=spec.name, top_k=run.top_k)
            jobs.append(Job(prepared.key, request, record))
        return jobs

    # the items as given identify the run; the reader's notes follow from them and the model
    config = scoring_config([item for item, _ in build(items)], run.top_k, greedy_tokens, kwargs)
    config.update({"spec": spec.name, "variants": chosen, "reader": reader})
    if reader:
        config.update({"note_budget": settings.note_budget, "production_greedy_tokens": written})
    return run_kind(
        OPTIONS,
        model,
        out,
        config,
        plan,
        run,
    )


OPTIONS: AuditKind[OptionsRecord, OptionsSummary] = AuditKind(
    name="options",
    title="constrained-option audit",
    record_type=OptionsRecord,
    summary_type=OptionsSummary,
    summarise=lambda run: summarise_options(run.records),
    sections=options_sections,
    checks=lambda records: options_checks(by_rung(records)),
    paired_metrics=options_paired_metrics,
    headline=options_headline,
    files=(READER_FILE,),
)
register_kind(OPTIONS)
