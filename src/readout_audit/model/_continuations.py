"""Continuations scored from a batch's key-value cache, packed side by side under one mask.

Every continuation of a context is read in one forward over that context's cache rows, without
copying the cache or padding each continuation to the longest; forwards are bounded in logits
(:data:`MAX_PACKED_POSITIONS`) however many options an item declares.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from readout_audit.model._backend import PositionRequest
from readout_audit.model._kv_cache import row_groups, selected_rows

MAX_PACKED_POSITIONS = 2048
"""Rows × packed width per continuation forward; bounds its logits (× vocabulary floats)."""
SEGMENT_POSITIONS = 256
"""Widest segment a row with more continuations is cut into: packed tokens attend to each
other under the mask, so a row's attention costs its width squared; segments side by side as
rows keep that cost linear in the number of options."""

Packed = list[dict[tuple[int, ...], int]]
"""Per cache row: each continuation (its tokens) and where it starts in the row's packed width."""


def working_precision(logits: torch.Tensor) -> torch.Tensor:
    """Logits in float32, or float64 for a float64 model (whose tests then isolate the logic)."""
    return logits.double() if logits.dtype == torch.float64 else logits.float()


def batched_continuations(
    model: Any,
    cache: Any,
    mask: torch.Tensor,
    first: torch.Tensor,
    requests: Sequence[PositionRequest],
    rows: Sequence[int],
) -> list[list[np.ndarray]]:
    """Per-token log-probabilities of every request's continuations.

    A continuation's first token is read off the context's distribution (``first``). The rest
    are packed: each context row is followed by all its continuations (all tokens but the
    last) side by side, with a 4-D mask that lets each continuation see the context and its
    own earlier tokens only, and positions that restart after the context for each one. One
    forward over the batch's own cache then scores them all; the cache is cropped back after.
    """
    pairs = zip(requests, rows, strict=True)
    read = iter(_gathered(first, [(row, c[0]) for r, row in pairs for c in r.continuations if c]))
    results = [
        [np.asarray([next(read)] if c else [], dtype=np.float32) for c in request.continuations]
        for request, row in zip(requests, rows, strict=True)
    ]
    packed: Packed = [{} for _ in range(mask.shape[0])]
    lengths = [0] * mask.shape[0]
    for request, row in zip(requests, rows, strict=True):
        for c in request.continuations:
            if len(c) > 1 and tuple(c) not in packed[row]:
                packed[row][tuple(c)] = lengths[row]
                lengths[row] += len(c) - 1
    if not any(lengths):
        return results
    if mask.shape[0] * max(lengths) <= MAX_PACKED_POSITIONS:
        table = packed_logprobs(model, cache, mask, packed, max(lengths))
        found = {
            (row, c): table[row, start : start + len(c) - 1]
            for row in range(mask.shape[0])
            for c, start in packed[row].items()
        }
    else:  # too many logits for one forward: segments of rows on copies of their cache
        found = _segmented_logprobs(model, cache, mask, packed)
    for i, (request, row) in enumerate(zip(requests, rows, strict=True)):
        for j, c in enumerate(request.continuations):
            if len(c) > 1:
                rest = found[(row, tuple(c))]
                results[i][j] = np.concatenate([results[i][j], rest]).astype(np.float32)
    return results


def _gathered(table: torch.Tensor, cells: Sequence[tuple[int, int]]) -> list[float]:
    """``table[row, column]`` of each cell, read off the device at once (one wait, not one each)."""
    if not cells:
        return []
    index = torch.tensor(cells, dtype=torch.long, device=table.device)
    values: list[float] = table[index[:, 0], index[:, 1]].tolist()
    return values


def _segmented_logprobs(
    model: Any, cache: Any, mask: torch.Tensor, packed: Packed
) -> dict[tuple[int, tuple[int, ...]], np.ndarray]:
    """Packed continuations scored within ``MAX_PACKED_POSITIONS`` logits per forward.

    A row whose continuations alone exceed the budget (thousands of options) is cut into
    segments that each re-use its cache row, so memory stays bounded however many options
    an item declares.
    """
    segments: list[tuple[int, dict[tuple[int, ...], int], int]] = []
    limit = min(SEGMENT_POSITIONS, MAX_PACKED_POSITIONS)
    for row, continuations in enumerate(packed):
        current: dict[tuple[int, ...], int] = {}
        size = 0
        for c in sorted(continuations, key=continuations.__getitem__):
            if current and size + len(c) - 1 > limit:
                segments.append((row, current, size))
                current, size = {}, 0
            current[c] = size
            size += len(c) - 1
        if current:
            segments.append((row, current, size))
    found: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}
    for group in row_groups([size for _, _, size in segments], MAX_PACKED_POSITIONS):
        index = torch.tensor([segments[k][0] for k in group], device=mask.device)
        width = max(segments[k][2] for k in group)
        part = packed_logprobs(
            model, selected_rows(cache, index), mask[index], [segments[k][1] for k in group], width
        )
        for line, k in enumerate(group):
            row, offsets, _ = segments[k]
            for c, start in offsets.items():
                found[(row, c)] = part[line, start : start + len(c) - 1]
    return found


def packed_logprobs(
    model: Any, cache: Any, mask: torch.Tensor, packed: Packed, width: int
) -> np.ndarray:
    """Log-probability of each packed token's successor, shape (rows, width)."""
    rows, context = mask.shape
    ids = torch.zeros((rows, width), dtype=torch.long)
    targets = torch.zeros((rows, width), dtype=torch.long)
    segment = torch.full((rows, width), -1, dtype=torch.long)
    offset = torch.zeros((rows, width), dtype=torch.long)
    for row, continuations in enumerate(packed):
        for index, (tokens, start) in enumerate(continuations.items()):
            n = len(tokens) - 1
            ids[row, start : start + n] = torch.tensor(tokens[:-1])
            targets[row, start : start + n] = torch.tensor(tokens[1:])
            segment[row, start : start + n] = index
            offset[row, start : start + n] = torch.arange(n)
    query = torch.arange(width)
    own = (
        (segment[:, :, None] == segment[:, None, :])
        & (segment[:, :, None] >= 0)
        & (query[None, None, :] <= query[None, :, None])
    )
    seen = torch.cat([mask.bool().cpu()[:, None, :].expand(rows, width, context), own], -1)
    dtype = next(model.parameters()).dtype
    additive = torch.zeros(seen.shape, dtype=dtype).masked_fill(~seen, torch.finfo(dtype).min)
    positions = mask.sum(-1).cpu()[:, None] + offset
    device = mask.device
    with torch.inference_mode():
        logits = model(
            input_ids=ids.to(device),
            attention_mask=additive[:, None].to(device),
            position_ids=positions.to(device),
            cache=cache,
            use_cache=True,
        ).logits
        cache.crop(-width)  # drop the packed tokens again
        logits = working_precision(logits)
        picked = logits.gather(-1, targets.to(device)[..., None])[..., 0]
        result = picked - logits.logsumexp(-1)
    return result.cpu().numpy()
