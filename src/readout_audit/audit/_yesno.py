"""The yes/no readout audit (seed 002): four readouts of the same forward pass per question."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import click
import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.audit._score import PreparedItem, prepare, score_item, scoring_config
from readout_audit.audit._yesno_summary import YesNoSummary, summarise_yesno, yesno_checks
from readout_audit.data._item import Item, Message
from readout_audit.data._yesno import YesNoItem
from readout_audit.kind._executor import DEFAULT_BATCH_SIZE
from readout_audit.kind._kind import AuditKind
from readout_audit.kind._registry import register_kind
from readout_audit.kind._runner import Job, ScoreResult, run_kind
from readout_audit.log._record import YesNoRecord
from readout_audit.log._run import Run, RunDirectory
from readout_audit.model._backend import PositionRequest, PositionScores, ScoringModel
from readout_audit.readout._position import DEFAULT_TOP_K, position_request
from readout_audit.readout._yesno import (
    LLAMA_PAIR,
    LLAMA_SET,
    NO_FORMS,
    YES_FORMS,
    Answer,
    TokenSets,
    max_logit_decision,
    parse_yes_no,
    sets_from_encodings,
)
from readout_audit.report._compare import yesno_paired_metrics
from readout_audit.report._yesno import yesno_sections

DIAGNOSTIC_SAMPLE = 100
"""Questions the new-model diagnostic (seed 002, Algorithm 1) reads before the evaluation."""
PARSE_TOKENS = 6
"""Greedy tokens string parsing reads, as in seed 002's harness."""


@dataclass(frozen=True)
class YesNoSetup:
    """What the audit compares: the declared forms, the legacy ids and any diagnostic additions."""

    yes_forms: tuple[str, ...] = YES_FORMS
    no_forms: tuple[str, ...] = NO_FORMS
    legacy_pair: tuple[int, int] | None = LLAMA_PAIR
    legacy_set: tuple[tuple[int, ...], tuple[int, ...]] | None = LLAMA_SET
    added_yes: tuple[int, ...] = ()
    added_no: tuple[int, ...] = ()
    instruction: str | None = None
    """Appended to each question on a new line (e.g. ``Answer yes or no.``); none by default."""
    extra_ids: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        overlap = set(self.yes_forms) & set(self.no_forms)
        if overlap:
            raise InputError(
                f"form(s) {sorted(overlap)} declared as both yes and no", field="forms"
            )
        if not self.yes_forms or not self.no_forms:
            raise InputError("declare at least one yes form and one no form", field="forms")
        legacy: list[int] = []
        if self.legacy_pair is not None:
            legacy += self.legacy_pair
        if self.legacy_set is not None:
            TokenSets(yes=self.legacy_set[0], no=self.legacy_set[1])  # rejects shared ids
            legacy += [*self.legacy_set[0], *self.legacy_set[1]]
        object.__setattr__(
            self, "extra_ids", tuple(sorted({*legacy, *self.added_yes, *self.added_no}))
        )

    @property
    def answers(self) -> list[Answer]:
        """The answer each declared form gives, in option order."""
        yes: list[Answer] = ["yes"] * len(self.yes_forms)
        no: list[Answer] = ["no"] * len(self.no_forms)
        return yes + no

    def check_vocabulary(self, size: int) -> None:
        """Every legacy or added id must name a token of this model."""
        bad = [i for i in self.extra_ids if not 0 <= i < size]
        if bad:
            raise InputError(
                f"token id(s) {bad} are outside this model's vocabulary of {size}",
                field="legacy-ids",
            )

    def as_config(self) -> dict[str, Any]:
        """The setup as recorded in the manifest."""
        return {
            "yes_forms": list(self.yes_forms),
            "no_forms": list(self.no_forms),
            "legacy_pair": list(self.legacy_pair) if self.legacy_pair else None,
            "legacy_set": [list(s) for s in self.legacy_set] if self.legacy_set else None,
            "added_yes": list(self.added_yes),
            "added_no": list(self.added_no),
            "instruction": self.instruction,
        }


def yesno_item(item: YesNoItem, setup: YesNoSetup, *, with_image: bool = False) -> Item:
    """The question as one user turn with the declared forms as its options.

    For a vision-language model the item's image leads the turn.
    """
    text = f"{item.question}\n{setup.instruction}" if setup.instruction else item.question
    built = Item(
        id=item.id,
        messages=(Message(role="user", content=text),),
        images=(item.image,) if with_image and item.image else (),
        options=(*setup.yes_forms, *setup.no_forms),
        target=item.label,
        cluster=item.cluster_key,
        metadata=item.metadata,
    )
    return item.derived(built)


def item_sets(job: PreparedItem, setup: YesNoSetup) -> TokenSets:
    """The dynamic sets in this item's context, with the diagnostic's additions."""
    return sets_from_encodings(job.encodings, setup.answers).extended(
        setup.added_yes, setup.added_no
    )


def yesno_record(
    model: ScoringModel,
    job: PreparedItem,
    scores: PositionScores,
    *,
    source: YesNoItem,
    setup: YesNoSetup,
    top_k: int,
) -> YesNoRecord:
    """Every readout of one question from one forward pass, with its first generated token."""
    base = score_item(model, job, top_k=top_k, scores=scores)
    sets = item_sets(job, setup)
    wanted = {*sets.ids, *setup.extra_ids}
    logprobs = {i: scores.distribution.logprob(i) for i in sorted(wanted)}
    first = base.greedy.token_ids[0] if base.greedy.token_ids else base.argmax_id
    first_text = model.codec.decode([first])
    parsed = parse_yes_no(base.greedy.text, len(first_text))
    decisions: dict[str, Answer | None] = {}
    if setup.legacy_pair is not None:
        pair = TokenSets(yes=(setup.legacy_pair[0],), no=(setup.legacy_pair[1],))
        decisions["legacy_pair"] = max_logit_decision(logprobs, pair)
    if setup.legacy_set is not None:
        legacy = TokenSets(yes=setup.legacy_set[0], no=setup.legacy_set[1])
        decisions["legacy_set"] = max_logit_decision(logprobs, legacy)
    decisions["dynamic"] = max_logit_decision(logprobs, sets)
    decisions["string_parse"] = parsed.decision
    return YesNoRecord(
        **base.model_dump(),
        label=source.label,
        split=source.split,
        image=source.image,
        form_answers=setup.answers,
        first_token_id=first,
        first_token=first_text,
        yes_ids=list(sets.yes),
        no_ids=list(sets.no),
        multi_token_forms=[form for form, _ in sets.multi_token],
        first_token_in_sets=first in sets.ids,
        legacy_pair=list(setup.legacy_pair) if setup.legacy_pair else None,
        legacy_set=[list(ids) for ids in setup.legacy_set] if setup.legacy_set else None,
        set_logprobs=logprobs,
        decisions=decisions,
        parsed_answer=parsed.answer,
        parse_offset=parsed.offset,
        parse_in_first_token=parsed.in_first_token,
    )


def diagnose(
    model: ScoringModel,
    jobs: Sequence[PreparedItem],
    setup: YesNoSetup,
    *,
    sample: int = DIAGNOSTIC_SAMPLE,
    seed: int = 0,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> dict[str, Any]:
    """Seed 002's Algorithm 1: the first generated token on a seeded sample of questions.

    Every argmax outside the item's yes ∪ no set is reported; those whose surface is a yes or
    no word (any case or spacing) are proposed as additions, which the caller may apply.
    """
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(len(jobs), size=min(sample, len(jobs)), replace=False).tolist())
    emitted: Counter[int] = Counter()
    outside: Counter[int] = Counter()
    for start in range(0, len(chosen), batch_size):
        batch = [jobs[i] for i in chosen[start : start + batch_size]]
        answers = model.score_positions(
            [
                PositionRequest(job.rendering.token_ids, inputs=job.rendering.model_inputs)
                for job in batch
            ]
        )
        for job, scores in zip(batch, answers, strict=True):
            token = scores.distribution.argmax()[0]
            emitted[token] += 1
            if token not in item_sets(job, setup).ids:
                outside[token] += 1
    surface = {t: model.codec.token_surface(t) for t in emitted}
    return {
        "sample": len(chosen),
        "seed": seed,
        "emitted": {str(t): {"token": surface[t], "count": c} for t, c in emitted.most_common()},
        "outside_sets": {
            str(t): {"token": surface[t], "count": c} for t, c in outside.most_common()
        },
        "proposed_yes": sorted(t for t in outside if surface[t].strip().lower() == "yes"),
        "proposed_no": sorted(t for t in outside if surface[t].strip().lower() == "no"),
    }


def audit_yesno(
    model: ScoringModel,
    items: Sequence[YesNoItem],
    out: str | Path,
    *,
    setup: YesNoSetup | None = None,
    extend_sets: bool = False,
    diagnostic_sample: int = DIAGNOSTIC_SAMPLE,
    seed: int = 0,
    top_k: int = DEFAULT_TOP_K,
    greedy_tokens: int = PARSE_TOKENS,
    template_kwargs: Mapping[str, Any] | None = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    progress: bool = False,
) -> ScoreResult:
    """Run the yes/no audit: the diagnostic on a sample, then every question's four readouts.

    A vision-language model sees each item's image before its question; a text model reads
    the question alone (the image name is still recorded).

    With ``extend_sets``, the diagnostic's proposed yes/no ids join the dynamic sets before the
    evaluation (Algorithm 1, line 8); either way its findings are kept in the run directory
    (``artifacts/diagnostic.json``), reused when the run resumes, and reported in the summary.
    """
    setup = setup or YesNoSetup()
    setup.check_vocabulary(model.codec.vocab_size)
    if greedy_tokens < 1:
        raise InputError("the string-parse readout needs at least 1 greedy token", field="greedy")
    kwargs = dict(template_kwargs or {})
    with_image = model.capabilities.images
    built = [yesno_item(item, setup, with_image=with_image) for item in items]
    prepared = [prepare(item, model.codec, kwargs, greedy_tokens) for item in built]
    by_id = {item.id: item for item in items}

    def plan(run_dir: RunDirectory) -> list[Job[Any]]:
        diagnostic = run_dir.artifact("diagnostic")
        if diagnostic is None:
            diagnostic = diagnose(
                model, prepared, setup, sample=diagnostic_sample, seed=seed, batch_size=batch_size
            )
            run_dir.write_artifact("diagnostic", diagnostic)
        used = setup
        if extend_sets:
            used = replace(
                setup,
                added_yes=(*setup.added_yes, *diagnostic["proposed_yes"]),
                added_no=(*setup.added_no, *diagnostic["proposed_no"]),
            )
        return [
            Job(
                job.key,
                position_request(job.rendering, job.encodings, greedy_tokens, used.extra_ids),
                partial(yesno_record, job=job, source=by_id[job.item.id], setup=used, top_k=top_k),
            )
            for job in prepared
        ]

    config = scoring_config(built, top_k, greedy_tokens, kwargs)
    config.update(setup.as_config())
    config.update({"diagnostic_sample": diagnostic_sample, "seed": seed, "extend": extend_sets})
    seeds = {"diagnostic": seed, "bootstrap": seed}
    return run_kind(
        YESNO, model, out, config, plan, seeds=seeds, batch_size=batch_size, progress=progress
    )


def summarise_yesno_run(run: Run) -> YesNoSummary:
    """The summary of a yes/no run from its files: the run's seed and its saved diagnostic."""
    return summarise_yesno(
        run.records,
        seed=int(run.manifest.config.get("seed", 0)),
        diagnostic=run.artifacts.get("diagnostic"),
    )


def _yesno_command() -> click.Command:
    from readout_audit._cli._audit import yesno_command

    return yesno_command


YESNO: AuditKind[YesNoRecord, YesNoSummary] = AuditKind(
    name="yesno",
    title="yes/no audit",
    record_type=YesNoRecord,
    summary_type=YesNoSummary,
    summarise=summarise_yesno_run,
    sections=yesno_sections,
    checks=yesno_checks,
    item_type=YesNoItem,
    paired_metrics=yesno_paired_metrics,
    command=_yesno_command,
)
register_kind(YESNO)
