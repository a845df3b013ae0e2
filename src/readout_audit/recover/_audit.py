"""The recovery run (seed 003): every readout of every split from one forward pass per item.

Each item is read at two positions of the same forward: the prompt's end and the answer slot
(hidden states of the chosen layers, stored beside the records), and at the slot the candidate
continuations (full-string and first-token scores) and the label logits through the output
layer. Probes, offsets, nulls and slices are computed afterwards from the run's files alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from readout_audit._exceptions import CapabilityError, InputError
from readout_audit.data import LogicItem
from readout_audit.kind import Job, RunOut, RunSettings, ScoreResult, run_kind
from readout_audit.log import RunDirectory
from readout_audit.model import (
    PositionScores,
    ScoringModel,
    TextCodec,
    Unembedding,
    check_model,
)
from readout_audit.prompt import render
from readout_audit.readout import position_request
from readout_audit.recover._record import RecoverRecord, Role
from readout_audit.recover._setup import Configuration, RecoverSetup
from readout_audit.recover._store import HiddenLayout, HiddenWriter
from readout_audit.recover._truncate import Fitted, fit_to_limit
from readout_audit.scoring import PreparedItem, items_sha256, prepare, score_item

if TYPE_CHECKING:
    from readout_audit.recover._settings import RecoverRun

RESERVED = ("train", "fit")


def _text_key(item: LogicItem) -> str:
    """An item's text, case and spacing folded: the same statement in the same context."""
    return " ".join(f"{item.context}\n{item.statement}".lower().split())


def shared_items(a: Sequence[LogicItem], b: Sequence[LogicItem]) -> list[str]:
    """Ids of ``b``'s items that ``a`` holds too: the same context and statement.

    Case and spacing are folded; ids alone do not tell (generated splits restart their ids).
    """
    texts = {_text_key(i) for i in a}
    return [i.id for i in b if _text_key(i) in texts]


LABEL_METADATA = ("polarity", "source_label")
"""Metadata fields that give a generated item's label away: dropped with the fit split's labels."""


def _unlabelled(item: LogicItem) -> LogicItem:
    """The item without its label, nor any metadata field that tells it."""
    metadata = {k: v for k, v in item.metadata.items() if k not in LABEL_METADATA}
    return item.model_copy(update={"label": None, "metadata": metadata})


@dataclass(frozen=True)
class RecoverSplits:
    """The items of a recovery run by role: probe training, offset fit, held-out evaluation."""

    fit: Sequence[LogicItem]
    """Unlabelled in-domain items the offsets are fitted on (their labels are dropped)."""
    evals: Mapping[str, Sequence[LogicItem]]
    """Held-out labelled splits by name (``id``, ``depth``, ``lexical``, ``test`` ...)."""
    train: Sequence[LogicItem] = ()
    """Labelled items the probes and the bag-of-words baseline are trained on (optional)."""

    def __post_init__(self) -> None:
        if not self.fit:
            raise InputError("the offset-fit split holds no items", field="fit")
        if not self.evals:
            raise InputError("name at least one held-out split", field="eval")
        for name, items in self.evals.items():
            if name in RESERVED or not name:
                raise InputError(f"{name!r} cannot name a held-out split", field="eval")
            if not items:
                raise InputError(f"held-out split {name!r} holds no items", field="eval")
        for role, items in (("train", self.train), *self.evals.items()):
            for item in items:
                if item.label is None:
                    raise item.error(f"split {role!r} needs a label on every item", "label")
        for name, items in self.evals.items():
            shared = shared_items(self.fit, items)
            if shared:
                raise InputError(
                    f"held-out split {name!r} shares {len(shared)} item(s) with the offset-fit "
                    f"split (the same text: {', '.join(shared[:3])}): the offsets would be "
                    "fitted on what they are scored on",
                    field="eval",
                )

    def train_overlap(self) -> dict[str, int]:
        """Held-out items per split that the probe training split also holds (by their text)."""
        found = {name: len(shared_items(self.train, items)) for name, items in self.evals.items()}
        return {name: n for name, n in found.items() if n}

    def roles(self) -> list[tuple[str, Role, list[LogicItem]]]:
        """(split name, role, items) in scoring order; the fit split's labels removed."""
        unlabelled = [_unlabelled(item) for item in self.fit]
        named: list[tuple[str, Role, list[LogicItem]]] = []
        if self.train:
            named.append(("train", "train", list(self.train)))
        named.append(("fit", "fit", unlabelled))
        named += [(name, "eval", list(items)) for name, items in self.evals.items()]
        return named


def _prompt_end(prepared: PreparedItem, codec: Any, template_kwargs: Mapping[str, Any]) -> int:
    """The last context position shared with the prompt rendered without the answer slot."""
    bare = render(prepared.item.model_copy(update={"stem": None}), codec, template_kwargs)
    full = prepared.rendering.token_ids
    shared = 0
    for a, b in zip(bare.token_ids, full, strict=False):
        if a != b:
            break
        shared += 1
    if shared == 0 or shared == len(full):
        raise prepared.item.error(
            "the answer slot adds no token of its own after the prompt", "stem"
        )
    return shared - 1


def _candidate_logits(
    head: Unembedding, state: np.ndarray, firsts: Sequence[int | None], known: Sequence[int]
) -> list[float | None]:
    """z_y = h·w_y + b_y for each candidate's first token (None where it has none)."""
    z = head.weight.astype(np.float64) @ state.astype(np.float64)
    if head.bias is not None:
        z += head.bias
    by_id = dict(zip(known, z.tolist(), strict=True))
    return [by_id[t] if t is not None else None for t in firsts]


def _layer_logits(
    model: ScoringModel,
    head: Unembedding,
    hidden: np.ndarray,
    layers: Sequence[int],
    firsts: Sequence[int | None],
    known: Sequence[int],
) -> list[list[list[float | None]]] | None:
    """The candidates' logits at both positions and every stored layer (None: no final norm).

    A layer below the last goes through the model's final norm first, as the last one has.
    """
    try:
        normed = model.final_norm(hidden[:, :-1])
    except CapabilityError:
        return None
    states = np.concatenate([normed, hidden[:, -1:]], axis=1)
    return [
        [_candidate_logits(head, states[p, j], firsts, known) for j in range(len(layers))]
        for p in range(states.shape[0])
    ]


def recover_record(
    model: ScoringModel,
    scores: PositionScores,
    *,
    job: PreparedItem,
    source: LogicItem,
    split: str,
    role: Role,
    prompt_end: int,
    store: HiddenWriter | None,
    top_k: int,
    truncation: tuple[int, int | None] = (0, 0),
) -> RecoverRecord:
    """One item's readouts: candidate scores, label logits from the slot's last hidden state."""
    base = score_item(model, job, top_k=top_k, scores=scores)
    row, logits, lens = None, None, None
    if store is not None and scores.hidden is not None:
        row = store.append(scores.hidden)
        firsts = base.option_first_ids
        known = [t for t in firsts if t is not None]
        head = model.unembedding(known)
        logits = _candidate_logits(head, scores.hidden[1, -1], firsts, known)
        lens = _layer_logits(model, head, scores.hidden, store.layout.layers, firsts, known)
    return RecoverRecord(
        **base.model_dump(),
        split=split,
        role=role,
        label=source.label,
        depth=source.depth,
        text=f"{source.context.strip()}\n{source.statement.strip()}",
        prompt_end_index=prompt_end,
        hidden_row=row,
        label_logits=logits,
        layer_logits=lens,
        truncated_words=truncation[0],
        truncated_tokens=truncation[1],
    )


@dataclass(frozen=True)
class Planned:
    """One item of one split under one configuration, rendered and checked."""

    prepared: PreparedItem
    source: LogicItem
    """The item as scored (its context cut at the token limit where it was too long)."""
    split: str
    role: Role
    prompt_end: int
    dropped_words: int = 0
    dropped_tokens: int | None = 0


def plan_items(
    splits: RecoverSplits,
    setup: RecoverSetup,
    codec: TextCodec,
    template_kwargs: Mapping[str, Any],
    greedy_tokens: int = 0,
) -> list[Planned]:
    """Every item rendered under every configuration, cut to the token limit and the window.

    The first configuration takes every item; the others (surface controls) the first
    ``setup.variant_items`` of each split. An item longer than ``setup.max_tokens`` (or the
    model's window) loses the first words of its context (:func:`fit_to_limit`).
    """
    chat = setup.uses_chat(codec)
    windows = [w for w in (setup.max_tokens, codec.context_window) if w is not None]
    token_limit = min(windows) if windows else None
    planned = []
    for index, configuration in enumerate(setup.configurations):
        limit = setup.variant_items if index > 0 else None

        def build(source: LogicItem, configuration: Configuration = configuration) -> PreparedItem:
            built = configuration.item(source, chat=chat)
            return prepare(built, codec, template_kwargs, greedy_tokens, configuration.name)

        for name, role, items in splits.roles():
            for source in items[:limit]:
                if token_limit is None:
                    fitted = Fitted(build(source), source)
                else:
                    fitted = fit_to_limit(source, build, token_limit - greedy_tokens)
                end = _prompt_end(fitted.prepared, codec, template_kwargs)
                planned.append(
                    Planned(
                        fitted.prepared,
                        fitted.source,
                        name,
                        role,
                        end,
                        fitted.dropped_words,
                        fitted.dropped_tokens,
                    )
                )
    return planned


def recover_jobs(
    planned: Sequence[Planned], store: HiddenWriter | None, greedy_tokens: int, top_k: int
) -> list[Job[Any]]:
    """The jobs of planned items: one position request each, hidden states where stored."""
    jobs = []
    for p in planned:
        request = position_request(p.prepared.rendering, p.prepared.encodings, greedy_tokens)
        if store is not None:
            request = dataclasses.replace(
                request, hidden_positions=(p.prompt_end, -1), hidden_layers=store.layout.layers
            )
        record = partial(
            recover_record,
            job=p.prepared,
            source=p.source,
            split=p.split,
            role=p.role,
            prompt_end=p.prompt_end,
            store=store,
            top_k=top_k,
            truncation=(p.dropped_words, p.dropped_tokens),
        )
        jobs.append(Job((p.split, p.prepared.item.id, p.prepared.variant), request, record))
    return jobs


def hidden_layout(model: ScoringModel, setup: RecoverSetup) -> HiddenLayout | None:
    """What each stored row holds for this model, or None when it exposes no hidden states."""
    if not model.capabilities.hidden_states:
        return None
    layers = setup.resolved_layers(model.hidden_layer_count())
    return HiddenLayout(layers=layers, dim=model.unembedding([0]).weight.shape[1])


def audit_recover(
    model: ScoringModel, settings: RecoverRun, out: RunOut, run: RunSettings | None = None
) -> ScoreResult:
    """Score every split under every configuration into ``out``; the summary does the rest.

    Every item is rendered and checked against the model's window before any is scored.
    """
    from readout_audit.recover._kind import RECOVER

    check_model(model)
    run = run or RunSettings()
    setup, splits, greedy_tokens = settings.setup, settings.read_splits, settings.greedy_tokens
    kwargs, top_k = dict(run.template_kwargs), run.top_k
    codec = model.codec
    layout = hidden_layout(model, setup)
    planned = plan_items(splits, setup, codec, kwargs, greedy_tokens)

    def plan(run_dir: RunDirectory) -> list[Job[Any]]:
        store = HiddenWriter(run_dir.directory, layout) if layout is not None else None
        return recover_jobs(planned, store, greedy_tokens, top_k)

    config: dict[str, Any] = {
        **setup.as_config(),
        "chat_template": setup.uses_chat(codec),
        "splits": {
            name: {"role": role, "n": len(items), "items_sha256": items_sha256(items)}
            for name, role, items in splits.roles()
        },
        "hidden": layout.as_config() if layout is not None else None,
        **({"train_overlap": overlap} if (overlap := splits.train_overlap()) else {}),
        "top_k": top_k,
        "greedy_tokens": greedy_tokens,
        "template_kwargs": kwargs,
    }
    seeds = {"analysis": setup.seed, **{f"probe_{i}": s for i, s in enumerate(setup.probe_seeds)}}
    return run_kind(
        RECOVER,
        model,
        out,
        config,
        plan,
        run,
        seeds=seeds,
    )
