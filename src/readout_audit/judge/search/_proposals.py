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
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from readout_audit._util._jsonl import write_json_atomic
from readout_audit.log import Manifest
from readout_audit.model._backend import ScoringModel
from readout_audit.model._codec import TextCodec

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
_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class BeamSettings:
    """The seed's search: widths, depth and the retention quotas."""

    first_width: int = 256
    width: int = 12
    depth: int = 7
    per_word: int = 5
    per_depth: int = 48
    cap: int = 256


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


def propose(
    model: ScoringModel,
    contexts: Sequence[str] = PROPOSAL_CONTEXTS,
    settings: BeamSettings = BeamSettings(),
) -> list[Proposal]:
    """The archive of every context's beam: admissible strings, each with its best score."""
    codec = model.codec
    special = set(codec.tokenizer.all_special_ids)
    archive: dict[str, Proposal] = {}
    for index, context in enumerate(contexts):
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
    return list(archive.values())


def retain(
    archive: Sequence[Proposal],
    settings: BeamSettings = BeamSettings(),
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


def write_proposals(
    model: ScoringModel,
    out: str | Path,
    settings: BeamSettings = BeamSettings(),
    contexts: Sequence[str] = PROPOSAL_CONTEXTS,
) -> tuple[list[Proposal], list[Proposal]]:
    """Propose, retain, and write the proposals file: its manifest, the retained pool, the archive.

    The file is written whole or not at all; returns the archive and the retained pool.
    """
    archive = propose(model, contexts, settings)
    kept = retain(archive, settings)
    config = {"settings": asdict(settings), "contexts": list(contexts)}
    manifest = Manifest.create("proposals", model.info, config)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_json_atomic(
        out,
        {
            "manifest": manifest.model_dump(mode="json"),
            "retained": [asdict(p) for p in kept],
            "archive": [asdict(p) for p in sorted(archive, key=lambda p: (-p.logprob, p.text))],
        },
    )
    return archive, kept
