"""A causal LM through ``transformers``: full float32 distributions, KV-cache reuse."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch.profiler import record_function
from transformers import DynamicCache, StoppingCriteriaList, StopStringCriteria

from readout_audit._exceptions import CapabilityError
from readout_audit.model._backend import (
    Capabilities,
    ModelInfo,
    PositionRequest,
    PositionScores,
    ScoringModel,
    Unembedding,
)
from readout_audit.model._codec import TextCodec
from readout_audit.model._continuations import batched_continuations, working_precision
from readout_audit.model._decode import CacheSteps, decoder_for, greedy_decode
from readout_audit.model._distribution import TokenDistribution
from readout_audit.model._generation import GENERATION_DEFAULTS, GenerationSettings
from readout_audit.model._kv_cache import (
    CACHE_BUDGET_BYTES,
    KeyValues,
    cache_bytes_per_token,
    cache_of,
    chunked,
    zeroed,
)
from readout_audit.model._prefix import (
    PrefixPlan,
    plan_prefixes,
    shared_length,
    shares_prefixes,
    tail_groups,
)

_FINAL_NORMS = ("norm", "final_layer_norm", "final_layernorm", "ln_f")
"""Names of the final norm in ``transformers`` decoders (Llama/Qwen/OLMo, GPT-NeoX/OPT, Phi,
GPT-2/Falcon)."""


def _log_softmax(logits: torch.Tensor) -> torch.Tensor:
    """Log-probabilities over the vocabulary (last axis) in the working precision."""
    return working_precision(logits).log_softmax(-1)


def _hidden_at(
    states: Sequence[torch.Tensor], row: int, width: int, request: PositionRequest
) -> np.ndarray:
    """A request's hidden states from a left-padded forward: (positions, layers, dim)."""
    n = len(request.context)
    columns = []
    for position in request.hidden_positions:
        if not -n <= position < n:
            raise ValueError(f"hidden position {position} is outside a context of {n} tokens")
        columns.append(width - n + position % n)
    layers = [states[layer] for layer in request.hidden_layers]
    picked = torch.stack([torch.stack([layer[row, c] for layer in layers]) for c in columns])
    return picked.float().cpu().numpy()


class TransformersModel(ScoringModel):
    """Scores with a ``transformers`` causal LM on the CPU or an accelerator.

    :meth:`score_positions` encodes a batch of contexts once and serves every distribution,
    option and greedy continuation from that forward's key-value cache; the single-context
    methods are that same path with one request.
    """

    def __init__(self, model: Any, codec: TextCodec, info: ModelInfo) -> None:
        self._model = model.eval()
        self.codec = codec
        self.info = info
        self.capabilities = Capabilities(
            full_distribution=True,
            top_k_limit=None,
            hidden_states=True,
            cache_reuse=True,
            images=hasattr(codec, "image_inputs"),
        )
        self._device = next(model.parameters()).device
        self._prefixes: dict[tuple[int, ...], KeyValues] = {}
        """The last batch's shared prefixes (or its one context), encoded: the next batch
        starts from them."""
        self.encoded_tokens = 0
        """Tokens through the model in forwards over contexts (prefixes and remainders)."""
        self.share_prefixes = shares_prefixes("auto", self._device.type)
        """Encode prefixes shared within a batch, or with the last batch, once (False: every
        context in full, as a plain forward does); by default on the CPU only."""
        self.cache_budget = CACHE_BUDGET_BYTES
        """Bytes one forward's key-value cache may take (:meth:`chunks`)."""
        self.decoder = decoder_for(self._model, self._device.type)
        """Greedy steps over a static cache captured as a CUDA graph (on CUDA; None: steps
        that grow the prefill's cache, as on the CPU)."""

    @property
    def module(self) -> Any:
        """The torch model itself: what a fine-tuning step (a LoRA adapter) trains."""
        return self._model

    def _ids(self, rows: Sequence[Sequence[int]]) -> torch.Tensor:
        return torch.tensor([list(row) for row in rows], dtype=torch.long, device=self._device)

    def next_token_logprobs(
        self, contexts: Sequence[Sequence[int]], want_ids: Sequence[int] = ()
    ) -> list[TokenDistribution]:
        """Full next-token log-probabilities after each context (``want_ids`` is not needed)."""
        return [TokenDistribution(row) for row in self._batched_last_logprobs(contexts)]

    def prefix_logprobs(self, ids: Sequence[int]) -> list[TokenDistribution]:
        """Every position's distribution from one forward over ``ids`` (no padding)."""
        if not ids:
            return []
        with torch.inference_mode():
            out = self._model(input_ids=self._ids([ids]), use_cache=False)
        return [TokenDistribution(row) for row in _log_softmax(out.logits[0]).cpu().numpy()]

    def _left_padded(
        self,
        contexts: Sequence[Sequence[int]],
        use_cache: bool,
        inputs: Mapping[str, Any] | None = None,
        hidden: bool = False,
    ) -> tuple[Any, Any]:
        """One forward over left-padded contexts (and their other inputs): output and mask.

        ``hidden`` keeps every layer's hidden states (``out.hidden_states``) for the caller to
        pick positions from; they are dropped with the output.
        """
        extra = {k: v.to(self._device) for k, v in (inputs or {}).items()}
        width = max(len(context) for context in contexts)
        ids = torch.zeros((len(contexts), width), dtype=torch.long)
        mask = torch.zeros((len(contexts), width), dtype=torch.long)
        for row, context in enumerate(contexts):
            if not context:
                raise ValueError("a context must hold at least one token")
            ids[row, width - len(context) :] = torch.tensor(list(context))
            mask[row, width - len(context) :] = 1
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        self.encoded_tokens += sum(len(context) for context in contexts)
        with torch.inference_mode():
            out = self._model(
                input_ids=ids.to(self._device),
                attention_mask=mask.to(self._device),
                position_ids=positions.to(self._device),
                use_cache=use_cache,
                logits_to_keep=1,
                output_hidden_states=hidden,
                **extra,
            )
        return out, mask.to(self._device)

    def _encode_prefixes(self, plan: PrefixPlan) -> dict[tuple[int, ...], KeyValues]:
        """Each shared prefix's keys and values, encoded once after its longest known prefix.

        The tokens a prefix shares with one the previous batch encoded are taken from it
        (attention is causal: the keys and values of a sequence's first n tokens are those of
        its n-token prefix), so a few-shot block shared by consecutive batches is encoded once
        however their questions differ; the batch's own prefixes then replace the kept ones, so
        what is kept is bounded by one batch's prefixes.
        """
        encoded: list[KeyValues] = []
        for node, parent in zip(plan.nodes, plan.parents, strict=True):
            base, past = (0, None) if parent is None else (len(plan.nodes[parent]), encoded[parent])
            for key, layers in self._prefixes.items():
                n = shared_length(key, node)
                if base < n:  # causal: the first n columns of any sequence are its prefix's
                    base, past = n, [(k[:, :, :n], v[:, :, :n]) for k, v in layers]
            if base == len(node) and past is not None:
                encoded.append(past)
                continue
            cache = DynamicCache() if past is None else cache_of(past)
            positions = torch.arange(base, len(node), device=self._device)[None]
            with torch.inference_mode():
                out = self._model(
                    input_ids=self._ids([node[base:]]),
                    position_ids=positions,
                    cache=cache,
                    use_cache=True,
                    logits_to_keep=1,
                )
            self.encoded_tokens += len(node) - base
            encoded.append([(layer.keys, layer.values) for layer in out.cache.layers])
        self._prefixes = dict(zip(plan.nodes, encoded, strict=True))
        return self._prefixes

    def _shared_prefix_forward(
        self,
        contexts: Sequence[tuple[int, ...]],
        requests: Sequence[PositionRequest],
        rows: Sequence[int],
    ) -> tuple[Any, torch.Tensor, torch.Tensor, list[np.ndarray | None]] | None:
        """One forward with shared prefixes encoded once: cache, last logits, mask, hidden states.

        A context's shared prefix stops before its first hidden position, so hidden states are
        read from its own remainder. Rows whose remainders have similar lengths are run
        together (:func:`tail_groups`), and the groups' caches are left-padded into one, so
        every row still ends in the last column and the mask and positions (a row's real tokens)
        read as after :meth:`_left_padded`. None when no prefix is shared.
        """
        if not self.share_prefixes:
            return None
        limits = [len(c) - 1 for c in contexts]
        for request, row in zip(requests, rows, strict=True):
            for position in request.hidden_positions:
                limits[row] = min(limits[row], position % len(contexts[row]))
        plan = plan_prefixes(contexts, limits=limits, known=list(self._prefixes))
        if not plan.nodes:
            return None
        past_of = self._encode_prefixes(plan)
        tails = [len(c) - d for c, d in zip(contexts, plan.depths, strict=True)]
        groups = [sorted(group) for group in tail_groups(tails)]
        hidden: list[np.ndarray | None] = [None] * len(requests)
        parts = []
        for group in groups:
            local = {row: k for k, row in enumerate(group)}
            wants = [i for i, r in enumerate(requests) if r.hidden_positions and rows[i] in local]
            cache, logits, mask, states = self._remainder_forward(
                [contexts[row] for row in group],
                [plan.depths[row] for row in group],
                past_of,
                hidden=bool(wants),
            )
            for i in wants:
                hidden[i] = _hidden_at(states, local[rows[i]], states[0].shape[1], requests[i])
            del states
            parts.append((cache, logits, mask))
        if len(parts) == 1:
            return (*parts[0], hidden)
        width = max(mask.shape[1] for _, _, mask in parts)
        mask = torch.zeros((len(contexts), width), dtype=torch.long, device=self._device)
        layers = zeroed([(la.keys, la.values) for la in parts[0][0].layers], len(contexts), width)
        last = parts[0][1].new_zeros((len(contexts), parts[0][1].shape[-1]))
        for group, (cache, logits, part_mask) in zip(groups, parts, strict=True):
            index = torch.tensor(group, device=self._device)
            start = width - part_mask.shape[1]
            mask[index, start:] = part_mask
            last[index] = logits
            for (keys, values), layer in zip(layers, cache.layers, strict=True):
                keys[index, :, start:] = layer.keys
                values[index, :, start:] = layer.values
        return cache_of(layers), last, mask, hidden

    def _remainder_forward(
        self,
        contexts: Sequence[tuple[int, ...]],
        depths: Sequence[int],
        past_of: Mapping[tuple[int, ...], KeyValues],
        hidden: bool = False,
    ) -> tuple[Any, torch.Tensor, torch.Tensor, Any]:
        """The rows' remainders after their prefixes: cache, last logits and mask of the rows.

        Prefixes' keys and values are left-padded to the longest, then the remainders too.
        """
        past = max(depths)
        width = max(len(c) - d for c, d in zip(contexts, depths, strict=True))
        ids = torch.zeros((len(contexts), width), dtype=torch.long)
        mask = torch.zeros((len(contexts), past + width), dtype=torch.long)
        layers = self._past_rows(contexts, depths, past_of) if past else []
        for row, (context, depth) in enumerate(zip(contexts, depths, strict=True)):
            tail = context[depth:]
            ids[row, width - len(tail) :] = torch.tensor(tail)
            mask[row, past - depth : past] = 1
            mask[row, past + width - len(tail) :] = 1
        positions = torch.tensor(depths)[:, None] + (mask[:, past:].cumsum(-1) - 1).clamp(min=0)
        self.encoded_tokens += sum(len(c) - d for c, d in zip(contexts, depths, strict=True))
        with torch.inference_mode():
            out = self._model(
                input_ids=ids.to(self._device),
                attention_mask=mask.to(self._device),
                position_ids=positions.to(self._device),
                cache=cache_of(layers) if past else None,
                use_cache=True,
                logits_to_keep=1,
                output_hidden_states=hidden,
            )
        return out.cache, out.logits[:, -1], mask.to(self._device), out.hidden_states

    @staticmethod
    def _past_rows(
        contexts: Sequence[tuple[int, ...]],
        depths: Sequence[int],
        past_of: Mapping[tuple[int, ...], KeyValues],
    ) -> KeyValues:
        """Each row's prefix keys and values, left-padded to the deepest.

        Rows that all read one prefix get it as a view expanded across them, with no copy: the
        forward's own concatenation is then the only copy of the prefix per row.
        """
        past = max(depths)
        prefixes = {context[:depth] for context, depth in zip(contexts, depths, strict=True)}
        if len(prefixes) == 1:
            (prefix,) = prefixes
            rows = len(contexts)
            return [
                (k.expand(rows, -1, -1, -1), v.expand(rows, -1, -1, -1)) for k, v in past_of[prefix]
            ]
        layers = zeroed(next(iter(past_of.values())), len(contexts), past)
        for row, (context, depth) in enumerate(zip(contexts, depths, strict=True)):
            if depth:
                for (keys, values), (k, v) in zip(layers, past_of[context[:depth]], strict=True):
                    keys[row, :, past - depth :] = k[0]
                    values[row, :, past - depth :] = v[0]
        return layers

    def _batched_last_logprobs(self, contexts: Sequence[Sequence[int]]) -> np.ndarray:
        """Last-position log-probabilities of several contexts in one left-padded forward."""
        out, _ = self._left_padded(contexts, use_cache=False)
        return _log_softmax(out.logits[:, -1]).cpu().numpy()

    def score_positions(self, requests: Sequence[PositionRequest]) -> list[PositionScores]:
        """Answer a batch of requests from one left-padded forward over their distinct contexts.

        The batch's key-value cache then serves every multi-token continuation (a copy of each
        context's cache rows per continuation) and a batched greedy decode, so each context
        is encoded once however many readouts ask about it. A batch whose cache would exceed
        :attr:`cache_budget` is answered in chunks (:meth:`chunks`), each starting from the
        prefixes the one before encoded.
        """
        if any(r.inputs for r in requests):  # an image per row: no padding, no sharing
            return [self._score_batch([r], r.inputs)[0] for r in requests]
        answers: dict[int, PositionScores] = {}
        for chunk in self.chunks(requests):
            scored = self._score_batch([requests[i] for i in chunk])
            answers.update(zip(chunk, scored, strict=True))
        return [answers[i] for i in range(len(requests))]

    def cache_bytes_per_token(self) -> int:
        """Bytes of keys and values one token adds to the cache, over every layer."""
        return cache_bytes_per_token(self._model)

    def chunks(self, requests: Sequence[PositionRequest]) -> list[list[int]]:
        """Request indices in chunks whose cache fits :attr:`cache_budget` (:func:`chunked`)."""
        return chunked(requests, self.cache_bytes_per_token(), self.cache_budget)

    def _encode_contexts(
        self,
        contexts: Sequence[tuple[int, ...]],
        requests: Sequence[PositionRequest],
        rows: Sequence[int],
        inputs: Mapping[str, Any] | None,
    ) -> tuple[Any, torch.Tensor, torch.Tensor, list[np.ndarray | None]]:
        """The batch's contexts through the model: cache, last logits, mask, hidden states."""
        shared = None if inputs else self._shared_prefix_forward(contexts, requests, rows)
        if shared is not None:
            return shared
        wants_hidden = any(r.hidden_positions for r in requests)
        out, mask = self._left_padded(contexts, True, inputs, hidden=wants_hidden)
        # keep the cache and last logits only: every layer at every position is freed here
        cache, last, states = out.cache, out.logits[:, -1], out.hidden_states
        del out
        hidden = [
            _hidden_at(states, row, mask.shape[1], r) if r.hidden_positions else None
            for r, row in zip(requests, rows, strict=True)
        ]
        return cache, last, mask, hidden

    def _score_batch(
        self, requests: Sequence[PositionRequest], inputs: Mapping[str, Any] | None = None
    ) -> list[PositionScores]:
        if not requests:
            return []
        contexts = list(dict.fromkeys(tuple(r.context) for r in requests))
        row_of = {context: row for row, context in enumerate(contexts)}
        rows = [row_of[tuple(r.context)] for r in requests]
        with record_function("readout: contexts"):
            cache, last, mask, hidden = self._encode_contexts(contexts, requests, rows, inputs)
        if len(contexts) == 1 and not inputs and self.share_prefixes:  # kept whole for the next
            self._prefixes = {contexts[0]: [(la.keys, la.values) for la in cache.layers]}
        logprobs = _log_softmax(last)
        with record_function("readout: continuations"):
            scored = batched_continuations(self._model, cache, mask, logprobs, requests, rows)
        greedy_n = [0] * len(contexts)
        for request, row in zip(requests, rows, strict=True):
            greedy_n[row] = max(greedy_n[row], request.greedy_tokens)
        with record_function("readout: greedy"):
            decoded = self._batched_greedy(cache, mask, logprobs, greedy_n)
        table = logprobs.cpu().numpy()
        return [
            PositionScores(
                distribution=TokenDistribution(table[row]),
                continuations=continuations,
                greedy=decoded[row][: request.greedy_tokens],
                hidden=states,
            )
            for request, row, continuations, states in zip(
                requests, rows, scored, hidden, strict=True
            )
        ]

    def _batched_greedy(
        self, cache: Any, mask: torch.Tensor, first: torch.Tensor, wanted: Sequence[int]
    ) -> list[list[int]]:
        """Argmax decoding of every row at once; a row stops at its budget or end-of-turn token.

        The steps run over a static cache replayed as a graph where :attr:`decoder` is set (on
        CUDA), else over the prefill's own cache.
        """
        steps = max(wanted, default=0)
        with torch.inference_mode():
            step = self.decoder.steps(cache, mask, steps) if self.decoder and steps > 1 else None
            return greedy_decode(
                step or CacheSteps(self._model, cache, mask), first, wanted, self.codec.stop_ids
            )

    def continuation_logprobs(
        self, context: Sequence[int], continuations: Sequence[Sequence[int]]
    ) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation, all from the context's KV cache."""
        request = PositionRequest(context, continuations)
        return self.score_positions([request])[0].continuations

    def greedy(self, context: Sequence[int], max_new_tokens: int) -> list[int]:
        """Argmax decoding from the context's cache; an end-of-turn token is kept and ends it."""
        return self.score_positions([PositionRequest(context, greedy_tokens=max_new_tokens)])[
            0
        ].greedy

    def generation_defaults(self) -> dict[str, Any]:
        """The checkpoint's generation config, with lm-polygraph's defaults where it is silent."""
        config = self._model.generation_config
        values = {
            key: getattr(config, key, None) if getattr(config, key, None) is not None else default
            for key, default in GENERATION_DEFAULTS.items()
        }
        eos = config.eos_token_id
        ids = [] if eos is None else [eos] if isinstance(eos, int) else list(eos)
        return {**values, "eos_token_ids": ids}

    def generate(self, context: Sequence[int], settings: GenerationSettings) -> list[int]:
        """``transformers`` generate with these settings, seeded without touching global state."""
        warpers = (
            {"temperature": settings.temperature, "top_k": settings.top_k, "top_p": settings.top_p}
            if settings.do_sample
            else {}
        )
        stops = (
            StoppingCriteriaList(
                [StopStringCriteria(self.codec.tokenizer, list(settings.stop_strings))]
            )
            if settings.stop_strings
            else None
        )
        ids = self._ids([context])
        devices = [self._device] if self._device.type == "cuda" else []
        with torch.random.fork_rng(devices=devices), torch.inference_mode():
            torch.manual_seed(settings.seed)
            out = self._model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                do_sample=settings.do_sample,
                num_beams=1,
                min_new_tokens=settings.min_new_tokens,
                max_new_tokens=settings.max_new_tokens,
                repetition_penalty=settings.repetition_penalty,
                stopping_criteria=stops,
                **warpers,
            )
        return [int(t) for t in out[0, len(context) :].tolist()]

    def hidden_layer_count(self) -> int:
        """The decoder's layers plus the embeddings."""
        return int(self._model.config.get_text_config().num_hidden_layers) + 1

    def final_norm(self, states: np.ndarray) -> np.ndarray:
        """Hidden states through the base model's final norm module, in the model's precision."""
        base = self._model.base_model
        found = (getattr(base, name, None) for name in _FINAL_NORMS)
        norm = next((m for m in found if isinstance(m, torch.nn.Module)), None)
        if norm is None:
            raise CapabilityError(f"{self.info.spec} has no final norm among {_FINAL_NORMS}")
        weight = next(norm.parameters())
        rows = torch.from_numpy(np.ascontiguousarray(states, dtype=np.float32))
        with torch.inference_mode():
            out = norm(rows.to(weight.device, weight.dtype))
        return np.asarray(out.float().cpu().numpy())

    def unembedding(self, token_ids: Sequence[int]) -> Unembedding:
        """Rows of the output layer (the tied embeddings where they are tied) and its bias."""
        head = self._model.get_output_embeddings()
        index = torch.tensor(list(token_ids), dtype=torch.long, device=head.weight.device)
        with torch.inference_mode():
            weight = head.weight[index].float().cpu().numpy()
            bias = None if head.bias is None else head.bias[index].float().cpu().numpy()
        return Unembedding(weight=weight, bias=bias)
