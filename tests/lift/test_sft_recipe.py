"""The SFT control's training recipe: schedule, clipping, accumulation, whole examples, BOS, dtype.

Schedules are checked against transformers' own schedulers and a hand computation; clipping and
accumulation on the real scorer's LoRA gradients, measured independently of the training code.
"""

from __future__ import annotations

import json
import math

import pytest
import torch
from click.testing import CliRunner
from lift_cuts import EQUATION_TARGETS, equation_cut, prose_cut

from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.lift import LiftSetup
from readout_audit.lift._score import encode_scored, leading_ids
from readout_audit.lift._sft_scorer import check_sft_setup
from readout_audit.lift.sft import (
    SFT_MANIFEST,
    SftConfig,
    SftExample,
    _train,
    batch_of,
    clipped_objective,
    encode_example,
    learning_rate,
    plan_sft,
    read_sft,
    sft_examples,
    split_papers,
    step_gradients,
    target_logprobs,
    train_sft,
    warmup_steps,
)
from readout_audit.model import load_model

PAPERS = dict(list(EQUATION_TARGETS.items())[:4])
CUTS = [equation_cut(target=target, paper=paper) for paper, target in PAPERS.items()]
SPLIT = split_papers(PAPERS, held_out=0.5, seed=0)
HELD = [c for c in CUTS if c.paper in SPLIT.held_out]


@pytest.mark.parametrize("schedule", ["constant", "cosine", "linear"])
def test_each_steps_rate_is_transformers_schedule(schedule):
    from transformers import (
        get_constant_schedule_with_warmup,
        get_cosine_schedule_with_warmup,
        get_linear_schedule_with_warmup,
    )

    config = SftConfig(steps=23, warmup=0.2, learning_rate=3e-4, schedule=schedule)
    assert warmup_steps(config) == 5  # ⌈0.2 · 23⌉ = ⌈4.6⌉
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=3e-4)
    if schedule == "constant":
        scheduler = get_constant_schedule_with_warmup(optimizer, 5)
    elif schedule == "cosine":
        scheduler = get_cosine_schedule_with_warmup(optimizer, 5, 23)
    else:
        scheduler = get_linear_schedule_with_warmup(optimizer, 5, 23)
    for step in range(23):  # the rate each optimiser step is taken at, as the Trainer steps it
        assert learning_rate(step, config) == pytest.approx(scheduler.get_last_lr()[0], rel=1e-12)
        optimizer.step()
        scheduler.step()


def test_the_cosine_rate_by_hand():
    config = SftConfig(steps=10, warmup=0.2, learning_rate=1e-3, schedule="cosine")
    # two warm-up steps at 0 and 1/2 of the peak, then ½(1 + cos(π (k − 2)/8))
    assert learning_rate(0, config) == 0.0
    assert learning_rate(1, config) == pytest.approx(5e-4)
    assert learning_rate(2, config) == pytest.approx(1e-3)
    assert learning_rate(6, config) == pytest.approx(5e-4)  # halfway: cos(π/2) = 0
    assert learning_rate(4, config) == pytest.approx(1e-3 * (2 + math.sqrt(2)) / 4)
    linear = config.model_copy(update={"schedule": "linear", "warmup": 0.0})
    assert learning_rate(5, linear) == pytest.approx(5e-4)  # 1 − 5/10
    constant = config.model_copy(update={"schedule": "constant"})
    assert [learning_rate(k, constant) for k in (1, 2, 9)] == pytest.approx([5e-4, 1e-3, 1e-3])


def _encoded(model, count):
    examples = sft_examples(CUTS, SPLIT, LiftSetup())[:count]
    lead = leading_ids(model.codec, LiftSetup())
    return [encode_example(model.codec, lead, e, None) for e in examples]


def _gradients(module):
    return [p.grad.detach().clone() for p in module.parameters() if p.requires_grad]


def _norm(grads):
    return float(torch.linalg.vector_norm(torch.cat([g.double().flatten() for g in grads])))


@pytest.mark.model
def test_clipping_bounds_the_gradient_norm_and_keeps_its_direction():
    base = load_model(dtype="float32")
    encoded = _encoded(base, 2)
    loose = SftConfig(batch_size=2, max_grad_norm=None, target_modules=("q_proj", "v_proj"))
    peft_model, _ = _train._lora(base, loose)
    # LoRA's B starts at zero, so A's gradients are zero: one step first makes both move
    for p in peft_model.parameters():
        if p.requires_grad:
            p.data.add_(torch.randn_like(p) * 0.02)
    _, norm = step_gradients(peft_model, encoded, loose, 1)
    free = _gradients(peft_model)
    assert norm == pytest.approx(_norm(free), rel=1e-5) and norm > 0.01
    tight = loose.model_copy(update={"max_grad_norm": norm / 10})
    _, before = step_gradients(peft_model, encoded, tight, 1)
    clipped = _gradients(peft_model)
    assert before == pytest.approx(norm, rel=1e-5)  # the norm recorded is the unclipped one
    assert _norm(clipped) == pytest.approx(norm / 10, rel=1e-4)
    for a, b in zip(clipped, free, strict=True):  # scaled, not reshaped
        assert torch.allclose(a, b / 10, atol=1e-6 * norm, rtol=1e-4)


@pytest.mark.model
def test_two_accumulated_micro_batches_are_one_batch_of_two(float32_budget):
    base = load_model(dtype="float32")
    encoded = _encoded(base, 2)
    assert len(encoded[0][0]) != len(encoded[1][0])  # padding is exercised
    whole = SftConfig(
        batch_size=2,
        grad_accumulation=1,
        max_grad_norm=None,
        target_modules=("q_proj", "v_proj"),
        dropout=0.0,  # masks are drawn per micro-batch: two shapes, two draws
    )
    micro = whole.model_copy(update={"batch_size": 1, "grad_accumulation": 2})
    assert batch_of(0, 5, micro) == batch_of(0, 5, whole) and len(batch_of(0, 5, micro)) == 2
    peft_model, _ = _train._lora(base, whole)
    for p in peft_model.parameters():
        if p.requires_grad:
            p.data.add_(torch.randn_like(p) * 0.02)
    one, norm_one = step_gradients(peft_model, encoded, whole, 1)
    first = _gradients(peft_model)
    two, norm_two = step_gradients(peft_model, encoded, micro, 1)
    second = _gradients(peft_model)
    budget = float32_budget(max(len(ids) for ids, _ in encoded))
    assert one == pytest.approx(two, abs=budget)
    assert norm_one == pytest.approx(norm_two, rel=1e-4)
    scale = max(float(g.abs().max()) for g in first)
    for a, b in zip(first, second, strict=True):
        assert torch.allclose(a, b, atol=budget * scale, rtol=0)
    # and each equals the mean of the examples' own losses' gradients
    losses = [clipped_objective(target_logprobs(peft_model, *e)) for e in encoded]
    peft_model.zero_grad()
    (sum(losses) / 2).backward()
    for a, b in zip(first, _gradients(peft_model), strict=True):
        assert torch.allclose(a, b, atol=budget * scale, rtol=0)


def test_an_example_is_never_cut_an_over_long_one_is_refused_by_name(model):
    lead = leading_ids(model.codec, LiftSetup())
    long = prose_cut("Long. " * 300)
    example = SftExample(id=long.id, paper="osc", prompt=long.context, target=long.target)
    whole = encode_scored(model.codec, lead, example.prompt, example.target)
    assert len(whole[0]) > 512  # the old default cut it to its last 512 tokens
    assert encode_example(model.codec, lead, example, None) == whole
    with pytest.raises(InputError, match=f"needs {len(whole[0])} tokens") as caught:
        encode_example(model.codec, lead, example, 512)
    assert caught.value.item_id == "osc:block3" and caught.value.field == "max_tokens"


def test_a_run_refused_at_encoding_writes_no_manifest_and_a_corrected_rerun_may_start(
    model, tmp_path
):
    examples = sft_examples(CUTS, SPLIT, LiftSetup())
    lead = leading_ids(model.codec, LiftSetup())
    longest = max(len(encode_example(model.codec, lead, e, None)[0]) for e in examples)
    short = SftConfig(steps=1, max_tokens=longest - 1)
    out = tmp_path / "sft"
    with pytest.raises(InputError, match=f"needs {longest} tokens"):
        train_sft(model, examples, SPLIT, out, held_out=HELD, config=short)
    assert not (out / SFT_MANIFEST).exists()
    from readout_audit.lift.sft import check_sft_out

    check_sft_out(out, plan_sft(examples, SPLIT, SftConfig(steps=1), LiftSetup(), held_out=HELD))


@pytest.mark.model
def test_sft_bos_and_dtype_train_on_the_prompts_lift_score_bos_reads(tmp_path):
    cuts = tmp_path / "cuts.jsonl"
    cuts.write_text("".join(c.model_dump_json() + "\n" for c in CUTS))
    out = tmp_path / "sft"
    args = ["lift", "sft", "--cuts", cuts, "--out", out, "--steps", "1", "--batch-size", "1"]
    args += ["--grad-accumulation", "1"]
    args += ["--rank", "2", "--target-modules", "q_proj", "--bos", "--dtype", "bfloat16"]
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    manifest = read_sft(out)
    assert manifest.setup["bos"] is True and manifest.config.dtype == "bfloat16"
    assert json.loads((out / SFT_MANIFEST).read_text())["model"]["dtype"] == "bfloat16"
    check_sft_setup(manifest.setup, LiftSetup(bos=True))  # lift score --bos --sft is accepted
    with pytest.raises(InputError, match="bos True"):
        check_sft_setup(manifest.setup, LiftSetup())
    # step 1's loss is the untuned bfloat16 scorer's on its example opened with BOS
    scorer = load_model(dtype="bfloat16")
    (step,) = manifest.losses
    (example,) = [e for e in sft_examples(CUTS, SPLIT, LiftSetup()) if e.id in step.examples]
    losses = {}
    for bos in (True, False):
        lead = leading_ids(scorer.codec, LiftSetup(bos=bos))
        ids, start = encode_scored(scorer.codec, lead, example.prompt, example.target)
        with torch.no_grad():
            losses[bos] = float(clipped_objective(target_logprobs(scorer.module, ids, start)))
    assert abs(losses[True] - losses[False]) > 0.01
    assert step.loss == pytest.approx(losses[True], abs=2e-3)
