"""The forecast task end to end on the real model: notes, reader, downstream AUC and Brier."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch
from sklearn.metrics import brier_score_loss, roc_auc_score

from readout_audit import InputError, OptionsSettings, read_run
from readout_audit.data._mc import MCItem
from readout_audit.model import TextCodec
from readout_audit.options._audit import audit_options
from readout_audit.options._downstream import forecast_downstream, written_forecast
from readout_audit.options._forecast import (
    WRITER_PROMPT,
    attach_reader,
    read_from_note,
    reader_rendering,
    write_note,
    writer_rendering,
)
from readout_audit.prompt._spec import FORECAST

PASSAGE = (
    "In 1901 the river town of Elmford raised money from every family to build its first school, "
    "a two-room brick house beside the old mill. Before that, children walked six miles to class."
)

pytestmark = pytest.mark.cost(30)
ITEMS = [
    MCItem(
        id="school",
        question="What did Elmford build in 1901?",
        choices=["a bridge", "a school", "a mill", "a church"],
        answer="B",
        passage=PASSAGE,
        cluster="elmford",
    ),
    MCItem(
        id="walk",
        question="How far did children walk before 1901?",
        choices=["one mile", "three miles", "six miles", "ten miles"],
        answer="C",
        note="Children used to walk six miles to the nearest classroom.",
        cluster="elmford",
    ),
    MCItem(
        id="rake",
        question="Which tool would a gardener use to loosen soil?",
        choices=["a rake", "a spoon", "a stapler", "a ladder"],
        answer="A",
        note="Gardeners loosen soil with a rake.",
    ),
    MCItem(
        id="moon",
        question="What causes the phases of the Moon?",
        choices=["Earth's shadow", "our changing view of its lit half", "clouds", "eclipses"],
        answer="B",
        note="We see different parts of the Moon's lit half as it orbits.",
    ),
]


READER_TEXT = (
    "Note: Children used to walk six miles to the nearest classroom.\n\n"
    "How far did children walk before 1901?\nA: one mile\nB: three miles\nC: six miles\n"
    "D: ten miles\nAnswer with exactly one of: A, B, C, D."
)


def _forward_logliks(torch_model, codec, text):
    """Each of " A" … " D" after ``text``, log-likelihood summed over a plain full forward."""
    context = codec.encode(text)
    scores = []
    for letter in "ABCD":
        tokens = codec.encode(text + f" {letter}")[len(context) :]
        with torch.inference_mode():
            lp = torch_model(input_ids=torch.tensor([context + tokens])).logits[0].double()
        lp = lp.log_softmax(-1)
        scores.append(sum(lp[len(context) - 1 + j, t].item() for j, t in enumerate(tokens)))
    return scores


def test_reader_picks_the_option_with_the_highest_full_forward_loglikelihood(
    model, torch_model, float32_budget
):
    item = ITEMS[1]
    outcome = read_from_note(model, item, item.note)
    text = model.codec.render_chat([{"role": "user", "content": READER_TEXT}], {})
    scores = _forward_logliks(torch_model, model.codec, text)
    assert outcome["reader_logprobs"] == pytest.approx(
        scores, abs=float32_budget(len(model.codec.encode(text)))
    )
    assert outcome["reader_pick"] == "ABCD"[int(np.argmax(scores))]
    assert outcome["reader_correct"] == (outcome["reader_pick"] == "C")


def test_written_note_respects_the_budget(model):
    note = write_note(model, PASSAGE, budget=12, max_new_tokens=48)
    assert 0 < len(note["note"].split()) <= 12
    assert 1 <= note["attempts"] <= 5
    assert "<|" not in note["note"]


def test_a_note_unfinished_within_the_cap_is_retried_then_cut(model):
    note = write_note(model, PASSAGE, budget=32, max_new_tokens=3)
    assert note["attempts"] == 5 and note["truncated"] is True
    assert 0 < len(note["note"].split()) <= 3  # three tokens hold at most three words


NO_THINKING = "<think>\n\n</think>\n\n"
"""What Qwen3's chat template appends to the assistant opening under enable_thinking=False."""


@pytest.fixture(scope="module")
def thinking_model(model):
    """The real model, its tokenizer's template reading enable_thinking as Qwen3's does."""
    tokenizer = copy.deepcopy(model.codec._tok)
    opening = "{{ '<|im_start|>assistant\n' }}"
    assert opening in tokenizer.chat_template  # SmolLM2's template reads no such argument
    tokenizer.chat_template = tokenizer.chat_template.replace(
        opening,
        opening + "{% if enable_thinking is defined and not enable_thinking %}"
        "{{ '<think>\\n\\n</think>\\n\\n' }}{% endif %}",
    )
    swapped = copy.copy(model)
    swapped.codec = TextCodec(tokenizer, name="thinking", context_window=model.codec.context_window)
    return swapped


def test_template_kwargs_reach_the_writer_and_the_reader(
    thinking_model, torch_model, float32_budget
):
    codec, off = thinking_model.codec, {"enable_thinking": False}
    tokenizer = codec._tok
    writer_text = WRITER_PROMPT.format(passage=PASSAGE, budget=32)
    for rendering, content in (
        (writer_rendering(codec, PASSAGE, 32, 0, off), writer_text),
        (reader_rendering(codec, ITEMS[1], ITEMS[1].note, off), READER_TEXT),
    ):
        expected = tokenizer.apply_chat_template(
            [{"role": "user", "content": content}],
            tokenize=False,
            add_generation_prompt=True,
            enable_thinking=False,
        )
        assert rendering.text == expected and expected.endswith("assistant\n" + NO_THINKING)
    # the note and the reader's scores follow the prompt rendered with the argument
    thinking_off = write_note(thinking_model, PASSAGE, template_kwargs=off)
    rendered = writer_rendering(codec, PASSAGE, 32, 0, off)
    ids = thinking_model.greedy(rendered.token_ids, 256)
    assert thinking_off["attempts"] == 1
    assert thinking_off["note"] == " ".join(codec.decode(ids, skip_special_tokens=True).split())
    assert thinking_off["note"] != write_note(thinking_model, PASSAGE)["note"]
    read = read_from_note(thinking_model, ITEMS[1], ITEMS[1].note, off)
    text = reader_rendering(codec, ITEMS[1], ITEMS[1].note, off).text
    assert read["reader_logprobs"] == pytest.approx(
        _forward_logliks(torch_model, codec, text), abs=float32_budget(len(codec.encode(text)))
    )
    plain = read_from_note(thinking_model, ITEMS[1], ITEMS[1].note)["reader_logprobs"]
    assert max(abs(a - b) for a, b in zip(read["reader_logprobs"], plain, strict=True)) > 1


@pytest.fixture(scope="module")
def forecast_run(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("forecast") / "run"
    variants = ("production", "stem", "T1_stem")
    settings = OptionsSettings(items=ITEMS, spec=FORECAST, variants=variants, greedy_tokens=4)
    audit_options(model, settings, out)
    return out


def test_downstream_equals_sklearn_on_the_records(forecast_run):
    run = read_run(forecast_run)
    reader = [json.loads(line) for line in (forecast_run / "reader.jsonl").read_text().splitlines()]
    assert [r["id"] for r in reader] == [i.id for i in ITEMS]
    assert reader[0]["attempts"] >= 1 and reader[1]["attempts"] == 0  # written vs given note
    down = run.summary.downstream
    assert down.n == 4 and down.brier_constant_half == 0.25
    assert down.readouts == ["production", "stem", "T1_stem", "written"]
    by = {(r.item_id, r.variant): r for r in run.records}
    assert all(
        by[(i.id, "T1_stem")].rendered_tail.endswith(
            " nothing else.<|im_end|>\n<|im_start|>assistant\nEstimate: "
        )
        for i in ITEMS
    )
    y = np.array([by[(i.id, "production")].target for i in ITEMS], dtype=bool)
    assert down.n_reader_correct == int(y.sum())
    assert [r["reader_correct"] for r in reader] == list(y)
    ids = down.forecasts.ids
    assert sorted(ids) == sorted(i.id for i in ITEMS)
    assert down.forecasts.labels == [by[(i, "production")].target for i in ids]
    # readout (f) reads the original position's greedy text, run to 48 tokens for it
    assert run.manifest.config["production_greedy_tokens"] == 48
    assert all(len(by[(i.id, "stem")].greedy.token_ids) <= 4 for i in ITEMS)
    assert max(len(by[(i.id, "production")].greedy.token_ids) for i in ITEMS) > 4
    assert all(len(by[(i.id, "production")].greedy.token_ids) <= 48 for i in ITEMS)
    written = [written_forecast(by[(i, "production")].greedy.text, FORECAST.options) for i in ids]
    assert down.forecasts.scores["written"] == written
    p = {
        v: np.array([by[(i.id, v)].expected_value / 100 for i in ITEMS]) for v in down.readouts[:3]
    }
    p["written"] = np.array([written[ids.index(i.id)] for i in ITEMS])
    brier = {v: brier_score_loss(y, p[v]) for v in p}
    for variant in p:
        assert down.brier[variant].estimate == pytest.approx(brier[variant])
        if 0 < y.sum() < len(y):
            assert down.auc[variant].estimate == pytest.approx(roc_auc_score(y, p[variant]))
    assert down.forecasts.scores["stem"] == pytest.approx(
        [by[(i, "stem")].expected_value / 100 for i in ids]
    )
    # the paper's direction: Brier(original) − Brier(stemmed), positive when the stem errs less
    assert down.brier["production - stem"].estimate == pytest.approx(
        brier["production"] - brier["stem"]
    )
    assert down.brier_fitted_constant == pytest.approx(
        brier_score_loss(y, np.full(len(y), y.mean()))
    )
    again = forecast_downstream(run.records)
    assert again.model_dump(mode="json") == down.model_dump(mode="json")


def test_forecast_needs_a_note_or_a_passage(model, tmp_path):
    bare = MCItem(id="bare", question="Q?", choices=["x", "y"], answer="A")
    with pytest.raises(InputError, match="note or a passage") as error:
        settings = OptionsSettings(
            items=[bare], spec=FORECAST, variants=("production",), reader=True
        )
        audit_options(model, settings, tmp_path / "r")
    assert error.value.item_id == "bare" and error.value.field == "note"


def test_reader_entries_are_reused_only_for_the_same_item_and_model(model, tmp_path):
    item = ITEMS[1]  # carries its own note: no writing, only the reader
    first = attach_reader(model, [item], tmp_path)
    path = tmp_path / "reader.jsonl"
    assert len(path.read_text().splitlines()) == 1
    again = attach_reader(model, [item], tmp_path)
    assert again == first and len(path.read_text().splitlines()) == 1  # reused
    changed = item.model_copy(update={"answer": "A" if item.answer != "A" else "B"})
    redone = attach_reader(model, [changed], tmp_path)
    assert len(path.read_text().splitlines()) == 2  # same id, other content: read again
    assert redone[0].metadata["reader_correct"] == (
        redone[0].metadata["reader_pick"] == changed.answer
    )
    attach_reader(model, [changed], tmp_path, template_kwargs={"enable_thinking": False})
    assert len(path.read_text().splitlines()) == 3  # other template arguments: read again
