"""The yes/no readout audit (seed 002): every readout of the same forward pass per question."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from readout_audit._exceptions import InputError
from readout_audit.data import Item, Message, YesNoItem
from readout_audit.kind import (
    AuditKind,
    Job,
    RunOut,
    RunSettings,
    ScoreResult,
    register_kind,
    run_kind,
)
from readout_audit.log import Run, RunDirectory
from readout_audit.model import (
    DEFAULT_BATCH_SIZE,
    PositionRequest,
    PositionScores,
    ScoringModel,
    TextCodec,
    check_model,
)
from readout_audit.readout import (
    LLAMA_PAIR,
    LLAMA_SET,
    NO_FORMS,
    UPPER_NO_FORMS,
    UPPER_YES_FORMS,
    YES_FORMS,
    Answer,
    ParseRule,
    TokenSets,
    algorithm1_diagnostic,
    listing1_sets,
    max_logit_decision,
    parse_yes_no,
    position_request,
    sets_from_encodings,
)
from readout_audit.scoring import (
    PreparedItem,
    prepare,
    score_item,
    scoring_config,
)
from readout_audit.yesno._headline import yesno_headline
from readout_audit.yesno._paired import yesno_paired_metrics
from readout_audit.yesno._record import YesNoRecord
from readout_audit.yesno._sections import yesno_sections
from readout_audit.yesno._summary import YesNoSummary, summarise_yesno, yesno_checks

if TYPE_CHECKING:
    from readout_audit.yesno._settings import YesNoSettings

DIAGNOSTIC_SAMPLE = 100
"""Questions the new-model diagnostic (seed 002, Algorithm 1) reads before the evaluation."""
PARSE_TOKENS = 6
"""Greedy tokens string parsing reads, as in seed 002's harness."""


def _unique(forms: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(forms))


@dataclass(frozen=True)
class YesNoSetup:
    """What the audit compares: the declared forms, the extension, and the legacy ids."""

    yes_forms: tuple[str, ...] = YES_FORMS
    """Forms of the dynamic yes set, encoded alone as in Listing 1 (default: the paper's four)."""
    no_forms: tuple[str, ...] = NO_FORMS
    in_context: bool = False
    """Also read ``dynamic_in_context``: these forms and their upper-case variants encoded as
    continuations of the rendered prompt (this project's extension of Listing 1)."""
    legacy_pair: tuple[int, int] | None = LLAMA_PAIR
    legacy_set: tuple[tuple[int, ...], tuple[int, ...]] | None = LLAMA_SET
    """Algorithm 1's fixed Y and N (the legacy eight-token sets), checked by its diagnostic."""
    instruction: str | None = None
    """Appended to each question on a new line (e.g. ``Answer yes or no.``); none by default."""
    parse_rule: ParseRule = "substring"
    """string_parse's rule: the paper's first yes/no substring, or the first standalone word."""

    def __post_init__(self) -> None:
        yes, no = self.option_forms
        overlap = set(yes) & set(no)
        if overlap:
            raise InputError(
                f"form(s) {sorted(overlap)} declared as both yes and no", field="forms"
            )
        if not self.yes_forms or not self.no_forms:
            raise InputError("declare at least one yes form and one no form", field="forms")
        for field, forms in (("yes_form", self.yes_forms), ("no_form", self.no_forms)):
            if any(not form.strip() for form in forms):
                raise InputError(
                    f"a form must hold a word, got {[f for f in forms if not f.strip()]}",
                    field=field,
                )
        if self.legacy_set is not None:
            TokenSets(yes=self.legacy_set[0], no=self.legacy_set[1])  # rejects shared ids

    @property
    def option_forms(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The yes and no forms each question scores in context (the extension's with it)."""
        if not self.in_context:
            return _unique(self.yes_forms), _unique(self.no_forms)
        return (
            _unique((*self.yes_forms, *UPPER_YES_FORMS)),
            _unique((*self.no_forms, *UPPER_NO_FORMS)),
        )

    @property
    def answers(self) -> list[Answer]:
        """The answer each form scored in context gives, in option order."""
        yes, no = self.option_forms
        answers: list[Answer] = ["yes"] * len(yes)
        return answers + ["no"] * len(no)

    def check_vocabulary(self, size: int) -> None:
        """Every legacy id must name a token of this model."""
        legacy = [*(self.legacy_pair or ())]
        if self.legacy_set is not None:
            legacy += [*self.legacy_set[0], *self.legacy_set[1]]
        bad = sorted({i for i in legacy if not 0 <= i < size})
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
            "in_context_sets": self.in_context,
            "legacy_pair": list(self.legacy_pair) if self.legacy_pair else None,
            "legacy_set": [list(s) for s in self.legacy_set] if self.legacy_set else None,
            "instruction": self.instruction,
            "parse_rule": self.parse_rule,
        }


@dataclass(frozen=True)
class ModelSets:
    """The token sets every question of one model shares, by the readout that compares them."""

    dynamic: TokenSets
    """Listing 1's sets from this model's tokenizer."""
    legacy_pair: TokenSets | None = None
    legacy_set: TokenSets | None = None
    algorithm1: TokenSets | None = None
    """Algorithm 1's Y and N: the legacy set with the diagnostic's additions (line 8)."""

    @classmethod
    def derive(cls, codec: TextCodec, setup: YesNoSetup) -> ModelSets:
        """Listing 1's sets from the codec, and the legacy ids as given."""
        pair = setup.legacy_pair
        fixed = setup.legacy_set
        return cls(
            dynamic=listing1_sets(codec, setup.yes_forms, setup.no_forms),
            legacy_pair=TokenSets(yes=(pair[0],), no=(pair[1],)) if pair else None,
            legacy_set=TokenSets(yes=fixed[0], no=fixed[1]) if fixed else None,
        )

    def extended(self, diagnostic: Mapping[str, Any]) -> ModelSets:
        """These sets with Algorithm 1's: Y and N plus the diagnostic's proposed ids."""
        if self.legacy_set is None:
            return self
        added = self.legacy_set.extended(diagnostic["proposed_yes"], diagnostic["proposed_no"])
        return replace(self, algorithm1=added)

    def by_readout(self) -> dict[str, TokenSets]:
        """Each logit readout's sets, in the summary's order (those that run)."""
        named = {
            "legacy_pair": self.legacy_pair,
            "legacy_set": self.legacy_set,
            "algorithm1": self.algorithm1,
            "dynamic": self.dynamic,
        }
        return {name: sets for name, sets in named.items() if sets is not None}

    def as_config(self) -> dict[str, Any]:
        """Listing 1's sets as the manifest records them."""
        return {
            "listing1_sets": {
                "yes": list(self.dynamic.yes),
                "no": list(self.dynamic.no),
                "multi_token_forms": [form for form, _ in self.dynamic.multi_token],
            }
        }


def ignored_images(items: Sequence[YesNoItem]) -> str | None:
    """The warning for items naming images a text-only model will not see (None: no item does)."""
    named = sum(item.image is not None for item in items)
    if not named:
        return None
    return (
        f"{named} of the {len(items)} items name an image, which a text-only model ignores: "
        "each such question is asked without its image"
    )


def yesno_item(item: YesNoItem, setup: YesNoSetup, *, with_image: bool = False) -> Item:
    """The question as one user turn, or the item's own raw prompt, with the forms as options.

    For a vision-language model the item's image leads the turn (or fills the raw prompt's
    image placeholder). A raw prompt is used verbatim, so an instruction cannot be added to it.
    """
    if item.prompt is not None and setup.instruction:
        raise item.error(
            "a raw prompt is used verbatim, so the instruction cannot be appended to it; "
            "write the instruction into the prompt",
            "prompt",
        )
    if item.prompt is not None:
        context: dict[str, Any] = {"prompt": item.prompt}
    else:
        text = f"{item.question}\n{setup.instruction}" if setup.instruction else item.question
        context = {"messages": (Message(role="user", content=text),)}
    yes, no = setup.option_forms
    built = Item(
        id=item.id,
        **context,
        images=(item.image,) if with_image and item.image else (),
        options=(*yes, *no),
        target=item.label,
        cluster=item.cluster_key,
        metadata=item.metadata,
    )
    return item.derived(built)


def _pairs(sets: TokenSets | None) -> list[list[int]] | None:
    return None if sets is None else [list(sets.yes), list(sets.no)]


def yesno_record(
    model: ScoringModel,
    job: PreparedItem,
    scores: PositionScores,
    *,
    source: YesNoItem,
    setup: YesNoSetup,
    sets: ModelSets,
    top_k: int,
) -> YesNoRecord:
    """Every readout of one question from one forward pass, with its first generated token."""
    base = score_item(model, job, top_k=top_k, scores=scores)
    readouts = sets.by_readout()
    if setup.in_context:
        readouts["dynamic_in_context"] = sets_from_encodings(job.encodings, setup.answers)
    wanted = sorted({i for s in readouts.values() for i in s.ids})
    logprobs = {i: scores.distribution.logprob(i) for i in wanted}
    first = base.greedy.token_ids[0] if base.greedy.token_ids else base.argmax_id
    first_text = model.codec.decode([first])
    parsed = parse_yes_no(base.greedy.text, len(first_text), setup.parse_rule)
    decisions: dict[str, Answer | None] = {
        name: max_logit_decision(logprobs, s) for name, s in readouts.items()
    }
    decisions["string_parse"] = parsed.decision
    return YesNoRecord(
        **base.model_dump(),
        label=source.label,
        split=source.split,
        image=source.image,
        form_answers=setup.answers,
        first_token_id=first,
        first_token=first_text,
        yes_ids=list(sets.dynamic.yes),
        no_ids=list(sets.dynamic.no),
        multi_token_forms=[form for form, _ in sets.dynamic.multi_token],
        first_token_in_sets=first in sets.dynamic.ids,
        legacy_pair=list(setup.legacy_pair) if setup.legacy_pair else None,
        legacy_set=_pairs(sets.legacy_set),
        algorithm1_set=_pairs(sets.algorithm1),
        in_context_set=_pairs(readouts.get("dynamic_in_context")),
        set_logprobs=logprobs,
        set_tokens={i: model.codec.decode([i]) for i in wanted},
        decisions=decisions,
        parsed_answer=parsed.answer,
        parse_offset=parsed.offset,
        parse_in_first_token=parsed.in_first_token,
    )


def diagnose(
    model: ScoringModel,
    jobs: Sequence[PreparedItem],
    sets: ModelSets,
    *,
    sample: int = DIAGNOSTIC_SAMPLE,
    seed: int = 0,
    batch_size: int = DEFAULT_BATCH_SIZE,
) -> dict[str, Any]:
    """Seed 002's Algorithm 1, lines 1-9: the first tokens t_k of a sample against Y ∪ N.

    Lines 2-6: a seeded sample of questions, t_k = argmax ℓ_k at each one's scored position;
    lines 7-8 (:func:`algorithm1_diagnostic`) with the legacy set as Y and N.
    """
    rng = np.random.default_rng(seed)
    chosen = sorted(rng.choice(len(jobs), size=min(sample, len(jobs)), replace=False).tolist())
    first: list[int] = []
    for start in range(0, len(chosen), batch_size):
        batch = [jobs[i] for i in chosen[start : start + batch_size]]
        answers = model.score_positions(
            [
                PositionRequest(job.rendering.token_ids, inputs=job.rendering.model_inputs)
                for job in batch
            ]
        )
        first += [scores.distribution.argmax()[0] for scores in answers]
    surfaces = {t: model.codec.token_surface(t) for t in set(first)}
    return {
        "sample": len(chosen),
        "seed": seed,
        **algorithm1_diagnostic(first, surfaces, sets.legacy_set),
    }


def audit_yesno(
    model: ScoringModel, settings: YesNoSettings, out: RunOut, run: RunSettings | None = None
) -> ScoreResult:
    """Run the yes/no audit: Algorithm 1's diagnostic on a sample, then every question's readouts.

    A vision-language model sees each item's image before its question; a text model reads
    the question alone (the image name is still recorded). An item with its own raw ``prompt``
    is scored at the end of that prompt instead of the chat template's.

    With ``extend_sets`` (the default, Algorithm 1 line 8), the diagnostic's proposed yes/no
    ids join the legacy Y and N, read as the ``algorithm1`` readout; either way the findings
    are kept in the run directory (``artifacts/diagnostic.json``, with ``extended``), reused
    when the run resumes, and reported in the summary.
    """
    check_model(model)
    run = run or RunSettings()
    setup, items, greedy_tokens = settings.setup(), settings.loaded, settings.greedy_tokens
    setup.check_vocabulary(model.codec.vocab_size)
    if greedy_tokens < 1:
        raise InputError("the string-parse readout needs at least 1 greedy token", field="greedy")
    kwargs = dict(run.template_kwargs)
    built = [yesno_item(item, setup, with_image=model.capabilities.images) for item in items]
    prepared = [prepare(item, model.codec, kwargs, greedy_tokens) for item in built]
    sets = ModelSets.derive(model.codec, setup)
    seed = settings.seed
    diagnosis = _Diagnosis(settings.diagnostic_sample, seed, settings.extend_sets, run.batch_size)
    reading = _Reading(setup, run.top_k, greedy_tokens)
    config = scoring_config(built, run.top_k, greedy_tokens, kwargs)
    config.update(setup.as_config())
    config.update(sets.as_config())
    config.update(
        {
            "raw_prompt_items": sum(item.prompt is not None for item in items),
            "diagnostic_sample": settings.diagnostic_sample,
            "seed": seed,
            "extend_sets": settings.extend_sets,
        }
    )
    return run_kind(
        YESNO,
        model,
        out,
        config,
        partial(_plan, model, items, prepared, sets, diagnosis, reading),
        run,
        seeds={"diagnostic": seed, "bootstrap": seed},
    )


@dataclass(frozen=True)
class _Diagnosis:
    """How Algorithm 1's diagnostic runs before scoring."""

    sample: int
    seed: int
    extend_sets: bool
    batch_size: int


@dataclass(frozen=True)
class _Reading:
    """What every question's record reads."""

    setup: YesNoSetup
    top_k: int
    greedy_tokens: int


def _plan(
    model: ScoringModel,
    items: Sequence[YesNoItem],
    prepared: Sequence[PreparedItem],
    sets: ModelSets,
    diagnosis: _Diagnosis,
    reading: _Reading,
    run_dir: RunDirectory,
) -> list[Job[Any]]:
    """The run's jobs, once the diagnostic is read (saved in the run, reused on resume)."""
    diagnostic = run_dir.artifact("diagnostic")
    if diagnostic is None:
        diagnostic = diagnose(
            model,
            prepared,
            sets,
            sample=diagnosis.sample,
            seed=diagnosis.seed,
            batch_size=diagnosis.batch_size,
        )
        diagnostic["extended"] = diagnosis.extend_sets and sets.legacy_set is not None
        run_dir.write_artifact("diagnostic", diagnostic)
    used = sets.extended(diagnostic) if diagnosis.extend_sets else sets
    extra = sorted({i for s in used.by_readout().values() for i in s.ids})
    by_id = {item.id: item for item in items}
    return [
        Job(
            job.key,
            position_request(job.rendering, job.encodings, reading.greedy_tokens, extra),
            partial(
                yesno_record,
                job=job,
                source=by_id[job.item.id],
                setup=reading.setup,
                sets=used,
                top_k=reading.top_k,
            ),
        )
        for job in prepared
    ]


def summarise_yesno_run(run: Run[YesNoRecord]) -> YesNoSummary:
    """The summary of a yes/no run from its files: the run's seed and its saved diagnostic."""
    return summarise_yesno(
        run.records,
        seed=int(run.manifest.config.get("seed", 0)),
        diagnostic=run.artifacts.get("diagnostic"),
    )


YESNO: AuditKind[YesNoRecord, YesNoSummary] = AuditKind(
    name="yesno",
    title="yes/no audit",
    record_type=YesNoRecord,
    summary_type=YesNoSummary,
    summarise=summarise_yesno_run,
    sections=yesno_sections,
    checks=yesno_checks,
    paired_metrics=yesno_paired_metrics,
    headline=yesno_headline,
)
register_kind(YESNO)
