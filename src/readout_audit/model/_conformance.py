"""How far a served endpoint's numbers can be trusted: fixed prompts, served vs a local forward.

Each check compares what the endpoint returns with the same weights run locally and gives a
verdict (pass, fail, or unavailable where the endpoint cannot say): tokenisation, BOS, echo
alignment (a log-prob read one position off is told apart from a right one by comparing it
with the local log-probs at each shift), the chat template, top-k coverage, determinism of
repeated requests, and the largest log-prob difference against a tolerance for the weights'
quantisation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel

from readout_audit._exceptions import CapabilityError
from readout_audit.model._backend import ScoringModel
from readout_audit.model._distribution import TokenDistribution
from readout_audit.model._served_calls import (
    ReplyError,
    chat_call,
    echo_call,
    greedy_call,
    read_echo,
    read_greedy,
    tokenize_call,
    tokens_of,
    top_ids,
    unpenalised,
    usage_tokens,
)
from readout_audit.model._served_sanity import ImpossibleReply, check_greedy
from readout_audit.serve import CallResult, HttpCall, redact_url

if TYPE_CHECKING:  # the served model's readouts take this module's float32 budget
    from readout_audit.model._served import ServedModel

Verdict = Literal["pass", "fail", "unavailable"]
CONFORMANCE_FILE = "conformance.json"

RAW_PROMPTS = (
    "The capital of France is",
    "def add(a, b):\n    return a +",
    "Question: Is the sky blue on a clear day?\nAnswer:",
    "Zürich, São Paulo and Kraków are cities; 12 + 30 =",
)
CHAT_QUESTIONS = (
    "Which number is larger?\nA. 17\nB. 71\nAnswer with the letter only.",
    "Is water wet? Answer yes or no.",
    "Name one primary colour.",
)
CHAT_STEM = "The answer is"
"""Text after the assistant turn opens, so the echoed tail holds no special token."""
TOKENIZE_EXTRA = (" leading space", "emoji 🙂 and 漢字", "tabs\tand\r\nnewlines", "")
TOLERANCE = {
    "F32": 0.01,
    "F16": 0.05,
    "BF16": 0.05,
    "Q8_0": 0.15,
    "Q6_K": 0.2,
    "Q5_K": 0.2,
    "Q5_0": 0.2,
    "Q5_1": 0.2,
    "Q4_K": 0.25,
    "Q4_0": 0.25,
    "Q4_1": 0.25,
}
"""Largest |served − local| log-prob accepted, by the weights' type. The local forward runs the
same file dequantised to float32, the server also quantises activations: measured 0.072 at most
on Q4_1 (llama-cpp-python, SmolLM2-135M); each bound is about three times such a gap."""
TAIL_TOKENS = 12

FLOAT32_BUDGET = 1e-4
"""Absolute budget of one float32 log-probability per 64 context tokens (docs/architecture.md,
Numerics): two float32 computations of one value differ by rounding within it."""


def float32_budget(n_tokens: int) -> float:
    """The float32 tolerance of a log-likelihood read after ``n_tokens`` context tokens."""
    return FLOAT32_BUDGET * max(1.0, n_tokens / 64)


class Check(BaseModel):
    """One conformance check: its verdict, what was seen, and the number behind it."""

    name: str
    verdict: Verdict
    detail: str
    value: float | None = None


class EndpointConformance(BaseModel):
    """Every check on one endpoint."""

    endpoint: str
    server: str
    checks: list[Check]

    @property
    def conforms(self) -> bool:
        """No check failed and at least one passed.

        An unavailable check is not a failure, but an endpoint that answered no check (a server
        that crashes on every request) is not vouched for.
        """
        verdicts = {c.verdict for c in self.checks}
        return "fail" not in verdicts and "pass" in verdicts


class Conformance(BaseModel):
    """``conformance.json``: the verdicts of every endpoint against the local reference."""

    schema_version: int = 1
    model: str
    reference: str
    reference_sha256: list[str]
    quantisation: str | None
    tolerance: float
    endpoints: list[EndpointConformance]
    limit: int | None = None
    """Only the first ``limit`` probe prompts were checked (``--limit``); None: all of them."""

    @property
    def conforms(self) -> bool:
        """Every endpoint conforms."""
        return all(e.conforms for e in self.endpoints)

    def verdicts(self) -> dict[str, dict[str, str]]:
        """Endpoint → check → verdict, as a run's manifest records them."""
        return {e.endpoint: {c.name: c.verdict for c in e.checks} for e in self.endpoints}


def tolerance_for(quantisation: str | None) -> float:
    """The tolerance for a weights type (unknown types get the loosest one listed)."""
    if quantisation is None:
        return TOLERANCE["F32"]
    return TOLERANCE.get(quantisation.upper(), max(TOLERANCE.values()))


@dataclass
class _Prompt:
    form: Literal["raw", "chat"]
    text: str
    ids: list[int]
    tail: int
    """Trailing tokens without special ones, whose echoed log-probs are compared."""


def _prompts(local: ScoringModel, limit: int | None = None) -> list[_Prompt]:
    """The probe prompts, raw ones first, or the first ``limit`` of them."""
    codec = local.codec
    specials = set(getattr(codec.tokenizer, "all_special_ids", []))
    texts: list[tuple[Literal["raw", "chat"], str]] = [("raw", t) for t in RAW_PROMPTS]
    if codec.chat_template is not None:
        texts += [
            ("chat", codec.render_chat([{"role": "user", "content": q}], {}) + CHAT_STEM)
            for q in CHAT_QUESTIONS
        ]
    prompts = []
    for form, text in texts[:limit]:
        ids = [*codec.prefix_ids, *codec.encode(text)] if form == "raw" else codec.encode(text)
        tail = 0
        while tail < min(TAIL_TOKENS, len(ids) - 2) and ids[-1 - tail] not in specials:
            tail += 1
        prompts.append(_Prompt(form, codec.decode(ids), ids, tail))
    return prompts


def _shifted(
    dists: Sequence[TokenDistribution], ids: Sequence[int], tail: int
) -> dict[int, np.ndarray]:
    """Local log-probs of the tail tokens read at their own position (0), one late, one early."""
    n = len(ids)
    out = {}
    for shift in (0, 1, -1):
        values = []
        for i in range(n - tail, n):
            j = i - 1 + shift
            lp = dists[j].logprob(ids[i]) if 0 <= j < n else None
            values.append(math.nan if lp is None else lp)
        out[shift] = np.asarray(values, dtype=np.float64)
    return out


SHIFT_NAMES = {0: "at its own position", 1: "one position late", -1: "one position early"}


class _Probe:
    """The calls of one endpoint's checks, sent together through its ledger."""

    def __init__(self, served: ServedModel, local: ScoringModel, prompts: list[_Prompt]) -> None:
        self.served, self.local, self.prompts = served, local, prompts
        name, server, k = served.spec.model, served.server, served.settings.top_logprobs
        self.echo = [echo_call(name, p.text) for p in prompts]
        ids, extra = served.dialect.token_ids, unpenalised(server)
        self.greedy = [greedy_call(name, p.text, 1, k, token_ids=ids, extra=extra) for p in prompts]
        self.repeat = [
            HttpCall(c.path, {**c.body, "user": "conformance-repeat"}, c.prompt_tokens_max, 1)
            for c in (*self.echo, *self.greedy)
        ]
        texts = [p.text for p in prompts] + list(TOKENIZE_EXTRA)
        self.tokenize = [tokenize_call(server, name, t) for t in texts]
        self.chat = [
            chat_call(name, [{"role": "user", "content": q}], {}, 1, min(k, 20), extra)
            for q in CHAT_QUESTIONS
        ]

    def calls(self) -> list[HttpCall]:
        """Every call of the checks."""
        calls = [*self.echo, *self.greedy, *self.repeat, *self.chat]
        return calls + [c for c in self.tokenize if c is not None]

    def run(self) -> dict[str, CallResult]:
        return {r.key: r for r in self.served.run_calls(self.calls())}


def _reply(results: Mapping[str, CallResult], call: HttpCall) -> Mapping[str, Any] | None:
    result = results[call.key]
    return result.response if result.state == "completed" else None


def _logprobs_of(reply: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A completion reply's first choice's ``logprobs`` (None: absent or not an object)."""
    choices = reply.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    logprobs = first.get("logprobs") if isinstance(first, Mapping) else None
    return logprobs if isinstance(logprobs, Mapping) else None


def _require_logprobs(probe: _Probe, results: Mapping[str, CallResult]) -> None:
    """A ``CapabilityError`` when the endpoint answered completions but no log-probabilities."""
    replies = [_reply(results, call) for call in (*probe.echo, *probe.greedy)]
    answered = [reply for reply in replies if reply is not None]
    if answered and all(_logprobs_of(reply) is None for reply in answered):
        raise CapabilityError(
            f"{redact_url(probe.served.spec.base_urls[0])} returned no log-probabilities: its "
            f"{len(answered)} completion replies carry no 'logprobs', so conformance has "
            "nothing to compare with the local reference"
        )


def check_endpoint(
    served: ServedModel,
    local: ScoringModel,
    tolerance: float,
    progress: Callable[[str], None] | None = None,
    limit: int | None = None,
) -> EndpointConformance:
    """Run every check on one endpoint (``served`` must name a single endpoint).

    ``progress`` gets a line before each long step (the requests, the local reference);
    ``limit`` reads only the first ``limit`` probe prompts (raw ones first).
    """
    say = progress or (lambda line: None)
    prompts = _prompts(local, limit)
    probe = _Probe(served, local, prompts)
    say(f"sending {len(probe.calls())} probe requests (echo, greedy, repeats, chat, tokenize)")
    results = probe.run()
    _require_logprobs(probe, results)
    say(f"reading the local reference's distributions on {len(prompts)} prompts")
    dists = [local.prefix_logprobs(p.ids) for p in prompts]
    checks = [
        _tokenisation(probe, results),
        _bos(probe, results),
        *_alignment_and_difference(probe, results, dists, tolerance),
        _chat_template(probe, results, tolerance),
        _top_k(probe, results, dists),
        _determinism(probe, results),
    ]
    return EndpointConformance(
        endpoint=served.spec.base_urls[0], server=served.server, checks=checks
    )


def _tokenisation(probe: _Probe, results: Mapping[str, CallResult]) -> Check:
    codec = probe.local.codec
    texts = [p.text for p in probe.prompts] + list(TOKENIZE_EXTRA)
    if any(c is None for c in probe.tokenize):
        return Check(name="tokenisation", verdict="unavailable", detail="no tokenize endpoint")
    differ = []
    for text, call in zip(texts, probe.tokenize, strict=True):
        assert call is not None
        reply = _reply(results, call)
        try:
            tokens = tokens_of(reply) if reply is not None else None
        except ReplyError as error:
            return Check(name="tokenisation", verdict="fail", detail=str(error))
        if tokens is None:
            return Check(name="tokenisation", verdict="unavailable", detail="tokenize failed")
        if tokens != codec.encode(text):
            differ.append(text)
    return Check(
        name="tokenisation",
        verdict="fail" if differ else "pass",
        detail=f"{len(texts) - len(differ)}/{len(texts)} texts tokenised alike"
        + (f"; first difference on {differ[0]!r}" if differ else ""),
        value=float(len(differ)),
    )


def _bos(probe: _Probe, results: Mapping[str, CallResult]) -> Check:
    extra = []
    for prompt, call in zip(probe.prompts, probe.echo, strict=True):
        reply = _reply(results, call)
        counted = usage_tokens(reply) if reply is not None else None
        if counted is None:
            return Check(name="bos", verdict="unavailable", detail="no usage.prompt_tokens")
        extra.append(counted - len(prompt.ids))
    added = sorted(set(extra))
    return Check(
        name="bos",
        verdict="pass" if added == [0] else "fail",
        detail="the server counts exactly the local tokens"
        if added == [0]
        else f"the server counts {added} tokens more than the local rendering (a BOS added?)",
        value=float(max(extra, key=abs)),
    )


def _alignment_and_difference(
    probe: _Probe,
    results: Mapping[str, CallResult],
    dists: Sequence[Sequence[TokenDistribution]],
    tolerance: float,
) -> list[Check]:
    codec = probe.local.codec
    found: dict[str, list[int]] = {"raw": [], "chat": []}
    largest = 0.0
    problems = []
    for prompt, call, dist in zip(probe.prompts, probe.echo, dists, strict=True):
        reply = _reply(results, call)
        tail_text = codec.decode(prompt.ids[-prompt.tail :])
        try:
            served = np.asarray(read_echo(reply or {}, prompt.text, tail_text, prompt.tail))
        except ReplyError as error:
            problems.append(f"{prompt.form} {prompt.text[-20:]!r}: {error}")
            continue
        local = _shifted(dist, prompt.ids, prompt.tail)
        gaps = {s: float(np.nanmean(np.abs(served - v))) for s, v in local.items()}
        best = min(gaps, key=lambda s: gaps[s])
        found[prompt.form].append(best)
        if best == 0:
            largest = max(largest, float(np.nanmax(np.abs(served - local[0]))))
    alignment = [
        Check(
            name=f"echo_alignment_{form}",
            verdict="unavailable" if not shifts else ("pass" if set(shifts) == {0} else "fail"),
            detail=(
                f"{form} prompts: each token's log-prob read "
                + ", ".join(sorted({SHIFT_NAMES[s] for s in shifts}))
                if shifts
                else f"no readable echo of a {form} prompt"
            )
            + ("; unreadable: " + "; ".join(problems[:2]) if problems else ""),
        )
        for form, shifts in found.items()
    ]
    compared = any(s == 0 for shifts in found.values() for s in shifts)
    difference = Check(
        name="logprob_difference",
        verdict=("pass" if largest <= tolerance else "fail") if compared else "unavailable",
        detail=f"largest |served − local| over aligned echoed tokens {largest:.4f} "
        f"(tolerance {tolerance})"
        if compared
        else "no echoed token was read at its own position to compare",
        value=largest if compared else None,
    )
    return [*alignment, difference]


def _chat_template(probe: _Probe, results: Mapping[str, CallResult], tolerance: float) -> Check:
    codec, local = probe.local.codec, probe.local
    if codec.chat_template is None:
        return Check(name="chat_template", verdict="unavailable", detail="no local chat template")
    issues, largest = [], 0.0
    for question, call in zip(CHAT_QUESTIONS, probe.chat, strict=True):
        reply = _reply(results, call)
        ids = codec.encode(codec.render_chat([{"role": "user", "content": question}], {}))
        try:
            content = reply["choices"][0]["logprobs"]["content"][0]  # type: ignore[index]
            token, value = str(content["token"]), float(content["logprob"])
        except (KeyError, IndexError, TypeError, ValueError):
            return Check(
                name="chat_template", verdict="unavailable", detail="no chat completion log-probs"
            )
        counted = usage_tokens(reply or {})
        if counted != len(ids):
            issues.append(f"{counted} prompt tokens served, {len(ids)} rendered locally")
        token_id = probe.served.surface_ids().get(token)
        local_lp = local.next_token_logprobs([ids], [token_id] if token_id is not None else [])[0]
        if token_id is None or (lp := local_lp.logprob(token_id)) is None:
            issues.append(f"first token {token!r} maps to no single local id")
            continue
        largest = max(largest, abs(lp - value))
    if largest > tolerance:
        issues.append(f"first-token log-prob differs by {largest:.4f}")
    return Check(
        name="chat_template",
        verdict="fail" if issues else "pass",
        detail="; ".join(issues) or f"same prompt length; first-token |Δ| ≤ {largest:.4f}",
        value=largest,
    )


def _top_k(
    probe: _Probe, results: Mapping[str, CallResult], dists: Sequence[Sequence[TokenDistribution]]
) -> Check:
    surfaces = probe.served.surface_ids()
    coverage, mapped, agree = [], [], 0
    for call, dist, prompt in zip(probe.greedy, dists, probe.prompts, strict=True):
        reply = _reply(results, call)
        if reply is None:
            return Check(name="top_k", verdict="unavailable", detail="greedy completion failed")
        try:
            greedy = read_greedy(reply)
            check_greedy(greedy, float32_budget(len(prompt.ids)), call)
        except ImpossibleReply as error:
            return Check(name="top_k", verdict="fail", detail=f"impossible log-probs: {error}")
        except ReplyError as error:
            return Check(name="top_k", verdict="unavailable", detail=str(error))
        top = greedy.top
        coverage.append(sum(math.exp(v) for v in top.values()))
        ids = top_ids(top, surfaces)
        mapped.append(len(ids) / max(len(top), 1))
        best = max(ids, key=lambda i: ids[i]) if ids else None
        agree += int(best == dist[-1].argmax()[0])
    n = len(probe.greedy)
    return Check(
        name="top_k",
        verdict="pass" if agree == n else "fail",
        detail=f"top-{probe.served.settings.top_logprobs} holds {min(coverage):.3f}–"
        f"{max(coverage):.3f} of the mass; {np.mean(mapped):.0%} of its strings map to one "
        f"local id; served argmax = local argmax on {agree}/{n} prompts",
        value=min(coverage),
    )


DETERMINISM_TOLERANCE = 1e-4
"""Largest |Δ| between a request and its repeat still counted as the same answer: a server may
batch the repeat with other work, and float32 rounding then differs (seen as 0 here)."""


def _logprob_entries(reply: Mapping[str, Any]) -> dict[str, float]:
    """Every log-prob of a completion reply, keyed by where it sits (position, token).

    A ``ReplyError`` when one is not a number.
    """
    logprobs = _logprobs_of(reply) or {}
    try:
        entries = {
            f"{i}": math.nan if v is None else float(v)
            for i, v in enumerate(logprobs.get("token_logprobs") or [])
        }
        for i, top in enumerate(logprobs.get("top_logprobs") or []):
            entries |= {f"{i}:{token}": float(v) for token, v in (top or {}).items()}
    except (TypeError, ValueError, AttributeError):
        raise ReplyError("a log-prob of the reply is not a number") from None
    return entries


def _determinism(probe: _Probe, results: Mapping[str, CallResult]) -> Check:
    identical, largest = 0, 0.0
    for first, again in zip((*probe.echo, *probe.greedy), probe.repeat, strict=True):
        a, b = _reply(results, first), _reply(results, again)
        if a is None or b is None:
            return Check(name="determinism", verdict="unavailable", detail="a repeat failed")
        try:
            one, two = _logprob_entries(a), _logprob_entries(b)
        except ReplyError as error:
            return Check(name="determinism", verdict="unavailable", detail=str(error))
        if one.keys() != two.keys():
            largest = math.inf  # other tokens, or another top-k
            continue
        gaps = [
            abs(one[k] - two[k]) for k in one if not (math.isnan(one[k]) and math.isnan(two[k]))
        ]
        gap = max(gaps, default=0.0)
        identical += int(gap == 0.0)
        largest = max(largest, gap)
    n = len(probe.repeat)
    return Check(
        name="determinism",
        verdict="pass" if largest <= DETERMINISM_TOLERANCE else "fail",
        detail=f"{identical}/{n} repeated requests returned identical log-probs; largest "
        f"|Δ| {largest:.2g} (tolerance {DETERMINISM_TOLERANCE:g})",
        value=largest,
    )
