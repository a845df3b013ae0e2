"""The calls of one scored position on a served model, and how their replies become its scores."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from readout_audit._exceptions import CapabilityError
from readout_audit.model._backend import PositionRequest, PositionScores
from readout_audit.model._conformance import float32_budget
from readout_audit.model._distribution import TokenDistribution
from readout_audit.model._served_calls import (
    ReplyError,
    chat_call,
    continuation_count,
    echo_call,
    greedy_call,
    read_chat,
    read_echo,
    read_greedy,
    tokenize_call,
    tokens_of,
    top_ids,
    unpenalised,
)
from readout_audit.model._served_sanity import (
    ImpossibleReply,
    check_greedy,
    check_logprobs,
    check_mass,
)
from readout_audit.serve import CallResult, HttpCall

if TYPE_CHECKING:
    from readout_audit.model._served import ServedModel


@dataclass(frozen=True)
class Unsettled:
    """A scored position the endpoint did not answer (yet), with the reason."""

    reason: str


@dataclass(frozen=True)
class PositionPlan:
    """The calls of one scored position and how to assemble their replies."""

    request: PositionRequest
    prompt: str
    greedy: HttpCall | None
    """The temperature-0 completion (or chat completion) that gives the top-k and greedy text;
    None where a chat API cannot score the context."""
    conts: list[list[int]]
    """The requested continuations, then each wanted token that is no continuation's first."""
    texts: list[str | None]
    """Each continuation's text after the prompt; None where it does not decode after it."""
    echoes: list[HttpCall | None]
    tokenize: list[HttpCall | None]
    """The server's tokenisation of the prompt, then of the prompt + each continuation (None
    where the server has no tokenize endpoint)."""
    refused: str | None = None
    """The prompt's form when conformance refused its echoed log-probs: nothing is sent."""

    @classmethod
    def make(cls, model: ServedModel, request: PositionRequest) -> PositionPlan:
        if request.inputs:
            raise CapabilityError(f"{model.info.spec} takes no inputs besides text (images)")
        if request.hidden_positions:
            raise CapabilityError(f"{model.info.spec} does not expose hidden states")
        codec, name = model.codec, model.spec.model
        prompt = codec.decode(request.context)
        firsts = {c[0] for c in request.continuations if c}
        conts = [list(c) for c in request.continuations]
        conts += [[w] for w in sorted(set(request.want_ids) - firsts)]
        texts: list[str | None] = []
        for cont in conts:
            full = codec.decode([*request.context, *cont])
            texts.append(full[len(prompt) :] if full.startswith(prompt) and cont else None)
        length, k = max(1, request.greedy_tokens), model.settings.top_logprobs
        extra = unpenalised(model.server)
        if not model.settings.chat:
            greedy: HttpCall | None = greedy_call(
                name, prompt, length, k, token_ids=model.dialect.token_ids, extra=extra
            )
        elif request.chat is not None:
            chat = request.chat
            greedy = chat_call(name, chat.messages, chat.template_kwargs, length, k, extra)
        else:
            greedy = None
        form = model.form(request.context)
        refused = form in model.refused_forms and model.echo and any(t is not None for t in texts)
        return cls(
            request=request,
            prompt=prompt,
            greedy=greedy,
            conts=conts,
            texts=texts,
            echoes=[
                echo_call(name, prompt + t) if t is not None and model.echo else None for t in texts
            ],
            tokenize=[
                tokenize_call(model.server, name, prompt + t)
                if t is not None and model.echo
                else None
                for t in ["", *texts]
            ],
            refused=form if refused else None,
        )

    def calls(self) -> list[HttpCall]:
        """Every call of this position (the runner sends a repeated one once).

        None where conformance refused the readout: nothing is sent that would not be read.
        """
        if self.refused is not None:
            return []
        return [c for c in (self.greedy, *self.echoes, *self.tokenize) if c is not None]

    def read(
        self, model: ServedModel, results: Mapping[str, CallResult]
    ) -> PositionScores | Unsettled:
        """The position's scores, or why it stays unsettled."""
        if self.greedy is None:
            return Unsettled(
                "a chat API scores only a context that is exactly its chat turns' rendering "
                "(this one has an answer stem or is a raw prompt)"
            )
        if self.refused is not None:
            return Unsettled(
                "conformance found this endpoint's echoed log-probs of "
                f"{self.refused} prompts read at the wrong position; they are not used "
                "(--allow-nonconforming overrides)"
            )
        for call in self.calls():
            result = results[call.key]
            if result.state != "completed" or result.response is None:
                return Unsettled(f"request {call.key[:12]} {result.state}: {result.error}")
        try:
            return self._assemble(model, results)
        except ImpossibleReply as error:
            model.refuse(error.calls, str(error))
            return Unsettled(
                f"context {self.prompt[-40:]!r}: the endpoint answered impossible log-probs "
                f"({error}); its requests are marked failed in the ledger, a rerun sends them "
                "again"
            )
        except ReplyError as error:
            return Unsettled(f"context {self.prompt[-40:]!r}: {error}")

    def _assemble(self, model: ServedModel, results: Mapping[str, CallResult]) -> PositionScores:
        def reply(call: HttpCall) -> Mapping[str, Any]:
            return results[call.key].response or {}

        request = self.request
        assert self.greedy is not None
        chat = self.greedy.path == "/chat/completions"
        greedy = (read_chat if chat else read_greedy)(reply(self.greedy))
        budget = float32_budget(len(request.context) + max(map(len, self.conts), default=1))
        check_greedy(greedy, budget, self.greedy)
        surfaces = model.surface_ids()
        known = top_ids(greedy.top, surfaces)
        context_call, *full_calls = self.tokenize
        context_tokens = tokens_of(reply(context_call)) if context_call is not None else None
        scored: list[np.ndarray] = []
        echoed: dict[int, float] = {}  # distinct first tokens of one distribution: mass ≤ 1
        for index, (cont, text, echo, full_call) in enumerate(
            zip(self.conts, self.texts, self.echoes, full_calls, strict=True)
        ):
            if not model.echo:  # a lone first token from the top-k, else unavailable (NaN)
                lone = known.get(cont[0]) if len(cont) == 1 else None
                if index < len(request.continuations):
                    values_or_nan = [lone] if lone is not None else [math.nan] * len(cont)
                    scored.append(np.asarray(values_or_nan, dtype=np.float32))
                continue
            if text is None or echo is None:
                raise ReplyError(f"continuation {index} does not decode after the context")
            if context_tokens is not None and full_call is not None:
                full = tokens_of(reply(full_call))
                if continuation_count(context_tokens, full) is None:
                    raise ReplyError(
                        f"the server's tokens of the context change when {text!r} follows"
                    )
                if list(full[len(context_tokens) :]) != list(cont):
                    raise ReplyError(
                        f"the server's tokens of {text!r} after the context are not the local "
                        "ones, so its log-probs would sit on other tokens"
                    )
            values = read_echo(reply(echo), self.prompt + text, text, len(cont))
            check_logprobs(values, f"the echo of {text!r}", budget, [echo])
            known[cont[0]] = values[0]
            echoed[cont[0]] = values[0]
            if index < len(request.continuations):
                scored.append(np.asarray(values, dtype=np.float32))
        echoes = [call for call in self.echoes if call is not None]
        check_mass(list(echoed.values()), "the options' first tokens", budget, echoes)
        greedy_ids = model.codec.encode(greedy.text)[: request.greedy_tokens]
        return PositionScores(
            distribution=TokenDistribution(known=known),
            continuations=scored,
            greedy=greedy_ids if request.greedy_tokens > 0 else [],
        )
