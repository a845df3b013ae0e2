"""Greedy decoding: the stopping rule on hand-built logits, and the static-cache steps that CUDA
replays as a graph against the growing cache on the real model (the capture faked eagerly)."""

import warnings

import pytest
import torch
from transformers import MistralConfig

from readout_audit.model import PositionRequest, load_model
from readout_audit.model._decode import (
    CHECK_EVERY,
    COLUMN_BLOCK,
    CacheSteps,
    StaticDecoder,
    cuda_graph,
    decoder_for,
    greedy_decode,
    run_eagerly,
)


def scripted(rows: list[list[int]], vocab: int = 8):
    """A step whose argmax is the next token of each row's script; it counts its calls."""
    calls = []

    def step(tokens: torch.Tensor, index: int) -> torch.Tensor:
        calls.append(index)
        logits = torch.zeros((len(rows), vocab))
        for row, script in enumerate(rows):
            logits[row, script[index + 1]] = 1.0
        return logits

    first = torch.zeros((len(rows), vocab))
    for row, script in enumerate(rows):
        first[row, script[0]] = 1.0
    return step, first, calls


def test_each_row_stops_at_its_budget_or_its_first_stop_token_which_it_keeps():
    scripts = [[1, 2, 7, 3, 4, 5, 6, 1], [3, 3, 3, 3, 3, 3, 3, 3], [5, 7, 7, 1, 1, 1, 1, 1]]
    step, first, calls = scripted(scripts)
    got = greedy_decode(step, first, [6, 3, 8], stop_ids={7})
    assert got == [[1, 2, 7], [3, 3, 3], [5, 7]]
    assert calls == list(range(len(calls))) and len(calls) <= CHECK_EVERY - 1


def test_decoding_runs_until_the_longest_budget_when_no_row_stops():
    scripts = [[1, 2, 3, 4, 5, 6, 1, 2, 3, 4], [2] * 10]
    step, first, calls = scripted(scripts)
    assert greedy_decode(step, first, [9, 2], stop_ids={7}) == [scripts[0][:9], [2, 2]]
    assert calls == list(range(8))
    assert greedy_decode(step, first, [0, 0], stop_ids={7}) == [[], []]


def test_a_model_on_cuda_decodes_from_a_captured_graph_and_elsewhere_from_its_cache(torch_model):
    assert decoder_for(torch_model, "cpu") is None
    assert decoder_for(torch_model, "mps") is None
    decoder = decoder_for(torch_model, "cuda")
    assert isinstance(decoder, StaticDecoder) and decoder.capture is cuda_graph


def test_a_model_with_sliding_window_layers_keeps_the_growing_cache():
    config = MistralConfig(
        num_hidden_layers=2, hidden_size=16, intermediate_size=32, num_attention_heads=2,
        num_key_value_heads=1, vocab_size=32, sliding_window=4,
    )  # fmt: skip
    module = torch.nn.Linear(1, 1)
    module.config = config
    mask = torch.ones((1, 3), dtype=torch.long)
    assert StaticDecoder(module, run_eagerly).steps(None, mask, 4) is None


@pytest.fixture(scope="module")
def model64():
    """The embedded model in float64: greedy tokens of two code paths agree with no near-ties."""
    return load_model("smollm2-135m", dtype="float64")


def prefill(model, contexts):
    """A left-padded forward's cache, mask and first logits, as score_positions makes them."""
    out, mask = model._left_padded(contexts, use_cache=True)
    return out.cache, mask, out.logits[:, -1]


def decode_both(model, decoder, contexts, steps):
    """Every step's log-probabilities from the growing cache and from the static steps."""
    module = model.module
    with torch.inference_mode():
        cache, mask, first = prefill(model, contexts)
        static = decoder.steps(cache, mask, steps)
        cache, mask, _ = prefill(model, contexts)
        growing = CacheSteps(module, cache, mask)
        tokens = first.argmax(-1)
        pairs = []
        for index in range(steps):
            a, b = growing(tokens, index), static(tokens, index)
            pairs.append((a.float().log_softmax(-1), b.float().log_softmax(-1)))
            tokens = a.argmax(-1)
    return pairs


def test_static_steps_give_the_growing_caches_log_probs_across_batches_of_one_shape(
    model, float32_budget
):
    decoder = StaticDecoder(model.module, run_eagerly)
    codec = model.codec
    first_batch = [codec.encode("The capital of France is"), codec.encode("Two plus two is")]
    second_batch = [codec.encode("Water boils at"), codec.encode("A B C D E F G H I J K")]
    for contexts in (first_batch, second_batch):  # one static cache: the second reuses it
        assert max(map(len, contexts)) + 6 <= COLUMN_BLOCK
        budget = float32_budget(max(map(len, contexts)) + 6)
        for growing, static in decode_both(model, decoder, contexts, 6):
            assert torch.allclose(growing, static, atol=budget, rtol=0)
    assert len(decoder._kept) == 1


def test_scores_with_a_static_decoder_match_the_growing_cache(model64):
    model = model64
    codec = model.codec
    requests = [
        PositionRequest(codec.encode("Name three colours:"), greedy_tokens=10),
        PositionRequest(codec.encode("Count to five: one, two,"), greedy_tokens=4),
        PositionRequest(codec.encode("Name three colours:"), greedy_tokens=0),
    ]
    plain = model.score_positions(requests)
    model.decoder = StaticDecoder(model.module, run_eagerly)  # the decision CUDA makes
    try:
        static = model.score_positions(requests)
    finally:
        model.decoder = None
    assert [s.greedy for s in static] == [p.greedy for p in plain]
    assert [len(s.greedy) for s in static] == [10, 4, 0]


def test_a_failed_capture_warns_and_decodes_eagerly(model64):
    model = model64

    def refusing(forward):
        raise RuntimeError("operation not permitted when stream is capturing")

    codec = model.codec
    requests = [PositionRequest(codec.encode("Name three colours:"), greedy_tokens=5)]
    plain = model.score_positions(requests)
    model.decoder = StaticDecoder(model.module, refusing)
    try:
        with pytest.warns(RuntimeWarning, match="without a CUDA graph: operation not permitted"):
            first = model.score_positions(requests)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the next batch of this shape reuses the eager steps
            second = model.score_positions(requests)
    finally:
        model.decoder = None
    assert first[0].greedy == second[0].greedy == plain[0].greedy
