"""The backend interface: what a model must give the readouts, and what it declares it can."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from readout_audit._exceptions import CapabilityError, InputError
from readout_audit.model._codec import TextCodec
from readout_audit.model._distribution import TokenDistribution
from readout_audit.model._generation import GENERATION_DEFAULTS, GenerationSettings

if TYPE_CHECKING:
    from readout_audit.model._executor import Executor

DEFAULT_BATCH_SIZE = 32
"""Scored positions sent to the model at once: one padded forward, one batched greedy decode.

Greedy decoding reads every weight once per step whatever the batch, so larger batches make
the continuation cheap per item; jobs are sorted by context length first, so padding is small.
"""


@dataclass(frozen=True)
class Capabilities:
    """What a backend provides; readouts check these instead of assuming them."""

    full_distribution: bool
    """``next_token_logprobs`` returns the whole vocabulary (else top-k plus requested ids)."""
    top_k_limit: int | None
    """Largest top-k a partial backend returns; None when unlimited."""
    hidden_states: bool
    """Requests may ask for hidden states (``hidden_positions``) and the unembedding is read."""
    cache_reuse: bool
    """Continuations are scored from the context's key-value cache, not by re-encoding it."""
    images: bool = False
    """Items may carry images (a vision-language model behind a processor)."""


@dataclass(frozen=True)
class PositionRequest:
    """What to read after one context: its next-token distribution, continuations, greedy text."""

    context: Sequence[int]
    continuations: Sequence[Sequence[int]] = ()
    greedy_tokens: int = 0
    want_ids: Sequence[int] = ()
    """Tokens a partial backend must include in the distribution."""
    inputs: Mapping[str, Any] | None = None
    """Model inputs besides the tokens (an image's pixel values), for backends that take them."""
    chat: Any = field(default=None, compare=False)
    """The chat turns the context renders (``prompt.ChatTurns``), where it is exactly their
    rendering: a served chat API scores from these; local backends ignore them."""
    hidden_positions: Sequence[int] = ()
    """Positions of the context (negative from its end) whose hidden states to return, from
    the same forward that gives the distribution; needs ``capabilities.hidden_states``."""
    hidden_layers: Sequence[int] = (-1,)
    """Which of the ``layers + 1`` hidden states (embeddings first; negative from the last,
    the one the unembedding reads) to return at each position."""


@dataclass(frozen=True)
class PositionScores:
    """The model's answers to one :class:`PositionRequest`."""

    distribution: TokenDistribution
    continuations: list[np.ndarray]
    """Per-token log-probabilities of each requested continuation, in order."""
    greedy: list[int]
    hidden: np.ndarray | None = None
    """Hidden states at the requested positions, shape (positions, layers, dim), float32."""


@dataclass(frozen=True)
class Unembedding:
    """The output layer's rows for some tokens: logit_t(h) = h · weight[t] + bias[t]."""

    weight: np.ndarray
    """Shape (tokens, dim), float32."""
    bias: np.ndarray | None
    """Shape (tokens,), or None when the output layer has no bias."""


@dataclass(frozen=True)
class ModelFile:
    """A file the model was loaded from, with its SHA-256, so a run can be redone exactly."""

    path: str
    sha256: str
    size: int


@dataclass(frozen=True)
class ModelInfo:
    """Everything about a loaded model that a run manifest records."""

    spec: str
    name: str
    files: tuple[ModelFile, ...]
    dtype: str
    context_window: int | None
    tokenizer: str
    chat_template_sha256: str | None
    device: str = "cpu"
    """Where the weights live (the first parameter's device with a device map)."""
    placement: dict[str, str] | None = None
    """Module → device of a ``device_map`` placement (accelerate), when one was used."""
    trust_remote_code: bool = False
    served: dict[str, Any] | None = None
    """For a served model: the server, its endpoints and how each readout is obtained."""


class ScoringModel(ABC):
    """A language model seen through token log-probabilities.

    Contexts and continuations are token ids. A *context* is the rendered prompt up to the scored
    position; a *continuation* is a token sequence that follows it. Backends return float32
    log-probabilities (log-softmax in float32, or float64 for a float64 model) and never
    decide what is scored.
    """

    codec: TextCodec
    capabilities: Capabilities
    info: ModelInfo

    @abstractmethod
    def next_token_logprobs(
        self, contexts: Sequence[Sequence[int]], want_ids: Sequence[int] = ()
    ) -> list[TokenDistribution]:
        """Distribution of the token after the end of each context (batched).

        ``want_ids`` are tokens whose log-probabilities a partial backend must include.
        """

    def prefix_logprobs(self, ids: Sequence[int]) -> list[TokenDistribution]:
        """The distribution after every prefix of ``ids``: element ``j`` follows ``ids[: j + 1]``.

        Backends that read every position of one forward override this per-prefix batch.
        """
        return self.next_token_logprobs([ids[: j + 1] for j in range(len(ids))])

    @abstractmethod
    def continuation_logprobs(
        self, context: Sequence[int], continuations: Sequence[Sequence[int]]
    ) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation given the context.

        Element ``j`` of the ``i``-th result is ``log p(cont_i[j] | context + cont_i[:j])``.
        """

    @abstractmethod
    def greedy(self, context: Sequence[int], max_new_tokens: int) -> list[int]:
        """Greedy (argmax) continuation of the context, stopping early at an end-of-turn token."""

    def score_positions(self, requests: Sequence[PositionRequest]) -> list[PositionScores]:
        """Answer several requests; backends that can batch or share work override this."""
        if any(r.inputs for r in requests):
            raise CapabilityError(f"{self.info.spec} takes no inputs besides tokens (images)")
        if any(r.hidden_positions for r in requests):
            raise CapabilityError(f"{self.info.spec} does not expose hidden states")
        return [
            PositionScores(
                distribution=self.next_token_logprobs([r.context], want_ids=r.want_ids)[0],
                continuations=(
                    self.continuation_logprobs(r.context, r.continuations)
                    if r.continuations
                    else []
                ),
                greedy=self.greedy(r.context, r.greedy_tokens) if r.greedy_tokens > 0 else [],
            )
            for r in requests
        ]

    def hidden_states(self, context: Sequence[int], position: int = -1) -> np.ndarray:
        """Hidden states of every layer at ``position`` of the context, shape (layers+1, dim)."""
        if not self.capabilities.hidden_states:
            raise CapabilityError(f"{self.info.spec} does not expose hidden states")
        layers = range(self.hidden_layer_count())
        request = PositionRequest(context, hidden_positions=(position,), hidden_layers=layers)
        hidden = self.score_positions([request])[0].hidden
        assert hidden is not None
        return np.asarray(hidden[0])

    def hidden_layer_count(self) -> int:
        """How many hidden states a position has: the layers plus the embeddings."""
        raise CapabilityError(f"{self.info.spec} does not expose hidden states")

    def unembedding(self, token_ids: Sequence[int]) -> Unembedding:
        """The output layer's weight rows (and bias) of these tokens, read from the weights."""
        raise CapabilityError(f"{self.info.spec} does not expose its output layer")

    def final_norm(self, states: np.ndarray) -> np.ndarray:
        """Hidden states (any shape ending in the model's width) through the decoder's final norm.

        What the output layer reads: the last hidden state has been through it already, an
        earlier layer's needs it before :meth:`unembedding` can read it (a logit lens).
        """
        raise CapabilityError(f"{self.info.spec} does not expose its final norm")

    def generation_defaults(self) -> dict[str, Any]:
        """The checkpoint's own generation settings (sampling, warpers, end-of-sequence ids).

        Keys are those of :data:`GENERATION_DEFAULTS` plus ``eos_token_ids``; a backend that
        cannot see the checkpoint's generation config returns the defaults and no ids.
        """
        return {**GENERATION_DEFAULTS, "eos_token_ids": []}

    def generate(self, context: Sequence[int], settings: GenerationSettings) -> list[int]:
        """Generate after the context with ``settings`` (sampled where they say so, seeded)."""
        raise CapabilityError(f"{self.info.spec} does not generate with sampling settings")

    def execution(self) -> dict[str, Any] | None:
        """How this model sends requests, for a run's manifest (None: a local model)."""
        return None

    @contextmanager
    def bound_to(self, ledger: Path) -> Iterator[None]:
        """While the block runs, a model that sends requests keeps them in ``ledger``."""
        yield

    def executor(self, batch_size: int = DEFAULT_BATCH_SIZE) -> Executor:
        """Who answers this model's requests in a run: local batches of ``batch_size``."""
        from readout_audit.model._executor import LocalExecutor

        return LocalExecutor(self, batch_size)


def check_model(model: object) -> None:
    """Refuse anything but a :class:`ScoringModel`, saying how to make one, before it is used.

    A notebook may pass a spec string or a ``transformers`` model where a loaded model belongs;
    the error names the loaders instead of a missing attribute deep in the run.
    """
    if not isinstance(model, ScoringModel):
        raise InputError(
            f"expected a ScoringModel, got {type(model).__name__}: load one with load_model(spec) "
            "or load_served(spec), or wrap a transformers model with wrap_model(model, tokenizer)",
            field="model",
        )
