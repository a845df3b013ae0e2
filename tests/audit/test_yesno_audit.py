"""The yes/no audit on the real model: token sets, first tokens, readouts and re-reading."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from readout_audit import InputError, read_run, run_summary
from readout_audit.audit._yesno import YESNO, YesNoSetup, audit_yesno
from readout_audit.audit._yesno_summary import summarise_yesno
from readout_audit.data._yesno import demo_yesno_items
from readout_audit.stats import binary_scores


@pytest.fixture(scope="module")
def items():
    demo = demo_yesno_items()
    return demo[:4] + demo[10:14] + demo[20:24] + demo[30:34]  # both labels, both splits


@pytest.fixture(scope="module")
def run(model, items, tmp_path_factory):
    out = tmp_path_factory.mktemp("yesno") / "run"
    setup = YesNoSetup(instruction="Answer yes or no.")
    return audit_yesno(model, items, out, setup=setup, diagnostic_sample=8, seed=3), out


def test_every_record_logs_the_first_generated_token(model, run, torch_model):
    _, out = run
    records = read_run(out).records
    assert len(records) == 16
    for r in records:
        assert r.first_token_id == r.greedy.token_ids[0] == r.argmax_id
        assert r.first_token == model.codec.decode([r.first_token_id])
        assert r.first_token_in_sets == (r.first_token_id in {*r.yes_ids, *r.no_ids})


def test_token_sets_are_the_forms_one_token_after_the_prompt(model, hf_tokenizer, run):
    _, out = run
    record = read_run(out).records[0]
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
    assert record.yes_ids == list(dict.fromkeys(expected["yes"]))
    assert record.no_ids == list(dict.fromkeys(expected["no"]))
    assert record.multi_token_forms == multi and "YES" in multi  # reported, not dropped
    for token in record.yes_ids:
        assert model.codec.decode([token]).strip().lower() == "yes"


def test_decisions_follow_from_the_logged_logprobs(run):
    _, out = run
    for r in read_run(out).records:
        lp = r.set_logprobs
        assert set(lp) >= {*r.yes_ids, *r.no_ids, *r.legacy_pair}
        dynamic = "yes" if max(lp[i] for i in r.yes_ids) > max(lp[i] for i in r.no_ids) else "no"
        pair = "yes" if lp[r.legacy_pair[0]] > lp[r.legacy_pair[1]] else "no"
        legacy = (
            "yes"
            if max(lp[i] for i in r.legacy_set[0]) > max(lp[i] for i in r.legacy_set[1])
            else "no"
        )
        assert r.decisions == {
            "legacy_pair": pair,
            "legacy_set": legacy,
            "dynamic": dynamic,
            "string_parse": r.parsed_answer or "yes",
        }
        # Theorem 1: with the first token in the sets and the parse at that token, they agree.
        if r.first_token_in_sets and r.parse_in_first_token:
            assert r.decisions["string_parse"] == r.decisions["dynamic"]


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


def test_diagnostic_proposes_emitted_forms_and_extends_the_sets(model, items, tmp_path):
    """With only lowercase forms declared, the model's capitalised first tokens fall outside."""
    setup = YesNoSetup(
        yes_forms=("yes",),
        no_forms=("no",),
        legacy_pair=None,
        legacy_set=None,
        instruction="Answer yes or no.",
    )
    plain = audit_yesno(model, items[:4], tmp_path / "a", setup=setup, diagnostic_sample=4)
    outside = plain.summary.diagnostic["outside_sets"]
    assert outside, "the capitalised answer token should be outside a lowercase-only set"
    proposed = plain.summary.diagnostic["proposed_no"] + plain.summary.diagnostic["proposed_yes"]
    assert proposed and all(str(t) in outside for t in proposed)
    extended = audit_yesno(
        model, items[:4], tmp_path / "b", setup=setup, diagnostic_sample=4, extend_sets=True
    )
    record = read_run(tmp_path / "b").records[0]
    assert set(proposed) <= {*record.yes_ids, *record.no_ids}
    assert not {str(t) for t in proposed} & set(extended.summary.outside_sets)


def test_ids_outside_the_vocabulary_are_refused(model, items, tmp_path):
    setup = YesNoSetup(legacy_pair=(3582, 10**7))
    with pytest.raises(InputError, match="outside this model's vocabulary"):
        audit_yesno(model, items[:1], tmp_path / "run", setup=setup)
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

    setup = YesNoSetup(instruction="Answer yes or no.")
    resumed = audit_yesno(model, items, copy, setup=setup, diagnostic_sample=8, seed=3)
    assert resumed.n_new == len(items) - 9
    # the re-scored records come from a smaller batch: equal decisions, logits equal to float32
    # rounding, so every count, metric and interval is equal and the margins are within 1e-4
    skip = {"this_invocation", "margins"}
    assert resumed.summary.model_dump(exclude=skip) == result.summary.model_dump(exclude=skip)
    a, b = resumed.summary.margins, result.summary.margins
    assert a is not None and b is not None and a.ids == b.ids and a.labels == b.labels
    for name, values in a.scores.items():
        assert np.allclose(values, b.scores[name], atol=1e-4, rtol=0)


def _first_token_record(token_id, token, in_sets, pair):
    """A yes/no record holding only what the label-free checks read."""
    from readout_audit.log import YesNoRecord

    return YesNoRecord.model_construct(
        first_token_id=token_id,
        first_token=token,
        first_token_in_sets=in_sets,
        decisions={"legacy_pair": "yes", "dynamic": "yes", "string_parse": "yes"},
        legacy_pair=list(pair),
        legacy_set=None,
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
    from readout_audit.audit._yesno_summary import yesno_checks

    records = [_first_token_record(5230, "No", True, pair) for _ in range(3)]
    records += [_first_token_record(10539, "Yes", True, pair) for _ in range(2)]
    records.append(_first_token_record(504, "The", False, pair))  # not a yes/no form
    check = next(c for c in yesno_checks(records) if c.name == "legacy_pair_emitted")
    assert check.verdict == verdict and check.evidence["missed"] == missed
