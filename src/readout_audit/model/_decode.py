"""Greedy decoding of a batch from its prefill's cache: step by step, or replayed as a CUDA graph.

On the CPU a decode step costs its arithmetic. On a GPU a step over a batch of rows costs the
launch of every kernel of every layer, so 16 steps cost about 16 forwards (an audit pass ×7.5–9.5
a bare forward of the same tokens). There the step runs over a static cache whose shapes never
change, is captured once as a CUDA graph and then replayed; the numbers are the same either way.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Sequence
from typing import Any

import torch
from transformers import StaticCache
from transformers.cache_utils import StaticLayer

CHECK_EVERY = 4
"""Decode steps between looks at whether every row has stopped: each look waits for the
device, so tokens stay on it in between and the host runs ahead."""

COLUMN_BLOCK = 128
"""Static caches are this many columns wider at a time, so batches of nearby widths replay one
captured graph."""

KEPT_SHAPES = 2
"""Static caches (and their graphs) kept for reuse; the oldest is dropped past this."""

Step = Callable[[torch.Tensor, int], torch.Tensor]
"""Feeds each row its last token at decode step ``s`` (0: the first after the context) and
returns the next logits, one row each."""

Forward = Callable[[], torch.Tensor]
Capture = Callable[[Forward], tuple[torch.Tensor, Forward]]
"""Runs a forward once and returns its result and a way to run it again (a graph's replay)."""


def greedy_decode(
    step: Step, first: torch.Tensor, wanted: Sequence[int], stop_ids: Collection[int]
) -> list[list[int]]:
    """Argmax tokens per row up to its budget; an end-of-turn token is kept and ends the row.

    Finished rows keep being fed (their tokens are dropped after) so the batch stays
    rectangular; the loop ends once every row has stopped, looked at every :data:`CHECK_EVERY`
    steps.
    """
    steps = max(wanted, default=0)
    if steps == 0:
        return [[] for _ in wanted]
    stops = torch.tensor(sorted(stop_ids), dtype=torch.long, device=first.device)
    budget = torch.tensor(list(wanted), device=first.device)
    tokens = first.argmax(-1)
    emitted = [tokens]
    stopped = torch.isin(tokens, stops) | (budget <= 1)
    for index in range(1, steps):
        if index % CHECK_EVERY == 0 and bool(stopped.all()):
            break
        tokens = step(tokens, index - 1).argmax(-1)
        emitted.append(tokens)
        stopped |= torch.isin(tokens, stops) | (budget <= index + 1)
    table = torch.stack(emitted, 1).tolist()
    return [_until_stop(row[:n], stop_ids) for row, n in zip(table, wanted, strict=True)]


def _until_stop(tokens: list[int], stop_ids: Collection[int]) -> list[int]:
    """The tokens up to and including the first end-of-turn token."""
    end = next((i for i, token in enumerate(tokens) if token in stop_ids), len(tokens) - 1)
    return tokens[: end + 1]


class CacheSteps:
    """Steps that grow the prefill's own cache and mask by a column each (the CPU's way)."""

    def __init__(self, model: Any, cache: Any, mask: torch.Tensor) -> None:
        self._model, self._cache, self._mask = model, cache, mask
        self._lengths = mask.sum(-1)

    def __call__(self, tokens: torch.Tensor, step: int) -> torch.Tensor:
        self._mask = torch.cat([self._mask, torch.ones_like(self._mask[:, :1])], dim=-1)
        out = self._model(
            input_ids=tokens[:, None],
            attention_mask=self._mask,
            position_ids=(self._lengths + step)[:, None],
            cache=self._cache,
            use_cache=True,
        )
        self._cache = out.cache
        logits: torch.Tensor = out.logits[:, -1]
        return logits


class StaticSteps:
    """Steps over a preallocated cache whose tensors never move or change shape.

    A prefill's keys and values fill its first columns; step ``s`` writes column width + s,
    unmasked just before. Every input lives in a fixed tensor, so a captured graph of one step
    replays any step of any batch of these rows and columns.
    """

    def __init__(
        self, model: Any, cache: StaticCache, layers: list[StaticLayer], rows: int, capture: Capture
    ) -> None:
        weight = next(model.parameters())
        columns = layers[0].max_cache_len
        self._model, self.cache, self._layers, self._capture = model, cache, layers, capture
        self._ids = torch.zeros((rows, 1), dtype=torch.long, device=weight.device)
        self._positions = torch.zeros_like(self._ids)
        self._lengths = torch.zeros(rows, dtype=torch.long, device=weight.device)
        hidden = torch.finfo(weight.dtype).min
        self._mask = torch.full((rows, 1, 1, columns), hidden, dtype=weight.dtype)
        self._mask = self._mask.to(weight.device)
        self._replay: Forward | None = None
        self._width = 0

    def load(self, cache: Any, mask: torch.Tensor) -> StaticSteps:
        """Start from a prefill: its keys and values, its mask, each row's next position."""
        for index, (layer, static) in enumerate(zip(cache.layers, self._layers, strict=True)):
            if static.is_initialized:
                static.cumulative_length.zero_()
            self.cache.update(layer.keys, layer.values, index)
        self._width = mask.shape[1]
        self._mask.fill_(torch.finfo(self._mask.dtype).min)
        self._mask[:, 0, 0, : self._width].masked_fill_(mask.bool(), 0.0)
        self._lengths.copy_(mask.sum(-1))
        return self

    def _forward(self) -> torch.Tensor:
        out = self._model(
            input_ids=self._ids,
            attention_mask=self._mask,
            position_ids=self._positions,
            cache=self.cache,
            use_cache=True,
        )
        logits: torch.Tensor = out.logits[:, -1]
        return logits

    def __call__(self, tokens: torch.Tensor, step: int) -> torch.Tensor:
        self._ids.copy_(tokens[:, None])
        self._positions.copy_((self._lengths + step)[:, None])
        self._mask[:, 0, 0, self._width + step] = 0.0
        if self._replay is not None:
            return self._replay()
        try:
            logits, self._replay = self._capture(self._forward)
        except RuntimeError as error:  # a model the capture cannot take: run it eagerly
            warnings.warn(f"decoding without a CUDA graph: {error}", RuntimeWarning, stacklevel=2)
            self._capture = run_eagerly
            logits, self._replay = run_eagerly(self._forward)
        return logits


def run_eagerly(forward: Forward) -> tuple[torch.Tensor, Forward]:
    """A forward run now, and again each time (no graph)."""
    return forward(), forward


def cuda_graph(forward: Forward) -> tuple[torch.Tensor, Forward]:
    """A forward run on a side stream (its warm-up and its result), then captured as a graph.

    Capturing records kernels without running them, so the state the first run left (its
    cache column) is the state the first replay starts from.
    """
    side = torch.cuda.Stream()  # type: ignore[no-untyped-call]
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        first = forward().clone()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        output = forward()

    def replay() -> torch.Tensor:
        graph.replay()
        return output

    return first, replay


class StaticDecoder:
    """Static caches by shape (rows × columns rounded up), each with its captured step."""

    def __init__(self, model: Any, capture: Capture) -> None:
        self._model, self.capture = model, capture
        self._kept: dict[tuple[int, int], StaticSteps] = {}

    def steps(self, cache: Any, mask: torch.Tensor, steps: int) -> StaticSteps | None:
        """Steps for this prefill, or None where a static cache cannot hold the model's layers.

        Sliding-window and other local attention layers read a mask that is not a column mask.
        """
        rows, width = mask.shape
        columns = -(-(width + steps) // COLUMN_BLOCK) * COLUMN_BLOCK
        kept = self._kept.pop((rows, columns), None)
        if kept is None:
            static = StaticCache(config=self._model.config, max_cache_len=columns)
            layers = [layer for layer in static.layers if type(layer) is StaticLayer]
            if len(layers) != len(static.layers):
                return None
            kept = StaticSteps(self._model, static, layers, rows, self.capture)
            if len(self._kept) >= KEPT_SHAPES:
                del self._kept[next(iter(self._kept))]
        self._kept[(rows, columns)] = kept
        return kept.load(cache, mask)


def decoder_for(model: Any, device_type: str) -> StaticDecoder | None:
    """The decoder a model on ``device_type`` uses: graphs on CUDA, the growing cache elsewhere."""
    return StaticDecoder(model, cuda_graph) if device_type == "cuda" else None
