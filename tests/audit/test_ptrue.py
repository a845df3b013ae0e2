"""The P(True) audit on the real model, against plain forwards and scikit-learn."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch
from sklearn.metrics import roc_auc_score
from transformers import LogitsProcessorList

from readout_audit import PTrueSettings, read_run
from readout_audit.data._qa import QAItem
from readout_audit.ptrue._answers import LIBRARY_SEED, generate_answers, item_seed
from readout_audit.ptrue._audit import PTRUE_PROMPT, audit_ptrue, summarise_ptrue
from readout_audit.stats import prr

ITEMS = [
    QAItem(
        id="mars",
        question="Which planet is the Red Planet?\nA. Venus\nB. Mars\nC. Saturn",
        instruction="Reply with the letter only.",
        gold="B",
        answer="B",
    ),
    QAItem(
        id="venus",
        question="Which planet is the Red Planet?\nA. Venus\nB. Mars\nC. Saturn",
        instruction="Reply with the letter only.",
        gold="B",
        answer="A",
    ),
    QAItem(id="paris", question="What is the capital of France?", gold=["Paris"]),
    QAItem(
        id="legs", question="How many legs does a spider have?", gold=["eight", "8"], answer="Six"
    ),
]


@pytest.fixture(scope="module")
def ptrue_run(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("ptrue") / "run"
    audit_ptrue(model, PTrueSettings(items=ITEMS), out)
    return read_run(out)


def _last_logprobs(model, torch_model, content, stem=""):
    text = model.codec.render_chat([{"role": "user", "content": content}], {}) + stem
    ids = model.codec.encode(text)
    with torch.inference_mode():
        return torch_model(input_ids=torch.tensor([ids])).logits[0, -1].double().log_softmax(-1)


def _library_scores(torch_model, ids):
    """lm-polygraph's PromptCalculator step: generate one token with min_new_tokens=1 and its
    WhiteboxModel's two processors (sanitize -inf to the row minimum, keep the log-softmax)."""
    kept = []

    def sanitize(input_ids, scores):
        finite = torch.isfinite(scores)
        low = torch.where(finite, scores, torch.full_like(scores, float("inf"))).amin(-1, True)
        return torch.where(torch.isneginf(scores), low, scores)

    def keep(input_ids, scores):
        kept.append(scores.log_softmax(-1))
        return scores

    batch = torch.tensor([ids])
    with torch.inference_mode():
        torch_model.generate(
            input_ids=batch,
            attention_mask=torch.ones_like(batch),
            min_new_tokens=1,
            max_new_tokens=1,
            num_beams=1,
            do_sample=False,
            logits_processor=LogitsProcessorList([sanitize, keep]),
        )
    return kept[0][0]


def test_library_and_repairs_equal_a_plain_forward(
    model, hf_tokenizer, torch_model, ptrue_run, float32_budget
):
    by = {(r.item_id, r.readout): r for r in ptrue_run.records}
    (true_id,) = hf_tokenizer(["True"], add_special_tokens=False)["input_ids"][0]
    (false_id,) = hf_tokenizer(["False"], add_special_tokens=False)["input_ids"][0]
    item = ITEMS[0]
    prompt = PTRUE_PROMPT.format(q=item.quoted(), a="B")
    assert "Possible answer:B\n Is the possible answer:" in prompt
    lp = _last_logprobs(model, torch_model, prompt)
    budget = float32_budget(by[("mars", "library")].n_tokens)
    assert by[("mars", "plain")].confidence == pytest.approx(lp[true_id].item(), abs=budget)
    text = model.codec.render_chat([{"role": "user", "content": prompt}], {})
    library = _library_scores(torch_model, model.codec.encode(text))[true_id].item()
    assert by[("mars", "library")].confidence == pytest.approx(library, abs=budget)
    # the end-of-sequence mass the library renormalises away (6.6e-4 nats here) is beyond the
    # float32 budget, so reading the plain value instead would fail the comparison above
    removed = by[("mars", "library")].removed_mass
    assert removed == pytest.approx(math.exp(lp[model.codec.eos_token_id]), rel=1e-3)
    assert library - lp[true_id].item() == pytest.approx(-math.log1p(-removed), abs=budget)
    assert library - lp[true_id].item() > 5e-4
    renorm = math.exp(lp[true_id]) / (math.exp(lp[true_id]) + math.exp(lp[false_id]))
    assert by[("mars", "renormalised")].confidence == pytest.approx(renorm, abs=budget)
    moved = _last_logprobs(model, torch_model, prompt, "The possible answer is (")
    a_id, b_id = (model.codec.encode("The possible answer is (" + x)[-1] for x in "AB")
    expected = math.exp(moved[a_id]) / (math.exp(moved[a_id]) + math.exp(moved[b_id]))
    assert by[("mars", "moved")].confidence == pytest.approx(expected, abs=budget)
    bare = PTRUE_PROMPT.format(q=item.question, a="B")
    assert item.quoted() == f"Reply with the letter only.\n\n{item.question}"
    text = model.codec.render_chat([{"role": "user", "content": bare}], {})
    deleted = _library_scores(torch_model, model.codec.encode(text))[true_id].item()
    assert by[("mars", "deleted")].confidence == pytest.approx(deleted, abs=budget)


def test_correctness_answers_and_summary(ptrue_run):
    by = {(r.item_id, r.readout): r for r in ptrue_run.records}
    assert by[("mars", "library")].correct and not by[("venus", "library")].correct
    assert not by[("legs", "library")].correct
    assert by[("paris", "library")].answer  # generated by the model
    assert ptrue_run.manifest.config["answers_generated"] == 1
    assert ptrue_run.artifacts["answers"] == {"paris": by[("paris", "library")].answer}
    summary = ptrue_run.summary
    y = np.array([by[(i.id, "library")].correct for i in ITEMS])
    for name, block in summary.readouts.items():
        scores = np.array([by[(i.id, name)].confidence for i in ITEMS])
        assert block.auroc.estimate == pytest.approx(roc_auc_score(y, scores))
        # PRR at the paper's maximum rejection of 0.5, with its interval
        assert block.prr.estimate == pytest.approx(prr(scores, y.astype(float), 0.5))
        assert block.auroc.low <= block.auroc.estimate <= block.auroc.high
        assert block.prr.low <= block.prr.high
        assert block.auroc.n == len(ITEMS) and "10000 replicates" in block.auroc.method
    names = list(summary.readouts)
    pairs = [f"{b} - {a}" for i, a in enumerate(names) for b in names[i + 1 :]]
    assert list(summary.differences) == pairs and list(summary.prr_differences) == pairs
    for pair, gain in summary.prr_differences.items():
        b, a = pair.split(" - ")
        expected = summary.readouts[b].prr.estimate - summary.readouts[a].prr.estimate
        assert gain.estimate == pytest.approx(expected, abs=1e-12)
    assert set(summary.readouts) == {
        "library",
        "plain",
        "renormalised",
        "labels_in_place",
        "moved",
        "deleted",
    }
    again = summarise_ptrue(ptrue_run.records)
    stored = summary.model_dump(mode="json", exclude={"this_invocation"})
    assert again.model_dump(mode="json", exclude={"this_invocation"}) == stored
    on_disk = json.loads((ptrue_run.directory / "summary.json").read_text())
    assert {k: v for k, v in on_disk.items() if k not in ("this_invocation", "integrity")} == stored


def _hf_answer(model, torch_model, hf_tokenizer, item, **settings):
    text = model.codec.render_chat([{"role": "user", "content": item.quoted()}], {})
    batch = torch.tensor([model.codec.encode(text)])
    with torch.random.fork_rng(devices=[]), torch.inference_mode():
        torch.manual_seed(item_seed(LIBRARY_SEED, item.id))
        out = torch_model.generate(
            input_ids=batch,
            attention_mask=torch.ones_like(batch),
            num_beams=1,
            min_new_tokens=2,
            stop_strings=["\n"],
            tokenizer=hf_tokenizer,
            **settings,
        )
    tokens = out[0, batch.shape[1] :].tolist()
    eos = hf_tokenizer.eos_token_id
    return hf_tokenizer.decode(tokens[: tokens.index(eos)] if eos in tokens else tokens)


def test_answer_steps_are_the_library_settings(model, torch_model, hf_tokenizer):
    mars, paris = ITEMS[0], ITEMS[2]
    # the embedded checkpoint's generation config does not sample: the library's step is greedy,
    # at least 2 and at most 3 tokens for a letter question, 20 for a short answer
    library = generate_answers(model, [mars, paris], {}, mode="library")
    assert library == [
        _hf_answer(model, torch_model, hf_tokenizer, mars, do_sample=False, max_new_tokens=3),
        _hf_answer(model, torch_model, hf_tokenizer, paris, do_sample=False, max_new_tokens=20),
    ]
    sampled = generate_answers(model, [mars, paris], {}, mode="sample")
    expected = _hf_answer(
        model, torch_model, hf_tokenizer, paris, do_sample=True, top_k=50, max_new_tokens=20
    )
    assert sampled[1] == expected
    assert generate_answers(model, [mars, paris], {}, mode="sample") == sampled  # seeded
    others = generate_answers(model, [paris], {}, mode="sample", seed=2)
    assert others != sampled[1:]  # another seed draws another answer
    greedy = generate_answers(model, [paris], {}, mode="greedy")
    assert greedy[0] == greedy[0].strip() and "<|" not in greedy[0]


def test_raw_prompt_mode_is_the_library_default_tokenisation(
    model, torch_model, hf_tokenizer, tmp_path, float32_budget
):
    item = ITEMS[0]
    audit_ptrue(model, PTrueSettings(items=[item], prompt_mode="raw"), tmp_path / "raw")
    run = read_run(tmp_path / "raw")
    assert run.manifest.config["prompt_mode"] == "raw"
    by = {r.readout: r for r in run.records}
    prompt = PTRUE_PROMPT.format(q=item.quoted(), a="B")
    (true_id,) = hf_tokenizer(["True"], add_special_tokens=False)["input_ids"][0]
    ids = hf_tokenizer(prompt, add_special_tokens=True)["input_ids"]
    assert by["library"].rendered_tail == prompt[-60:]
    assert by["library"].confidence == pytest.approx(
        _library_scores(torch_model, ids)[true_id].item(), abs=float32_budget(len(ids))
    )
    assert by["moved"].rendered_tail.endswith("(B) False\n The possible answer is (")
    # after "is:" the labels merge with the colon ("(A" is not a continuation of the raw text),
    # so labels_in_place has no reading; the other readouts are still summarised
    assert by["labels_in_place"].confidence is None
    readouts = run.summary.readouts
    assert readouts["labels_in_place"].n_scored == 0 and readouts["library"].n_scored == 1
    assert run.summary.n_items == 1
