"""The yes/no audit on the real model: token sets, first tokens, readouts and re-reading."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from readout_audit import InputError, YesNoSettings, read_run, run_summary
from readout_audit.data._yesno import demo_yesno_items, load_yesno_items
from readout_audit.scoring._audit import prepare
from readout_audit.stats import binary_scores
from readout_audit.yesno import YesNoRecord
from readout_audit.yesno._audit import YESNO, YesNoSetup, audit_yesno, yesno_item
from readout_audit.yesno._summary import summarise_yesno


@pytest.fixture(scope="module")
def items():
    demo = demo_yesno_items()
    return demo[:4] + demo[10:14] + demo[20:24] + demo[30:34]  # both labels, both splits


@pytest.fixture(scope="module")
def run(model, items, tmp_path_factory):
    """Every readout: Listing 1, the legacy ids, Algorithm 1 and the in-context extension."""
    out = tmp_path_factory.mktemp("yesno") / "run"
    return audit_yesno(model, _settings(items), out), out


def _settings(items, **fields):
    """The module run's settings: every readout, an instruction, a sample of 8, seed 3."""
    defaults = {"instruction": "Answer yes or no.", "in_context_sets": True}
    defaults |= {"diagnostic_sample": 8, "seed": 3}
    return YesNoSettings(items=items, **(defaults | fields))


def test_every_record_logs_the_first_generated_token(model, run, torch_model):
    _, out = run
    records = read_run(out).records
    assert len(records) == 16
    for r in records:
        assert r.first_token_id == r.greedy.token_ids[0] == r.argmax_id
        assert r.first_token == model.codec.decode([r.first_token_id])
        assert r.first_token_in_sets == (r.first_token_id in {*r.yes_ids, *r.no_ids})


def test_dynamic_sets_are_listing1s_and_recorded_in_the_manifest(run):
    _, out = run
    done = read_run(out)
    for r in done.records:
        assert (r.yes_ids, r.no_ids) == ([10407, 10539, 9805, 9230], [4607, 5230, 787, 2838])
        assert r.multi_token_forms == []
        assert r.set_tokens[9230] == " Yes" and r.set_tokens[2838] == " No"
    assert done.manifest.config["listing1_sets"] == {
        "yes": [10407, 10539, 9805, 9230],
        "no": [4607, 5230, 787, 2838],
        "multi_token_forms": [],
    }
    assert done.manifest.config["in_context_sets"] is True
    assert done.manifest.config["extend_sets"] is True


def test_in_context_sets_are_the_forms_one_token_after_the_prompt(model, hf_tokenizer, run):
    _, out = run
    record = next(r for r in read_run(out).records if r.item_id == "easy-01")
    context = hf_tokenizer.apply_chat_template(
        [{"role": "user", "content": "Is Paris the capital of France?\nAnswer yes or no."}],
        tokenize=False,
        add_generation_prompt=True,
    )
    base = hf_tokenizer(context, add_special_tokens=False)["input_ids"]
    expected = {"yes": [], "no": []}
    multi = []
    for form, answer in zip(record.options, record.form_answers, strict=True):
        ids = hf_tokenizer(context + form, add_special_tokens=False)["input_ids"]
        assert ids[: len(base)] == base
        if len(ids) == len(base) + 1:
            expected[answer].append(ids[-1])
        else:
            multi.append(form)
    yes, no = ["yes", "Yes", " yes", " Yes", "YES", " YES"], ["no", "No", " no", " No", "NO", " NO"]
    assert record.options == yes + no
    assert record.in_context_set == [expected["yes"], expected["no"]]
    assert record.in_context_set == [
        [10407, 10539, 9805, 9230],
        [4607, 5230, 787, 2838, 13465, 10921],
    ]
    assert multi == ["YES", " YES"]  # reported, not dropped
    sets = next(
        s for s in YESNO.summary(read_run(out)).token_sets if s["readout"] == "dynamic_in_context"
    )
    assert sets["multi_token_forms"] == ["YES", " YES"] and sets["n_items"] == 16


def test_decisions_follow_from_the_logged_logprobs(run):
    _, out = run
    for r in read_run(out).records:
        lp = r.set_logprobs
        sets = r.logit_sets()
        assert list(sets) == [
            "legacy_pair",
            "legacy_set",
            "algorithm1",
            "dynamic",
            "dynamic_in_context",
        ]
        expected = {}
        for name, (yes, no) in sets.items():
            assert set(lp) >= {*yes, *no}
            expected[name] = "yes" if max(lp[i] for i in yes) > max(lp[i] for i in no) else "no"
        assert r.decisions == {**expected, "string_parse": r.parsed_answer or "yes"}
        # Theorem 1: with the first token in the sets and the parse at that token, they agree.
        if r.first_token_in_sets and r.parse_in_first_token:
            assert r.decisions["string_parse"] == r.decisions["dynamic"]


def test_summary_compares_listing1_with_the_in_context_extension(run):
    result, out = run
    records = read_run(out).records
    comparison = result.summary.in_context
    assert (comparison.a, comparison.b) == ("dynamic", "dynamic_in_context")
    assert [(d.id, d.token, d.answer, d.only_in, d.n_items) for d in comparison.ids] == [
        (10921, " NO", "no", "dynamic_in_context", 16),
        (13465, "NO", "no", "dynamic_in_context", 16),
    ]
    label = np.array([r.label == "yes" for r in records])
    a = np.array([r.decisions["dynamic"] == "yes" for r in records])
    b = np.array([r.decisions["dynamic_in_context"] == "yes" for r in records])
    assert comparison.n_differ == int((a != b).sum())
    for metric in ("f1", "yes_rate"):
        change = getattr(binary_scores(b, label), metric) - getattr(binary_scores(a, label), metric)
        difference = comparison.differences[metric]
        assert difference.estimate == pytest.approx(change)
        assert difference.low <= difference.estimate <= difference.high
    assert "paired" in comparison.differences["f1"].method
    table = result.summary.overall.transitions["dynamic -> dynamic_in_context"]
    assert sum(table["yes"].values()) + sum(table["no"].values()) == 16


def test_summary_is_reproduced_from_the_records_and_closed_form_is_exact(run):
    result, out = run
    again = read_run(out)
    summary = summarise_yesno(again.records, seed=3)
    stored = result.summary
    assert summary.overall.readouts == stored.overall.readouts
    assert summary.overall.transitions == stored.overall.transitions
    for key in ("splits", "emitted_first_tokens"):
        assert getattr(summary, key) == getattr(stored, key)
    # the kind's summary of the run's files adds the checks and the saved diagnostic
    recomputed = YESNO.summary(again)
    assert recomputed.checks == stored.checks and stored.checks
    assert recomputed.model_dump(exclude={"this_invocation"}) == stored.model_dump(
        exclude={"this_invocation"}
    )
    records = again.records
    label = np.array([r.label == "yes" for r in records])
    for name, metrics in summary.overall.readouts.items():
        pred = np.array([r.decisions[name] == "yes" for r in records])
        assert metrics.f1.estimate == binary_scores(pred, label).f1
    for split in summary.splits.values():
        for form in split.closed_form.values():
            assert form.exact and form.f1_closed_form == pytest.approx(form.f1_observed)
    assert sum(summary.emitted_first_tokens.values()) == 16
    assert stored.diagnostic["sample"] == 8
    assert again.artifacts["diagnostic"] == stored.diagnostic


def test_algorithm1_adds_the_emitted_forms_to_the_legacy_sets_by_default(model, items, tmp_path):
    """The model writes ``No`` (5230) and ``Yes`` (10539) first; LLaMA-2's Y and N hold neither."""
    setup = {"in_context_sets": False, "diagnostic_sample": 4, "seed": 0}
    extended = audit_yesno(model, _settings(items[:4], **setup), tmp_path / "a")
    diagnostic = extended.summary.diagnostic
    assert diagnostic["Y"] == [3582, 8241, 4874, 3869] and diagnostic["extended"] is True
    forms = {int(t): v["form"] for t, v in diagnostic["missing"].items()}
    assert forms and set(diagnostic["emitted"]) == set(diagnostic["missing"])
    assert diagnostic["proposed_yes"] == sorted(t for t, f in forms.items() if f == "yes")
    assert diagnostic["proposed_no"] == sorted(t for t, f in forms.items() if f == "no")
    assert set(diagnostic["proposed_yes"] + diagnostic["proposed_no"]) <= {5230, 10539}
    records = read_run(tmp_path / "a").records
    for r in records:
        assert r.algorithm1_set == [
            [3582, 8241, 4874, 3869, *diagnostic["proposed_yes"]],
            [1217, 3782, 694, 1939, *diagnostic["proposed_no"]],
        ]
    checks = {c.name: c.verdict for c in extended.summary.checks}
    assert checks["legacy_set_emitted"] == "fail"
    assert checks["algorithm1_emitted"] == "pass"  # the sample was every item
    plain = audit_yesno(model, _settings(items[:4], **setup, extend_sets=False), tmp_path / "b")
    assert plain.summary.diagnostic["extended"] is False
    assert plain.summary.diagnostic["proposed_no"] == diagnostic["proposed_no"]
    assert all(r.algorithm1_set is None for r in read_run(tmp_path / "b").records)
    assert "algorithm1" not in plain.summary.overall.readouts


def test_raw_prompt_is_scored_at_its_end(model, hf_tokenizer, tmp_path):
    """LLaVA-1.5's template as an item's own prompt: no chat template, scored after ``:``."""
    prompt = "USER: Is the Sun a star? ASSISTANT:"
    path = tmp_path / "raw.jsonl"
    rows = [
        {"id": "sun", "question": "Is the Sun a star?", "label": "yes", "prompt": prompt},
        {"id": "cat", "question": "Do cats have six legs?", "label": "no"},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    items = load_yesno_items(path)
    item = yesno_item(items[0], YesNoSetup())
    assert item.prompt == prompt and item.messages is None
    rendering = prepare(item, model.codec).rendering
    assert rendering.text == "USER: Is the Sun a star? ASSISTANT:"
    ids = hf_tokenizer(prompt, add_special_tokens=False)["input_ids"]
    assert model.codec.prefix_ids == () and rendering.token_ids == tuple(ids)
    result = audit_yesno(model, YesNoSettings(items=items, diagnostic_sample=2), tmp_path / "run")
    done = read_run(tmp_path / "run")
    by_id = {r.item_id: r for r in done.records}
    raw, chat = by_id["sun"], by_id["cat"]
    assert raw.rendered_from == "prompt" and chat.rendered_from == "messages"
    assert raw.rendered_tail == prompt and raw.ending == "none"
    assert raw.n_tokens == len(ids) and raw.last_token_id == ids[-1]
    assert chat.rendered_tail.endswith("<|im_start|>assistant\n")
    assert done.manifest.config["raw_prompt_items"] == 1
    assert result.summary.n_records == 2


def test_raw_prompt_conflicts_are_named(tmp_path):
    path = tmp_path / "raw.jsonl"
    row = {"id": "q", "question": "Is the Sun a star?", "label": "yes"}
    path.write_text(json.dumps({**row, "prompt": "USER: Is it? ASSISTANT:"}) + "\n")
    with pytest.raises(InputError, match="must contain the item's question") as caught:
        load_yesno_items(path)
    assert (caught.value.item_id, caught.value.field, caught.value.line) == ("q", "prompt", 1)
    path.write_text(json.dumps({**row, "prompt": "USER: Is the Sun a star? ASSISTANT:"}) + "\n")
    item = load_yesno_items(path)[0]
    with pytest.raises(InputError, match="instruction cannot be appended") as caught:
        yesno_item(item, YesNoSetup(instruction="Answer yes or no."))
    assert (caught.value.item_id, caught.value.field) == ("q", "prompt")


def test_ids_outside_the_vocabulary_are_refused(model, items, tmp_path):
    settings = YesNoSettings(items=items[:1], legacy_ids=(3582, 10**7))
    with pytest.raises(InputError, match="outside this model's vocabulary"):
        audit_yesno(model, settings, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_an_interrupted_run_is_summarised_and_resumed_like_an_uninterrupted_one(
    model, items, run, tmp_path
):
    result, out = run
    copy = tmp_path / "interrupted"
    shutil.copytree(out, copy)
    lines = (copy / "records.jsonl").read_bytes().splitlines(keepends=True)
    (copy / "records.jsonl").write_bytes(b"".join(lines[:9]) + lines[9][:50])  # killed mid-line
    (copy / "summary.json").unlink()
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["invocations"][-1]["finished"] = None
    (copy / "manifest.json").write_text(json.dumps(manifest))

    interrupted = read_run(copy)
    assert interrupted.state == "cut" and len(interrupted.records) == 9
    reported = run_summary(interrupted)  # what `readout report` shows: diagnostic and seed kept
    assert reported.diagnostic == result.summary.diagnostic
    assert reported.overall == summarise_yesno(interrupted.records, seed=3).overall

    resumed = audit_yesno(model, _settings(items), copy)
    assert resumed.n_new == len(items) - 9
    # the re-scored records come from a smaller batch: equal decisions, logits equal to float32
    # rounding, so every count, metric and interval is equal and the margins are within 1e-4
    skip = {"this_invocation", "margins"}
    assert resumed.summary.model_dump(exclude=skip) == result.summary.model_dump(exclude=skip)
    a, b = resumed.summary.margins, result.summary.margins
    assert a is not None and b is not None and a.ids == b.ids and a.labels == b.labels
    for name, values in a.scores.items():
        assert np.allclose(values, b.scores[name], atol=1e-4, rtol=0)


def _first_token_record(token_id, token, in_sets, pair, algorithm1=None):
    """A yes/no record holding only what the label-free checks read."""
    decisions = {"legacy_pair": "yes", "dynamic": "yes", "string_parse": "yes"}
    if algorithm1 is not None:
        decisions["algorithm1"] = "yes"
    return YesNoRecord.model_construct(
        first_token_id=token_id,
        first_token=token,
        first_token_in_sets=in_sets,
        decisions=decisions,
        yes_ids=[10539],
        no_ids=[5230],
        legacy_pair=list(pair),
        legacy_set=None,
        algorithm1_set=algorithm1,
        in_context_set=None,
        parsed_answer="yes",
        parse_in_first_token=True,
    )


@pytest.mark.parametrize(
    ("pair", "verdict", "missed"),
    [
        ((5230, 10539), "pass", {}),  # both forms the model writes
        ((5230, 999), "fail", {"10539": {"token": "Yes", "count": 2}}),  # misses "Yes"
        (
            (998, 999),
            "fail",
            {"5230": {"token": "No", "count": 3}, "10539": {"token": "Yes", "count": 2}},
        ),
    ],
)
def test_a_legacy_set_fails_when_it_misses_an_emitted_form(pair, verdict, missed):
    from readout_audit.yesno._summary import yesno_checks

    records = [_first_token_record(5230, "No", True, pair) for _ in range(3)]
    records += [_first_token_record(10539, "Yes", True, pair) for _ in range(2)]
    records.append(_first_token_record(504, "The", False, pair))  # not a yes/no form
    check = next(c for c in yesno_checks(records) if c.name == "legacy_pair_emitted")
    assert check.verdict == verdict and check.evidence["missed"] == missed


def test_algorithm1_fails_on_a_form_its_sample_missed():
    """Y, N extended with ``No`` and ``Yes`` only: ``▁YES``, written first outside the sample,
    is a yes/no form the extended sets miss."""
    from readout_audit.yesno._summary import yesno_checks

    algorithm1 = [[3582, 10539], [1217, 5230]]
    records = [_first_token_record(5230, "No", True, (3582, 1217), algorithm1) for _ in range(3)]
    records.append(_first_token_record(10539, "Yes", True, (3582, 1217), algorithm1))
    check = next(c for c in yesno_checks(records) if c.name == "algorithm1_emitted")
    assert check.verdict == "pass" and check.evidence["ids"] == [3582, 10539, 1217, 5230]
    records.append(_first_token_record(76, "\u2581YES", False, (3582, 1217), algorithm1))
    check = next(c for c in yesno_checks(records) if c.name == "algorithm1_emitted")
    assert check.verdict == "fail"
    assert check.evidence["missed"] == {"76": {"token": "\u2581YES", "count": 1}}
    assert "diagnostic-sample" in check.repair


def test_a_model_that_answers_nothing_first_is_told_to_fix_the_prompt():
    """LLaVA's ``ASSISTANT:`` ending makes SmolLM2 write a newline first: no form to add."""
    from readout_audit.yesno._summary import yesno_checks

    records = [_first_token_record(198, "\n", False, (3582, 1217)) for _ in range(2)]
    check = next(c for c in yesno_checks(records) if c.name == "legacy_pair_emitted")
    assert check.verdict == "fail" and check.evidence["missed"] == {}
    assert check.repair == (
        "the model writes no yes/no form first: change the prompt so it answers there"
    )
