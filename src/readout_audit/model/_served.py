"""A model served behind an OpenAI-compatible API (vLLM, SGLang, llama.cpp server), scored by HTTP.

Contexts are rendered and encoded with the model's own tokenizer, loaded locally without the
weights, and sent as text; every request goes through the run's ledger and paced pools
(:mod:`readout_audit.serve`). What each readout is, and how exact, is stated in ``methods``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, field_validator

from readout_audit._exceptions import (
    CapabilityError,
    InputError,
    ModelNotAvailableError,
    ReadoutError,
)
from readout_audit._util import INT_MAX, CheckedSettings, decode_json, option_hint
from readout_audit.model._backend import (
    DEFAULT_BATCH_SIZE,
    Capabilities,
    ModelFile,
    ModelInfo,
    PositionRequest,
    PositionScores,
    ScoringModel,
)
from readout_audit.model._codec import TextCodec
from readout_audit.model._dialects import Server, dialect, server_owning
from readout_audit.model._distribution import TokenDistribution
from readout_audit.model._executor import Executor
from readout_audit.model._generation import GenerationSettings
from readout_audit.model._load import load_codec
from readout_audit.model._served_calls import byte_bound
from readout_audit.model._served_plan import PositionPlan, Unsettled
from readout_audit.model._served_spec import ServedSpec, parse_served_spec
from readout_audit.serve import (
    MAX_CONCURRENCY,
    CallResult,
    CostCap,
    Endpoint,
    HttpCall,
    Ledger,
    RequestRunner,
    RetryPolicy,
    execution_record,
    get,
    redact_url,
)


class ServedSettings(CheckedSettings):
    """How to talk to the endpoints: key, server, pools, pacing, timeouts, cost cap, top-k."""

    api_key_env: str | None = Field(default=None, json_schema_extra=option_hint(metavar="NAME"))
    """A served model: environment variable holding the API key (never stored)."""
    server: Server = "auto"
    """A served model: which server answers (auto: from GET /models' owned_by); decides the
    tokenize endpoint and the sampling fields sent."""
    echo: bool | None = None
    """A served model: whether the endpoint echoes prompt log-probs (default: every known
    server does; a plain OpenAI-compatible API does not)."""
    chat: bool = Field(default=False, json_schema_extra=option_hint("--chat-api", dest="chat_api"))
    """A served model: score through /chat/completions only (an API without /completions);
    the server renders the turns, so contexts with an answer stem or a raw prompt are not
    scored."""
    concurrency: int = Field(default=4, ge=1, le=MAX_CONCURRENCY, strict=True)
    """A served model: requests in flight per endpoint."""
    starts_per_s: float | None = Field(default=None, gt=0)
    """A served model: request starts per second per endpoint (default unpaced)."""
    timeout_s: float = Field(
        default=120.0,
        gt=0,
        json_schema_extra=option_hint("--request-timeout", dest="request_timeout"),
    )
    """A served model: seconds a request may take, connect to the answer's last byte; a sent
    request past it counts as unknown (never resent)."""
    cap: CostCap | None = None
    """The cost cap over the run's ledger: none unless tokens or money is capped."""
    top_logprobs: int = Field(
        default=20, ge=1, le=INT_MAX, strict=True, json_schema_extra=option_hint(skip=True)
    )
    """Top-k asked at the scored position (vLLM's default limit is 20)."""
    headers: Mapping[str, str] = Field(
        default_factory=dict, repr=False, json_schema_extra=option_hint(skip=True)
    )
    """More request headers (never written to the ledger, a log or an error)."""

    @field_validator("cap")
    @classmethod
    def _capped(cls, cap: CostCap | None) -> CostCap | None:
        """No cost cap unless tokens or money is capped: prices alone limit nothing."""
        if cap is None or (cap.max_tokens is None and cap.max_usd is None):
            return None
        return cap

    def endpoints(self, urls: Sequence[str]) -> list[Endpoint]:
        """An endpoint per URL, with these pools, pacing, timeout, key and headers."""
        headers = {**api_headers(self.api_key_env), **self.headers}
        return [
            Endpoint(url, self.concurrency, self.starts_per_s, self.timeout_s, headers)
            for url in urls
        ]


def api_headers(api_key_env: str | None) -> dict[str, str]:
    """``Authorization`` from the named environment variable (errors name it, never its value)."""
    if api_key_env is None:
        return {}
    key = os.environ.get(api_key_env)
    if not key:
        raise InputError(f"environment variable {api_key_env} is not set", field="api-key-env")
    return {"Authorization": f"Bearer {key}"}


def detect_server(base_url: str, headers: Mapping[str, str], timeout: float) -> str:
    """Which server answers at ``base_url``, from ``GET /models``' ``owned_by``.

    The listing must come whole within ``timeout`` seconds, redirects within its origin included.
    """
    endpoint = Endpoint(base_url, timeout_s=timeout, headers=headers)
    try:
        listing = decode_json(get(endpoint, "/models").decode())
    except ValueError as error:
        raise ModelNotAvailableError(
            f"{redact_url(base_url)}/models did not answer: {redact_url(str(error))}"
        ) from None
    models = listing.get("data", []) if isinstance(listing, Mapping) else []
    return server_owning({m.get("owned_by") for m in models if isinstance(m, Mapping)})


class ServedModel(ScoringModel):
    """Readouts from an OpenAI-compatible endpoint, with the local tokenizer as the codec."""

    def __init__(
        self,
        spec: ServedSpec,
        codec: TextCodec,
        files: tuple[ModelFile, ...],
        settings: ServedSettings,
    ) -> None:
        self.spec, self.codec, self.settings = spec, codec, settings
        self.endpoints = settings.endpoints(spec.base_urls)
        self.server = (
            settings.server
            if settings.server != "auto"
            else detect_server(
                spec.base_urls[0], self.endpoints[0].headers, min(settings.timeout_s, 30.0)
            )
        )
        self.dialect = dialect(self.server)
        echo = settings.echo if settings.echo is not None else self.dialect.echoes
        self.echo = echo and not settings.chat
        self.capabilities = Capabilities(
            full_distribution=False,
            top_k_limit=settings.top_logprobs,
            hidden_states=False,
            cache_reuse=False,
        )
        self.info = ModelInfo(
            spec=str(spec),
            name=spec.model,
            files=files,
            dtype="as served",
            context_window=codec.context_window,
            tokenizer=codec.name,
            chat_template_sha256=codec.chat_template_sha256,
            device="served",
            served={"server": self.server, "endpoints": list(spec.base_urls), **self.methods},
        )
        self.runner: RequestRunner | None = None
        """The request runner while the model is bound to a ledger (see :meth:`ledger`)."""
        self._surfaces: dict[str, int] | None = None
        self.refused_forms: set[str] = set()
        """Prompt forms (``chat``, ``raw``) whose echoed log-probs conformance found misread."""
        self._chat_opening = (
            codec.encode(codec.render_chat([{"role": "user", "content": "x"}], {}))[:1]
            if codec.chat_template is not None
            else None
        )

    def form(self, context: Sequence[int]) -> str:
        """``chat`` when the context opens as the chat template renders, else ``raw``.

        Servers differ by this (llama-cpp-python aligns echoed log-probs only after a
        beginning-of-sequence token, which SmolLM2's chat turns open with).
        """
        return "chat" if list(context[:1]) == self._chat_opening else "raw"

    @property
    def methods(self) -> dict[str, str]:
        """How each readout is obtained from this endpoint, and how exact it is."""
        aligned = (
            "the server's own /tokenize"
            if self.dialect.tokenize is not None
            else "the local tokenizer (the server has no tokenize endpoint)"
        )
        methods = {
            "option_loglik": f"echo log-probs of context + option, aligned by {aligned}",
            "option_mass": "exact: each distinct first token's echo log-prob",
            "top_k": f"top-{self.settings.top_logprobs} of a temperature-0 completion's first "
            "step, token strings mapped to ids by the local vocabulary (ambiguous ones dropped)",
            "argmax": "the top-k's first entry",
            "greedy": "a temperature-0 completion, re-encoded by the local tokenizer",
        }
        if self.settings.chat:
            methods["top_k"] = (
                f"top-{self.settings.top_logprobs} of a temperature-0 chat completion's first "
                "token (the server renders the turns), strings mapped to ids by the local "
                "vocabulary"
            )
            methods["greedy"] = "the chat completion's text, re-encoded by the local tokenizer"
        if not self.echo:
            methods["option_loglik"] = (
                "unavailable (no echo): a single-token option's first-step log-prob where the "
                "top-k holds it, else None"
            )
            methods["option_mass"] = (
                "a lower bound from the top-k (option_mass_lower), with the top-k's own mass "
                "as its coverage (top_k_mass)"
            )
        return methods

    @contextmanager
    def ledger(self, path: str | Path) -> Iterator[RequestRunner]:
        """Send this model's requests through the ledger at ``path`` while the block runs."""
        with Ledger(path) as ledger:
            self.runner = RequestRunner(self.endpoints, ledger, cap=self.settings.cap)
            try:
                yield self.runner
            finally:
                self.runner = None

    def execution(self) -> dict[str, Any]:
        """Its endpoints (without credentials), pools, pacing, timeout, retries and cost cap."""
        return execution_record(self.endpoints, RetryPolicy(), self.settings.cap)

    @contextmanager
    def bound_to(self, ledger: Path) -> Iterator[None]:
        """Every request while the block runs goes through the ledger file ``ledger``.

        A model already bound (a caller's own ``ledger`` block) stays bound to that one.
        """
        if self.runner is not None:
            yield
            return
        with self.ledger(ledger):
            yield

    def run_calls(self, calls: Sequence[HttpCall]) -> list[CallResult]:
        """Send calls through the bound ledger; an unbound model sends nothing.

        A request outside a ledger would escape the run's record, its cost cap and the rule
        that a request of unknown outcome is never sent again.
        """
        if self.runner is None:
            raise ReadoutError(
                f"{self.info.spec}: requests to a served model go through a ledger: run it "
                "with run_kind, or inside `with model.bound_to(RUN / LEDGER_FILE):`"
            )
        return self.runner.run(calls)

    def refuse(self, calls: Sequence[HttpCall], reason: str) -> None:
        """Completed requests whose answers are impossible become failed in the bound ledger.

        Their numbers are never read as facts; a rerun sends them again.
        """
        if self.runner is not None:
            for call in calls:
                self.runner.ledger.refuse(call.key, f"impossible answer: {reason}")

    def surface_ids(self) -> dict[str, int]:
        """Token string → id for every string exactly one token of the vocabulary decodes to."""
        if self._surfaces is None:
            seen: dict[str, list[int]] = {}
            for token_id in range(self.codec.vocab_size):
                seen.setdefault(self.codec.token_surface(token_id), []).append(token_id)
            self._surfaces = {s: ids[0] for s, ids in seen.items() if len(ids) == 1 and s}
        return self._surfaces

    def settle(self, requests: Sequence[PositionRequest]) -> list[PositionScores | Unsettled]:
        """Answer every request that its replies allow; the others say why they are unsettled."""
        plans = [PositionPlan.make(self, r) for r in requests]
        calls = [call for plan in plans for call in plan.calls()]
        results = {r.key: r for r in self.run_calls(calls)}
        return [plan.read(self, results) for plan in plans]

    def score_positions(self, requests: Sequence[PositionRequest]) -> list[PositionScores]:
        """Every request answered, or an error naming the first unsettled one."""
        answers = self.settle(requests)
        for answer in answers:
            if isinstance(answer, Unsettled):
                raise CapabilityError(f"{self.info.spec}: {answer.reason}")
        return [a for a in answers if isinstance(a, PositionScores)]

    def next_token_logprobs(
        self, contexts: Sequence[Sequence[int]], want_ids: Sequence[int] = ()
    ) -> list[TokenDistribution]:
        """Top-k plus the wanted ids' exact log-probabilities after each context."""
        requests = [PositionRequest(context=c, want_ids=want_ids) for c in contexts]
        return [s.distribution for s in self.score_positions(requests)]

    def continuation_logprobs(
        self, context: Sequence[int], continuations: Sequence[Sequence[int]]
    ) -> list[np.ndarray]:
        """Echoed per-token log-probabilities of each continuation."""
        request = PositionRequest(context=context, continuations=continuations)
        return self.score_positions([request])[0].continuations

    def generate(self, context: Sequence[int], settings: GenerationSettings) -> list[int]:
        """A seeded completion with these settings, as far as the server takes them."""
        generated = self.generations([self.generation_call(context, settings)])[0]
        if isinstance(generated, Unsettled):
            raise CapabilityError(f"{self.info.spec}: {generated.reason}")
        return generated

    def generation_call(self, context: Sequence[int], settings: GenerationSettings) -> HttpCall:
        """The completion request of one generation (sent through the ledger by the caller).

        ``min_new_tokens`` exists only on vLLM and SGLang (``min_tokens``); elsewhere it is
        refused rather than dropped. The server leaves a stop string out of the text.
        """
        prompt = self.codec.decode(context)
        body: dict[str, Any] = {
            "model": self.spec.model,
            "prompt": prompt,
            "max_tokens": settings.max_new_tokens,
            "seed": settings.seed,
            **sampling_fields(self.server, settings),
        }
        if settings.stop_strings:
            body["stop"] = list(settings.stop_strings)
        if settings.min_new_tokens:
            if not self.dialect.min_tokens:
                raise CapabilityError(
                    f"{self.info.spec} ({self.server}) takes no minimum of new tokens; "
                    f"the answer step asks for {settings.min_new_tokens} (use --answers greedy)"
                )
            body["min_tokens"] = settings.min_new_tokens
        return HttpCall("/completions", body, byte_bound(prompt), settings.max_new_tokens)

    def generations(self, calls: Sequence[HttpCall]) -> list[list[int] | Unsettled]:
        """Send generations concurrently through the bound ledger; each one's tokens or reason."""
        answers: list[list[int] | Unsettled] = []
        for result in self.run_calls(calls):
            choices = (result.response or {}).get("choices")
            if result.state != "completed" or not isinstance(choices, list) or not choices:
                answers.append(Unsettled(f"generation {result.state}: {result.error}"))
            else:
                answers.append(self.codec.encode(str(choices[0].get("text", ""))))
        return answers

    def executor(self, batch_size: int = DEFAULT_BATCH_SIZE) -> Executor:
        """Concurrent calls through the bound ledger, settled in groups (see ServedExecutor)."""
        from readout_audit.model._served_executor import ServedExecutor

        return ServedExecutor(self, batch_size)

    def greedy(self, context: Sequence[int], max_new_tokens: int) -> list[int]:
        """The endpoint's temperature-0 continuation, re-encoded by the local tokenizer."""
        request = PositionRequest(context=context, greedy_tokens=max_new_tokens)
        return self.score_positions([request])[0].greedy


def sampling_fields(server: str, settings: GenerationSettings) -> dict[str, Any]:
    """A completion request's sampling fields, so the server samples as ``settings`` say.

    Servers fill a field left out with their own default (llama.cpp: top-k 40, top-p 0.95,
    min-p 0.05; llama-cpp-python also a repeat penalty of 1.1, even at temperature 0), so the
    known servers get every warper, min-p 0 included; ``top_k`` 0 (no truncation, as in
    ``transformers``) is spelled 0 for llama.cpp, -1 for vLLM and SGLang, and left out for
    another API, whose default is no truncation.
    """
    fields: dict[str, Any] = {"temperature": settings.temperature if settings.do_sample else 0.0}
    row = dialect(server)
    if settings.do_sample:
        fields["top_p"] = settings.top_p
        if row.warpers:
            fields |= {"top_k": settings.top_k or row.no_truncation, "min_p": 0.0}
        elif settings.top_k:
            fields["top_k"] = settings.top_k
    if row.warpers or settings.repetition_penalty != 1.0:
        fields[row.penalty] = settings.repetition_penalty
    return fields


def load_served(
    spec: str, *, tokenizer: str, settings: ServedSettings, allow_download: bool = False
) -> ServedModel:
    """A served model spec with its local tokenizer (``tokenizer``: a local model spec)."""
    parsed = parse_served_spec(spec)
    codec, files = load_codec(tokenizer, allow_download=allow_download)
    return ServedModel(parsed, codec, files, settings)
