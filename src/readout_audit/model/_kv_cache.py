"""Key-value caches of a ``transformers`` model: built without copying, sized, chunked.

A batch's cache holds rows × tokens × (2 × layers × key-value heads × head width × bytes); a
batch that would exceed a budget is scored in chunks of rows (:func:`chunked`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import DynamicCache

from readout_audit.model._backend import PositionRequest

CACHE_BUDGET_BYTES = 2**30
"""Default bound on one forward's key-value cache (rows × tokens × bytes per token): a batch
whose cache would exceed it is scored in chunks of rows (a single longer row runs alone)."""

KeyValues = list[tuple[torch.Tensor, torch.Tensor]]
"""Each layer's cached keys and values, shape (rows, heads, tokens, head dim)."""


def cache_of(layers: KeyValues) -> DynamicCache:
    """A new cache holding these keys and values, not copied.

    A forward on it concatenates its own columns into new tensors and leaves these untouched,
    so they may be another cache's tensors or views expanded across rows.
    """
    cache = DynamicCache()
    for index, (keys, values) in enumerate(layers):
        cache.update(keys[:, :, :0], values[:, :, :0], index)
        layer: Any = cache.layers[index]
        layer.keys, layer.values = keys, values
    return cache


def zeroed(sample: KeyValues, rows: int, width: int) -> KeyValues:
    """Zeroed keys and values shaped as ``sample``'s layers, for ``rows`` rows of ``width``."""
    return [
        (
            k.new_zeros((rows, k.shape[1], width, k.shape[3])),
            v.new_zeros((rows, v.shape[1], width, v.shape[3])),
        )
        for k, v in sample
    ]


def selected_rows(cache: Any, rows: torch.Tensor) -> DynamicCache:
    """A new cache holding the given batch rows; the original is untouched."""
    return cache_of([(layer.keys[rows], layer.values[rows]) for layer in cache.layers])


def cache_bytes_per_token(model: Any) -> int:
    """Bytes of keys and values one token adds to ``model``'s cache, over every layer."""
    config = model.config.get_text_config()
    heads = int(getattr(config, "num_attention_heads", 0) or 0)
    width = int(getattr(config, "head_dim", 0) or 0) or config.hidden_size // max(heads, 1)
    kv_heads = int(getattr(config, "num_key_value_heads", 0) or 0) or heads
    size = next(model.parameters()).element_size()
    return 2 * int(config.num_hidden_layers) * max(kv_heads * width, 1) * int(size)


def chunked(requests: Sequence[PositionRequest], per_token: int, budget: int) -> list[list[int]]:
    """Request indices in chunks whose cache fits ``budget`` bytes.

    A chunk's cache holds rows (its distinct contexts) × its longest context and greedy
    tokens × ``per_token``; requests sharing a context stay in one chunk, and a single row
    larger than the budget is a chunk of its own.
    """
    by_context: dict[tuple[int, ...], list[int]] = {}
    for index, request in enumerate(requests):
        by_context.setdefault(tuple(request.context), []).append(index)
    chunks: list[list[int]] = []
    rows, widest = 0, 0
    for context, indices in by_context.items():
        width = len(context) + max(requests[i].greedy_tokens for i in indices)
        if rows and (rows + 1) * max(widest, width) * per_token > budget:
            rows, widest = 0, 0
        if rows == 0:
            chunks.append([])
        chunks[-1].extend(indices)
        rows, widest = rows + 1, max(widest, width)
    return chunks


def row_groups(lengths: Sequence[int], budget: int) -> list[list[int]]:
    """Consecutive rows with packed continuations, grouped so rows × widest stays in budget."""
    groups: list[list[int]] = []
    current: list[int] = []
    widest = 0
    for row, length in enumerate(lengths):
        if length == 0:
            continue
        if current and max(widest, length) * (len(current) + 1) > budget:
            groups.append(current)
            current, widest = [], 0
        current.append(row)
        widest = max(widest, length)
    if current:
        groups.append(current)
    return groups
