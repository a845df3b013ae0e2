"""Cue proposals (seed 004): a local model's beam over short bridge strings, archived and retained.

Each proposal context is one user message through the model's chat template with the assistant
turn opened. A beam starts empty; depth one expands the 256 likeliest next tokens, deeper steps
the 12 likeliest of each beam entry, to depth 7. Every admissible expansion enters the archive
(a text keeps its best score over the contexts) before the 12 best expansions form the next
beam, ties broken by token ids. Retention then keeps at most 5 strings per first word and 48 per
token depth, 256 in all, in the order token length, score (descending), text.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._util import INT_MAX, option_hint
from readout_audit.log import (
    Manifest,
    StageFile,
    check_output_path,
    check_unlocked,
    stage_lock,
    stage_manifest_path,
    write_once,
)
from readout_audit.model import ScoringModel, TextCodec

TRANSITION = (
    "Give only a short transition phrase between an initial answer and a corrected final "
    "answer.\nInitial answer: {initial}\nCorrected final answer: {corrected}\nTransition:"
)
PHRASE = (
    "Write only a short phrase that introduces the final answer after an initial guess.\n"
    "Initial guess: blue\nFinal answer: green\nPhrase:"
)
PROPOSAL_CONTEXTS: tuple[str, ...] = (
    *(
        TRANSITION.format(initial=a, corrected=b)
        for a, b in (("Paris", "London"), ("1958", "1959"), ("June 21", "June 22"))
    ),
    PHRASE,
)
"""The seed's four proposal contexts (its two displayed first lines joined by a space)."""

BLOCKED_WORDS = frozenset(
    [
        "paris",
        "london",
        "june",
        "blue",
        "green",
        "ignore",
        "system",
        "assistant",
        "user",
        "evidence",
        "question",
        "wrong",
        "false",
        "hypothetical",
        "quote",
        "example",
    ]
)
"""Whole words (any case) no proposal may hold: the contexts' own values and loaded words."""
ALLOWED_CHARACTERS = frozenset(string.ascii_letters + " .,:;!?()'\"-\n\t")
MAX_CHARACTERS = 80
BEAMS_SUFFIX = ".beams.jsonl"
PROPOSALS_KIND = "proposals"
"""The kind of a proposals file's stage manifest."""
_WORD = re.compile(r"[A-Za-z]+")


class BeamSettings(BaseModel):
    """The seed's search: widths, depth and the retention quotas."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    first_width: int = Field(default=256, ge=1, le=INT_MAX, strict=True)
    """Top next tokens expanded at the beam's first step (from the context alone)."""
    width: int = Field(default=12, ge=1, le=INT_MAX, strict=True)
    """Strings the beam keeps after each step, and top next tokens expanded from each after
    the first."""
    depth: int = Field(default=7, ge=1, le=INT_MAX, strict=True)
    """Steps of the beam: the most tokens a proposal holds."""
    per_word: int = Field(
        default=5, ge=1, le=INT_MAX, strict=True, json_schema_extra=option_hint(skip=True)
    )
    """Retained proposals per case-folded first word."""
    per_depth: int = Field(
        default=48, ge=1, le=INT_MAX, strict=True, json_schema_extra=option_hint(skip=True)
    )
    """Retained proposals per token length."""
    cap: int = Field(
        default=256, ge=1, le=INT_MAX, strict=True, json_schema_extra=option_hint(skip=True)
    )
    """Retained proposals in all."""


SEED_BEAM = BeamSettings()
"""The seed's own widths, depth and quotas."""


@dataclass(frozen=True)
class Proposal:
    """An archived string: its tokens, its best score L_Q and the context that gave it."""

    text: str
    token_ids: tuple[int, ...]
    logprob: float
    """Σ log p(s_t | c, s_<t) under the proposing model, best over the contexts."""
    context: int

    @property
    def first_word(self) -> str:
        """The retention quota's key (:func:`first_word`)."""
        return first_word(self.text)


def first_word(text: str) -> str:
    """A string's case-folded first alphabetic word ("" when it has none)."""
    found = _WORD.search(text)
    return found.group(0).casefold() if found else ""


def writable(text: str) -> bool:
    """Every character is one a bridge may hold (a prefix that may still become admissible)."""
    return all(c in ALLOWED_CHARACTERS for c in text) and len(text) <= MAX_CHARACTERS


def inadmissible(text: str, ids: Sequence[int], codec: TextCodec) -> str | None:
    """Why a decoded expansion cannot be a bridge, or None when it can."""
    if not text or len(text) > MAX_CHARACTERS:
        return "empty or longer than 80 characters"
    if not any(c in string.ascii_letters for c in text):
        return "no ASCII letter"
    if not writable(text):
        return "a character outside the allowed set"
    if any(w.casefold() in BLOCKED_WORDS for w in _WORD.findall(text)):
        return "a blocked word"
    if "Final answer" in text:
        return "contains 'Final answer'"
    if codec.encode(text) != list(ids):
        return "does not round-trip through the tokenizer"
    return None


def context_ids(codec: TextCodec, context: str) -> list[int]:
    """A proposal context as one user message with the assistant turn opened, encoded."""
    return codec.encode(codec.render_chat([{"role": "user", "content": context}], {}))


def _beam(
    model: ScoringModel, index: int, context: str, settings: BeamSettings
) -> dict[str, Proposal]:
    """One context's archive: every admissible expansion of its beam, each with its best score."""
    codec = model.codec
    special = set(codec.tokenizer.all_special_ids)
    archive: dict[str, Proposal] = {}
    prompt = context_ids(codec, context)
    beam: list[tuple[tuple[int, ...], float]] = [((), 0.0)]
    for depth in range(1, settings.depth + 1):
        k = settings.first_width if depth == 1 else settings.width
        dists = model.next_token_logprobs([[*prompt, *ids] for ids, _ in beam])
        grown: list[tuple[tuple[int, ...], float]] = []
        for (ids, score), dist in zip(beam, dists, strict=True):
            for token, logprob in dist.top(k):
                if token not in special:
                    grown.append(((*ids, token), score + logprob))
        extendable = []
        for ids, score in grown:
            text = codec.decode(ids)
            if inadmissible(text, ids, codec) is None:
                known = archive.get(text)
                if known is None or score > known.logprob:
                    archive[text] = Proposal(text, ids, score, index)
            if writable(text):
                extendable.append((ids, score))
        beam = sorted(extendable, key=lambda e: (-e[1], e[0]))[: settings.width]
        if not beam:
            break
    return archive


def merge_beams(beams: Sequence[Sequence[Proposal]]) -> list[Proposal]:
    """The contexts' archives as one, in context order: a text keeps its best score."""
    archive: dict[str, Proposal] = {}
    for proposals in beams:
        for proposal in proposals:
            known = archive.get(proposal.text)
            if known is None or proposal.logprob > known.logprob:
                archive[proposal.text] = proposal
    return list(archive.values())


def propose(
    model: ScoringModel,
    contexts: Sequence[str] = PROPOSAL_CONTEXTS,
    settings: BeamSettings = SEED_BEAM,
) -> list[Proposal]:
    """The archive of every context's beam: admissible strings, each with its best score."""
    beams = [_beam(model, index, context, settings) for index, context in enumerate(contexts)]
    return merge_beams([list(beam.values()) for beam in beams])


def retain(
    archive: Sequence[Proposal],
    settings: BeamSettings = SEED_BEAM,
) -> list[Proposal]:
    """The retained pool: archive order (length, score descending, text) under the quotas."""
    ordered = sorted(archive, key=lambda p: (len(p.token_ids), -p.logprob, p.text))
    words: Counter[str] = Counter()
    depths: Counter[int] = Counter()
    kept: list[Proposal] = []
    for proposal in ordered:
        if len(kept) == settings.cap:
            break
        word, depth = proposal.first_word, len(proposal.token_ids)
        if words[word] < settings.per_word and depths[depth] < settings.per_depth:
            kept.append(proposal)
            words[word] += 1
            depths[depth] += 1
    return kept


class ContextBeam(BaseModel):
    """One proposal context's archive: a record of the proposals stage."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    context: int
    proposals: list[Proposal]


def beams_path(out: Path) -> Path:
    """Where the proposals stage keeps each context's archive: ``OUT.beams.jsonl``."""
    return out.with_name(out.name + BEAMS_SUFFIX)


def check_proposals_unlocked(out: str | Path) -> None:
    """Refuse at once, naming the holder, while another process proposes into ``out``."""
    check_unlocked(beams_path(Path(out)))


def _delete_stage(out: Path) -> None:
    """Delete an earlier proposals stage at ``out``, under its lock."""
    beams = beams_path(out)
    if not beams.parent.is_dir():
        return
    lock = stage_lock(beams)
    lock.acquire()
    try:
        for path in (out, beams, stage_manifest_path(beams)):
            path.unlink(missing_ok=True)
    finally:
        lock.release()


def write_proposals(
    model: ScoringModel,
    out: str | Path,
    settings: BeamSettings = SEED_BEAM,
    contexts: Sequence[str] = PROPOSAL_CONTEXTS,
    *,
    overwrite: bool = False,
) -> tuple[list[Proposal], list[Proposal]]:
    """Propose, retain, and write the proposals file: the retained pool and the archive.

    A stage: each context's archive is appended to ``OUT.beams.jsonl`` as it completes (its
    manifest beside it, the lock held throughout), so an interrupted run resumes at the next
    context; ``OUT`` is written once at the end. ``overwrite`` deletes an earlier stage first.
    Returns the archive and the retained pool.
    """
    out = Path(out)
    beams = beams_path(out)
    config = {"settings": settings.model_dump(mode="json"), "contexts": list(contexts)}
    manifest = Manifest.create(PROPOSALS_KIND, model.info, config)
    if overwrite:
        _delete_stage(out)
    with StageFile(
        beams, manifest, ContextBeam, key=lambda b: b.context, key_field="context", what="beams"
    ) as stage:
        for index, context in enumerate(contexts):
            if index not in stage.done:
                found = _beam(model, index, context, settings)
                stage.append(ContextBeam(context=index, proposals=list(found.values())))
        archive = merge_beams([stage.done[i].proposals for i in range(len(contexts))])
        kept = retain(archive, settings)
        ordered = sorted(archive, key=lambda p: (-p.logprob, p.text))
        document = {
            "retained": [asdict(p) for p in kept],
            "archive": [asdict(p) for p in ordered],
        }
        write_once(out, document, "propose into a new file (or pass --force)")
        stage.finish()
    return archive, kept


def propose_to_file(
    out: str | Path,
    settings: BeamSettings,
    open_model: Callable[[], ScoringModel],
    *,
    force: bool = False,
) -> tuple[list[Proposal], list[Proposal]]:
    """``readout judge propose``: every check that needs no model, then the model, then the stage.

    ``out`` is refused when it exists (unless ``force``) or lies in a run directory, and at once
    while another process proposes into it; ``open_model`` is called only after.
    """
    out = Path(out)
    check_output_path(out, option="out", force=force, own=(out, PROPOSALS_KIND))
    check_proposals_unlocked(out)
    return write_proposals(open_model(), out, settings, overwrite=force)
