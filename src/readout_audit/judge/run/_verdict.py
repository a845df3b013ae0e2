"""A chat judge's reply read: the verdict it returned and each label's displayed probability.

The verdict is the reply's JSON ``verdict`` when that is one of the labels; a reply that is not
JSON counts when its text (surrounding whitespace aside) is exactly one label. The
probabilities are read at the token where the verdict's value starts, located by character
offsets in the concatenated token strings: for each label, exp(logprob) of the ``top_logprobs``
entry that is the longest non-empty prefix of that label and of no other label. They are used
as returned: never renormalised, never inferred from the verdict or a cutoff; a label with no
such entry has None.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from readout_audit._util import parse_bounded

_VERDICT_KEY = re.compile(r'"verdict"[ \t\n\r]*:[ \t\n\r]*"')
"""The JSON text just before the verdict's value (JSON's own whitespace only)."""
QUOTED_CHARS = 80
"""How much of a reply an error message quotes."""


class ChatVerdict(NamedTuple):
    """What a reply says: the verdict (None: none read), each label's probability, and why not.

    ``label_probs`` is None when the reply shows no log-probs at the verdict's token; ``error``
    says why the verdict, or the probabilities of a verdict read, are missing.
    """

    verdict: str | None
    label_probs: dict[str, float | None] | None
    error: str | None


def reply_choice(reply: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The first choice of a chat completion reply, or None when it has none."""
    choices = reply.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
        return choices[0]
    return None


def read_chat_verdict(reply: Mapping[str, Any], labels: Sequence[str]) -> ChatVerdict:
    """The verdict of a chat completion reply and each label's probability, as returned."""
    choice = reply_choice(reply) or {}
    message = choice.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(content, str):
        return ChatVerdict(None, None, "the reply has no message content")
    verdict, start, error = _verdict(content, labels)
    if verdict is None or start is None:
        return ChatVerdict(verdict, None, error)
    probs, why = _label_probs(choice.get("logprobs"), content, start, labels)
    return ChatVerdict(verdict, probs, why)


def _verdict(content: str, labels: Sequence[str]) -> tuple[str | None, int | None, str | None]:
    """The verdict, the offset in ``content`` where its value starts, and why either is missing."""
    try:
        value = parse_bounded(lambda: json.loads(content))
    except ValueError:
        text = content.strip()
        if text in labels:
            return text, content.index(text), None
        return None, None, f"the reply is neither JSON nor a label: {content[:QUOTED_CHARS]!r}"
    if not isinstance(value, dict) or "verdict" not in value:
        return None, None, f"the reply's JSON has no verdict: {content[:QUOTED_CHARS]!r}"
    verdict = value["verdict"]
    if not isinstance(verdict, str) or verdict not in labels:
        return None, None, f"the verdict {verdict!r} is not one of the labels {list(labels)}"
    # json.loads keeps the last of repeated keys: the last plainly written value is the one.
    starts = [
        match.end()
        for match in _VERDICT_KEY.finditer(content)
        if content.startswith(verdict + '"', match.end())
    ]
    if not starts:
        return verdict, None, "the verdict's value is not written plainly: no probabilities"
    return verdict, starts[-1], None


def _label_probs(
    logprobs: Any, content: str, start: int, labels: Sequence[str]
) -> tuple[dict[str, float | None] | None, str | None]:
    """Each label's probability at the token holding offset ``start``, or why there are none."""
    entries = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    if not isinstance(entries, list) or not entries:
        return None, "the reply shows no log-probs"
    if not all(isinstance(e, Mapping) and isinstance(e.get("token"), str) for e in entries):
        return None, "the reply's log-probs are not token entries"
    if "".join(entry["token"] for entry in entries) != content:
        return None, "the log-probs' tokens do not spell the reply's content"
    offset = 0
    for at in entries:  # the tokens spell the content, so one of them holds ``start``
        if offset + len(at["token"]) > start:
            break
        offset += len(at["token"])
    top = at.get("top_logprobs")
    if not isinstance(top, list) or not top:
        return None, "the reply shows no top_logprobs at the verdict's token"
    lead = content[offset:start]
    return {label: _probability(top, lead, label, labels) for label in labels}, None


def _probability(top: list[Any], lead: str, label: str, labels: Sequence[str]) -> float | None:
    """exp(logprob) of the longest entry spelling ``lead`` + a prefix of ``label`` alone.

    The token at the verdict's start may begin before it (``lead``, e.g. a quote); an entry
    counts only when it begins with the same text. Entries of one string with different
    log-probs (two token ids) leave the label's probability None: which one it is is unknown.
    """
    best, values = 0, set()
    for item in top:
        token = item.get("token") if isinstance(item, Mapping) else None
        logprob = item.get("logprob") if isinstance(item, Mapping) else None
        if not isinstance(token, str) or not token.startswith(lead):
            continue
        if isinstance(logprob, bool) or not isinstance(logprob, int | float):
            continue
        if math.isnan(logprob) or logprob > 0:
            continue
        rest = token[len(lead) :]
        if not rest or not label.startswith(rest):
            continue
        if any(other.startswith(rest) for other in labels if other != label):
            continue
        if len(rest) > best:
            best, values = len(rest), {float(logprob)}
        elif len(rest) == best:
            values.add(float(logprob))
    return math.exp(values.pop()) if len(values) == 1 else None
