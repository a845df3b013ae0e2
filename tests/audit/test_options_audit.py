"""The constrained-option audit on the real model: each check's pass and fail paths."""

from __future__ import annotations

import json

import numpy as np
import pytest

from readout_audit import Item, OptionsSettings, RunDirectoryError, read_run
from readout_audit.data._mc import MCItem
from readout_audit.options._audit import (
    OPTIONS,
    audit_options,
    options_record,
    summarise_options,
)
from readout_audit.options._checks import check_ending, check_first_tokens, check_mass
from readout_audit.prompt._spec import FORECAST, build_item
from readout_audit.scoring import prepare

ITEMS = [
    MCItem(
        id="garden",
        question="Which tool would a gardener most likely use to loosen soil?",
        choices=["a rake", "a spoon", "a stapler", "a ladder"],
        answer="A",
        note="Gardeners break up packed earth with a toothed hand tool.",
    ),
    MCItem(
        id="bread",
        question="Why does bread dough rise?",
        choices=["salt dissolves", "yeast releases gas", "the flour melts", "water evaporates"],
        answer="B",
        note="Tiny organisms in dough eat sugar and give off gas.",
    ),
]


@pytest.fixture(scope="module")
def forecast_run(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("options") / "run"
    variants = ("production", "stem", "space_appended", "T1")
    settings = OptionsSettings(items=ITEMS, spec=FORECAST, variants=variants, greedy_tokens=6)
    audit_options(model, settings, out)
    return read_run(out)


def test_letter_pull_fails_and_the_stem_repairs_it(forecast_run):
    checks = {c.name: c for c in forecast_run.summary.checks}
    production = forecast_run.summary.variants["production"]
    # The quoted item's own letter instruction takes the position on this model.
    assert production.letter_rate == 1.0 and production.median_mass < 0.5
    assert checks["option_mass"].verdict == "fail"
    assert checks["argmax"].verdict == "fail" and "letter pull" in checks["argmax"].finding
    assert checks["continuation"].verdict == "fail"
    stemmed = forecast_run.summary.variants["stem"]
    assert stemmed.median_mass > 0.5 and stemmed.option_argmax_rate == 1.0
    assert checks["stem"].verdict == "pass"
    assert set(checks["stem"].evidence["repaired"]) == {"option_mass", "argmax", "continuation"}
    assert checks["first_tokens"].verdict == "pass"


def test_records_and_summary_re_read_without_the_model(forecast_run):
    stored = forecast_run.summary.model_dump(mode="json", exclude={"this_invocation"})
    recomputed = OPTIONS.summary(forecast_run)
    assert recomputed.model_dump(mode="json", exclude={"this_invocation"}) == stored
    summary = summarise_options(forecast_run.records)  # the records alone, without the checks
    assert summary.checks == [] and recomputed.checks
    assert summary.model_dump(mode="json", exclude={"this_invocation", "checks"}) == {
        k: v for k, v in stored.items() if k != "checks"
    }
    # written to disk and read back as JSON, the summary is the same data
    on_disk = json.loads((forecast_run.directory / "summary.json").read_text())
    assert {k: v for k, v in on_disk.items() if k not in ("this_invocation", "integrity")} == stored
    record = forecast_run.records[0]
    assert record.spec == "forecast" and record.item_letters == ["A", "B", "C", "D"]
    assert record.isolated_first_ids == record.option_first_ids  # byte-level BPE: they coincide
    assert record.isolated_mass == pytest.approx(record.option_mass)
    assert set(record.readout_choices) == {
        "loglik",
        "acc_norm",
        "acc_bytes",
        "first_token",
        "greedy",
    }


def test_continuation_classes_flags_and_letter_pull_per_rung(forecast_run):
    from collections import Counter

    from readout_audit.readout import letter_pull, read_continuation

    for variant, rung in forecast_run.summary.variants.items():
        records = [r for r in forecast_run.records if r.variant == variant]
        readings = []
        for r in records:
            recitals = [r.metadata["question"], *r.metadata["instructions"]]
            reading = read_continuation(r.greedy.text, r.options, r.item_letters, recitals)
            assert r.continuation_class == reading.continuation_class
            assert r.letter_pull == letter_pull(
                r.argmax_class == "answer_letter", r.argmax_token, r.greedy.text
            )
            readings.append(reading)
        assert rung.continuation_classes == dict(Counter(r.continuation_class for r in records))
        assert rung.n_option_anywhere == sum(x.option_anywhere for x in readings)
        assert rung.n_answer_then_option == sum(x.answer_then_option for x in readings)
        assert rung.letter_rate == np.mean([r.letter_pull for r in records])
        measured = [r for r in records if r.boundary_preserved]
        assert rung.n_argmax_off_options == sum(not r.argmax_is_option for r in measured)
    variants = forecast_run.summary.variants
    # the quoted item's letter opens the production continuation; the stem and T1 open a forecast
    assert variants["production"].n_argmax_off_options == 2
    assert variants["stem"].continuation_classes == {"gives_option": 2}
    assert variants["T1"].continuation_classes == {"gives_option": 2}
    assert variants["T1"].letter_rate == 0.0 and variants["T1"].n_argmax_off_options == 0


def test_the_report_shows_the_continuation_table(forecast_run):
    from readout_audit.report import render_html

    html = render_html(forecast_run)
    assert "What the greedy continuation writes first" in html
    for column in ("answers the item", "gives an option", "recites question or instruction"):
        assert column in html
    assert "argmax off the options" in html and "letter pull" in html


def test_version_1_records_are_read_with_the_new_rules(forecast_run, tmp_path):
    import shutil

    from readout_audit.log import RECORD_SCHEMA_VERSION

    copy = tmp_path / "old"
    shutil.copytree(forecast_run.directory, copy)
    (copy / "summary.json").unlink()
    new_fields = ("letter_pull", "answer_then_option", "option_anywhere", "letter_anywhere")
    lines = []
    for line in (copy / "records.jsonl").read_text().splitlines():
        raw = json.loads(line)
        for name in new_fields:
            raw.pop(name)
        raw["metadata"].pop("question")
        raw["metadata"].pop("instructions")
        raw["schema_version"] = 1
        raw["continuation_class"] = "other"  # version 1's class, read again on upgrade
        lines.append(json.dumps(raw) + "\n")
    (copy / "records.jsonl").write_text("".join(lines))
    old = read_run(copy)
    assert all(r.schema_version == RECORD_SCHEMA_VERSION for r in old.records)
    current = {(r.item_id, r.variant): r for r in forecast_run.records}
    for r in old.records:
        # no recited prompt text in these continuations, so nothing is lost without it
        assert r.continuation_class == current[r.item_id, r.variant].continuation_class
        assert r.letter_pull == current[r.item_id, r.variant].letter_pull
    bad = tmp_path / "bad"
    shutil.copytree(copy, bad)
    broken = json.loads(lines[0])
    broken.pop("greedy")
    (bad / "records.jsonl").write_text(json.dumps(broken) + "\n")
    with pytest.raises(RunDirectoryError, match=r"records.jsonl:1: not a valid version-1 record"):
        read_run(bad)


def test_trailing_space_breaks_the_boundary_and_fails_the_ending_check(forecast_run):
    spaced = [r for r in forecast_run.records if r.variant == "space_appended"]
    assert all(r.option_mass is None and r.ending == "space" for r in spaced)
    assert check_ending(spaced, None, "spaced").verdict == "fail"


def _records(model, items, variant="production"):
    return [
        options_record(
            model,
            prepare(i, model.codec, greedy_tokens=4, variant=variant),
            spec="test",
            top_k=5,
            greedy_tokens=4,
        )
        for i in items
    ]


CHAT = [{"role": "user", "content": "How many legs does a spider have?"}]


def test_shared_first_tokens_fail_and_distinct_ones_pass(model):
    shared = _records(model, [Item(id="s", messages=CHAT, options=["10", "12", "16"])])
    assert shared[0].distinct_first_tokens is False
    assert check_first_tokens(shared, "x").verdict == "fail"
    distinct = _records(model, [Item(id="d", messages=CHAT, options=["6", "8", "9"])])
    assert check_first_tokens(distinct, "x").verdict == "pass"


def test_an_ending_without_separator_fails_when_a_space_restores_the_options(model):
    forecast = build_item(FORECAST, ITEMS[0], "production")
    glued = _records(
        model, [forecast.model_copy(update={"stem": "Out of 100 such readers, about"})]
    )
    spaced = _records(
        model,
        [forecast.model_copy(update={"stem": "Out of 100 such readers, about "})],
        variant="space_appended",
    )
    assert glued[0].ending == "none" and spaced[0].ending == "space"
    assert glued[0].option_mass < 0.5 <= spaced[0].option_mass
    verdict = check_ending(glued, spaced, "glued")
    assert verdict.verdict == "fail" and "omits the separator" in verdict.finding
    assert check_ending(spaced, None, "spaced").verdict == "pass"
    assert check_mass(spaced, "x").verdict == "pass" and check_mass(glued, "x").verdict == "fail"


MMLU_ROWS = [
    ("Which planet is known as the red planet?", "Venus", "Mars", "Jupiter", "Saturn", "B"),
    ("What do bees make?", "honey", "milk", "silk", "glass", "A"),
    ("How many legs does a spider have?", "six", "four", "ten", "eight", "D"),
    ("Which animal is a fish?", "owl", "bat", "trout", "cat", "C"),
    ("What is frozen water called?", "steam", "ice", "mist", "dew", "B"),
    ("Which gas do plants take in?", "carbon dioxide", "helium", "neon", "argon", "A"),
]


@pytest.mark.model
def test_answer_spec_reports_accuracy_per_rung_in_summary_terminal_and_html(tmp_path):
    from click.testing import CliRunner

    from readout_audit._cli import main
    from readout_audit.report import render_html

    folder = tmp_path / "mmlu"
    folder.mkdir()
    (folder / "toy_test.csv").write_text(
        "".join(",".join(f'"{cell}"' for cell in row) + "\n" for row in MMLU_ROWS)
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(
        main,
        [
            *("audit", "options", "--items", str(folder), "--spec", "answer"),
            *("--out", str(out), "--variants", "production,stem", "--greedy-tokens", "2"),
            *("--limit", "5"),
        ],
    )
    assert result.exit_code == 0, result.output
    run = read_run(out)
    html = render_html(run)
    for variant, rung in run.summary.variants.items():
        records = [r for r in run.records if r.variant == variant]
        assert len(records) == 5
        gold = {r.item_id: r.target for r in records}
        # independent: argmax of the stored log-likelihoods, and of the first-token log-probs
        by_loglik = [
            r.options[int(np.argmax(r.option_logprobs))] == gold[r.item_id] for r in records
        ]
        firsts = [[t[0] for t in r.option_token_logprobs] for r in records]
        by_mass = [
            r.options[int(np.argmax(f))] == gold[r.item_id]
            for r, f in zip(records, firsts, strict=True)
        ]
        accuracy = rung.accuracy
        assert accuracy is not None and accuracy.n_unscored == 0
        assert accuracy.loglik.estimate == pytest.approx(np.mean(by_loglik), abs=1e-12)
        assert accuracy.option_mass.estimate == pytest.approx(np.mean(by_mass), abs=1e-12)
        assert accuracy.loglik.low <= accuracy.loglik.estimate <= accuracy.loglik.high
        assert accuracy.loglik.n == 5 and accuracy.loglik.caution == "n=5<30"
        row = f"{accuracy.loglik.estimate:.3f}"
        assert row in result.output and row in html
    assert "Accuracy against the gold answers" in result.output
    assert "(n=5<30)" in result.output and "(n=5&lt;30)" in html  # the caution, escaped


@pytest.mark.parametrize(
    ("base", "spaced", "lifted"),
    [
        (0.03, 0.38, True),  # the paper's falcon: material, though below the floor
        (0.40, 0.60, True),  # across the floor
        (0.30, 0.36, False),  # a small rise
        (0.20, 0.35, False),  # +0.15 but not doubled
        (0.01, 0.05, False),  # doubled but under +0.1
        (0.60, 0.95, False),  # already above the floor
    ],
)
def test_a_material_lift_from_a_space_marks_an_omitted_separator(base, spaced, lifted):
    from readout_audit.options._checks import separator_lift

    assert separator_lift(base, spaced) is lifted
