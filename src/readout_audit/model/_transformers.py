"""A causal LM through ``transformers``: full float32 distributions, KV-cache reuse."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from readout_audit.model._backend import Capabilities, ModelInfo, ScoringModel
from readout_audit.model._codec import TextCodec
from readout_audit.model._distribution import TokenDistribution


class TransformersModel(ScoringModel):
    """Scores with a ``transformers`` causal LM on the CPU or an accelerator.

    The last context's key-value cache is kept, so the next-token distribution, every option's
    continuation and the greedy text of one scored position share a single forward over the
    context.
    """

    def __init__(self, model: Any, codec: TextCodec, info: ModelInfo) -> None:
        self._model = model.eval()
        self.codec = codec
        self.info = info
        self.capabilities = Capabilities(
            full_distribution=True, top_k_limit=None, hidden_states=True, cache_reuse=True
        )
        self._device = next(model.parameters()).device
        self._last: tuple[tuple[int, ...], Any, torch.Tensor] | None = None

    def _ids(self, rows: Sequence[Sequence[int]]) -> torch.Tensor:
        return torch.tensor([list(row) for row in rows], dtype=torch.long, device=self._device)

    def _context_state(self, context: Sequence[int]) -> tuple[Any, torch.Tensor]:
        """The context's KV cache and float32 next-token log-probabilities, computed once."""
        key = tuple(context)
        if not key:
            raise ValueError("a context must hold at least one token")
        if self._last is None or self._last[0] != key:
            with torch.inference_mode():
                out = self._model(input_ids=self._ids([key]), use_cache=True, logits_to_keep=1)
            logprobs = out.logits[0, -1].float().log_softmax(-1)
            self._last = (key, out.cache, logprobs)
        return self._last[1], self._last[2]

    def next_token_logprobs(
        self, contexts: Sequence[Sequence[int]], want_ids: Sequence[int] = ()
    ) -> list[TokenDistribution]:
        """Full next-token log-probabilities after each context (``want_ids`` is not needed)."""
        if len(contexts) == 1:
            _, logprobs = self._context_state(contexts[0])
            return [TokenDistribution(logprobs.cpu().numpy())]
        return [TokenDistribution(row) for row in self._batched_last_logprobs(contexts)]

    def _batched_last_logprobs(self, contexts: Sequence[Sequence[int]]) -> np.ndarray:
        """Last-position log-probabilities of several contexts in one left-padded forward."""
        width = max(len(context) for context in contexts)
        ids = torch.zeros((len(contexts), width), dtype=torch.long)
        mask = torch.zeros((len(contexts), width), dtype=torch.long)
        for row, context in enumerate(contexts):
            if not context:
                raise ValueError("a context must hold at least one token")
            ids[row, width - len(context) :] = torch.tensor(list(context))
            mask[row, width - len(context) :] = 1
        positions = (mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            out = self._model(
                input_ids=ids.to(self._device),
                attention_mask=mask.to(self._device),
                position_ids=positions.to(self._device),
                use_cache=False,
                logits_to_keep=1,
            )
        return out.logits[:, -1].float().log_softmax(-1).cpu().numpy()  # type: ignore[no-any-return]

    def continuation_logprobs(
        self, context: Sequence[int], continuations: Sequence[Sequence[int]]
    ) -> list[np.ndarray]:
        """Per-token log-probabilities of each continuation, all from the context's KV cache."""
        cache, first = self._context_state(context)
        results = [
            np.asarray([first[c[0]].item()] if c else [], dtype=np.float32) for c in continuations
        ]
        longer = [i for i, c in enumerate(continuations) if len(c) > 1]
        if not longer:
            return results
        # Feed every token but the last; right padding cannot leak into earlier positions.
        width = max(len(continuations[i]) - 1 for i in longer)
        ids = torch.zeros((len(longer), width), dtype=torch.long)
        mask = torch.zeros((len(longer), len(context) + width), dtype=torch.long)
        mask[:, : len(context)] = 1
        for row, i in enumerate(longer):
            fed = list(continuations[i][:-1])
            ids[row, : len(fed)] = torch.tensor(fed)
            mask[row, len(context) : len(context) + len(fed)] = 1
        batch_cache = copy.deepcopy(cache)
        batch_cache.batch_repeat_interleave(len(longer))
        positions = torch.arange(len(context), len(context) + width).expand(len(longer), width)
        with torch.inference_mode():
            out = self._model(
                input_ids=ids.to(self._device),
                attention_mask=mask.to(self._device),
                position_ids=positions.to(self._device),
                cache=batch_cache,
                use_cache=True,
            )
            logprobs = out.logits.float().log_softmax(-1)
        for row, i in enumerate(longer):
            targets = torch.tensor(list(continuations[i][1:]), device=self._device)
            picked = logprobs[row, torch.arange(len(targets)), targets].cpu().numpy()
            results[i] = np.concatenate([results[i], picked]).astype(np.float32)
        return results

    def greedy(self, context: Sequence[int], max_new_tokens: int) -> list[int]:
        """Argmax decoding from the context's cache; an end-of-turn token is kept and ends it."""
        cache, logprobs = self._context_state(context)
        cache = copy.deepcopy(cache)
        emitted: list[int] = []
        with torch.inference_mode():
            for _ in range(max_new_tokens):
                token = int(logprobs.argmax().item())
                emitted.append(token)
                if token in self.codec.stop_ids or len(emitted) == max_new_tokens:
                    break
                out = self._model(input_ids=self._ids([[token]]), cache=cache, use_cache=True)
                cache, logprobs = out.cache, out.logits[0, -1].float()
        return emitted

    def hidden_states(self, context: Sequence[int], position: int = -1) -> np.ndarray:
        """Every layer's hidden state (embeddings first) at ``position`` of the context."""
        with torch.inference_mode():
            out = self._model(input_ids=self._ids([context]), output_hidden_states=True)
        stacked = torch.stack([layer[0, position] for layer in out.hidden_states])
        return stacked.float().cpu().numpy()
