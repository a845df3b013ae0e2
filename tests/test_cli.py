"""The ``readout`` command line, run in-process on the real model."""

from __future__ import annotations

import json

import pytest
import torch
from click.testing import CliRunner

from readout_audit import read_run
from readout_audit._cli import main


def write_items(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


@pytest.mark.model
def test_score_writes_a_run_and_prints_a_summary(tmp_path):
    items = tmp_path / "items.jsonl"
    write_items(
        items,
        [
            {
                "id": "a",
                "messages": [{"role": "user", "content": "Is ice cold? Answer yes or no."}],
                "options": ["yes", "no"],
                "target": "yes",
            },
            {
                "id": "b",
                "prompt": "Two plus two is",
                "options": [" four", " five"],
                "target": " four",
            },
        ],
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(
        main,
        [
            "score",
            "--items",
            str(items),
            "--out",
            str(out),
            "--greedy-tokens",
            "3",
            "--template-kwarg",
            "enable_thinking=false",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Per variant (2 records)" in result.output and "median mass" in result.output
    run = read_run(out)
    assert sorted(r.item_id for r in run.records) == ["a", "b"]  # shortest context first
    assert run.manifest.config["template_kwargs"] == {"enable_thinking": False}
    assert run.manifest.invocations[0].finished is not None


def test_bad_items_file_is_a_one_line_error_and_keeps_the_run(tmp_path):
    items = tmp_path / "items.jsonl"
    write_items(items, [{"id": "a", "prompt": "p", "options": ["x", "x"]}])
    result = CliRunner().invoke(
        main, ["score", "--items", str(items), "--out", str(tmp_path / "r")]
    )
    assert result.exit_code == 1
    assert "items.jsonl:1, item 'a', field 'options': option 1 repeats option 0" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "r").exists()  # validation happens before any output is created


def test_unknown_model_and_bad_template_kwarg(tmp_path):
    items = tmp_path / "items.jsonl"
    write_items(items, [{"id": "a", "prompt": "p", "options": ["x"]}])
    runner = CliRunner()
    result = runner.invoke(
        main, ["score", "--items", str(items), "--out", str(tmp_path / "r"), "--model", "gpt-x"]
    )
    assert result.exit_code == 1 and "unknown model spec 'gpt-x'" in result.output
    result = runner.invoke(
        main,
        [
            "score",
            "--items",
            str(items),
            "--out",
            str(tmp_path / "r"),
            "--template-kwarg",
            "novalue",
        ],
    )
    assert result.exit_code == 2 and "expected KEY=VALUE" in result.output


@pytest.mark.model
def test_demo_command(tmp_path):
    result = CliRunner().invoke(
        main, ["demo", "--out", str(tmp_path / "demo"), "--greedy-tokens", "2", "--no-progress"]
    )
    assert result.exit_code == 0, result.output
    assert "forecast-production" in result.output
    assert len(read_run(tmp_path / "demo").records) == 10
    # short by default: the manifest's tables only with --verbose
    assert "Versions" not in result.output and "--verbose (or --html FILE)" in result.output


@pytest.mark.model
def test_threads_cache_budget_and_verbose(tmp_path):
    before = torch.get_num_threads()
    args = ["demo", "--out", str(tmp_path / "demo"), "--greedy-tokens", "1", "--no-progress"]
    try:  # a 1 MB cache: every context of the demo is scored alone
        result = CliRunner().invoke(
            main, [*args, "--threads", "1", "--cache-budget", "1", "--verbose"]
        )
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
    assert result.exit_code == 0, result.output
    assert "Versions" in result.output and "Model files" in result.output
    assert "transformers" in result.output and "--verbose (or" not in result.output
    served = ["--model", "openai:http://127.0.0.1:9/v1#m", "--threads", "2"]
    refused = CliRunner().invoke(main, [*args, *served])
    assert refused.exit_code == 2 and "threads is not read by a served model" in refused.output
    served[-2:] = ["--cache-budget", "64"]
    refused = CliRunner().invoke(main, [*args, *served])
    assert refused.exit_code == 2 and "--cache-budget is not read by a served" in refused.output
    refused = CliRunner().invoke(main, [*args, "--cache-budget", "0"])
    assert refused.exit_code == 2 and "--cache-budget" in refused.output


@pytest.mark.model
def test_quick_ladder_runs_the_rungs_the_checks_read(tmp_path):
    items = tmp_path / "mc.jsonl"
    row = {"id": "q1", "question": "Which is a fruit?", "choices": ["apple", "tin"], "answer": "A"}
    write_items(items, [row])
    out = tmp_path / "run"
    args = ["audit", "options", "--items", str(items), "--spec", "answer", "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--variants", "quick", "--greedy-tokens", "2"])
    assert result.exit_code == 0, result.output
    summary = read_run(out).summary
    assert list(summary.variants) == ["production", "stem", "space_appended"]
    assert [c.name for c in summary.checks][-1] == "stem" and len(summary.checks) == 6


@pytest.mark.model
def test_audit_options_command(tmp_path):
    items = tmp_path / "mc.jsonl"
    write_items(
        items,
        [
            {
                "id": "q1",
                "question": "Which is a fruit?",
                "choices": ["apple", "brick", "sand", "tin"],
                "answer": "A",
                "note": "Apples grow on trees.",
            },
        ],
    )
    out = tmp_path / "run"
    result = CliRunner().invoke(
        main,
        [
            "audit",
            "options",
            "--items",
            str(items),
            "--out",
            str(out),
            "--variants",
            "production,stem,T1_stem",
            "--greedy-tokens",
            "3",
            "--template-kwarg",
            "enable_thinking=false",
            "--no-progress",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Checks" in result.output and "option_mass" in result.output
    assert "Forecast against the note-only reader" in result.output
    assert "(e) T1 with Estimate:" in result.output  # the forecast spec's own T1 rungs
    run = read_run(out)
    summary = run.summary
    assert set(summary.variants) == {"production", "stem", "T1_stem"}
    assert run.manifest.config["template_kwargs"] == {"enable_thinking": False}
    assert [c.name for c in summary.checks] == [
        "option_mass",
        "argmax",
        "continuation",
        "first_tokens",
        "ending",
        "stem",
    ]
    bad = CliRunner().invoke(
        main,
        [
            "audit",
            "options",
            "--items",
            str(items),
            "--out",
            str(tmp_path / "r2"),
            "--variants",
            "production,shout",
        ],
    )
    assert bad.exit_code == 1 and "unknown variant(s) ['shout']" in bad.output


@pytest.mark.model
def test_audit_ptrue_command(tmp_path):
    items = tmp_path / "qa.jsonl"
    write_items(
        items,
        [
            {
                "id": "a",
                "question": "What is the capital of France?",
                "gold": ["Paris"],
                "answer": "Paris",
            },
            {
                "id": "b",
                "question": "What is the capital of Spain?",
                "gold": ["Madrid"],
                "answer": "Lisbon",
            },
        ],
    )
    result = CliRunner().invoke(
        main,
        ["audit", "ptrue", "--items", str(items), "--out", str(tmp_path / "run"), "--no-progress"],
    )
    assert result.exit_code == 0, result.output
    assert "Readouts (2 items, accuracy 0.500)" in result.output
    run = read_run(tmp_path / "run")
    assert len(run.records) == 12 and run.manifest.config["correctness"] == "paper"
    assert run.manifest.config["answers"]["mode"] == "library"
    refused = CliRunner().invoke(
        main,
        [
            "audit",
            "ptrue",
            "--items",
            str(items),
            "--out",
            str(tmp_path / "x"),
            "--greedy-tokens",
            "4",
        ],
    )
    assert refused.exit_code == 2 and "--greedy-tokens does not apply to audit ptrue" in (
        refused.output
    )


@pytest.mark.model
def test_audit_ptrue_on_mmlu_csv_in_the_library_layout(tmp_path):
    for split, rows in (("test", 2), ("dev", 5)):
        (tmp_path / split).mkdir()
        lines = [f"{split} q{n},w,x,y,z,{'ABCD'[n % 4]}" for n in range(rows)]
        (tmp_path / split / f"astronomy_{split}.csv").write_text("\n".join(lines) + "\n")
    common = ["audit", "ptrue", "--items", str(tmp_path / "test"), "--limit", "1"]
    missing = CliRunner().invoke(main, [*common, "--out", str(tmp_path / "x")])
    assert missing.exit_code == 1 and "--shots-from" in missing.output
    result = CliRunner().invoke(
        main,
        [
            *common,
            *("--shots-from", str(tmp_path / "dev"), "--answers", "sample", "--seed", "3"),
            *("--out", str(tmp_path / "run"), "--no-progress"),
        ],
    )
    assert result.exit_code == 0, result.output
    run = read_run(tmp_path / "run")
    config = run.manifest.config
    assert config["answers"]["mode"] == "sample" and config["answers"]["do_sample"] is True
    assert config["answers"]["seed"] == 3 and config["answers"]["min_new_tokens"] == 2
    assert {r.item_id for r in run.records} == {"astronomy_test/1"}
    deleted = next(r for r in run.records if r.readout == "deleted")
    library = next(r for r in run.records if r.readout == "library")
    assert deleted.n_tokens < library.n_tokens  # the instruction is gone, the examples stay


@pytest.mark.model
def test_audit_yesno_command_on_a_pope_file(tmp_path):
    pope = tmp_path / "coco_pope_adversarial.json"
    pope.write_text(
        "".join(
            json.dumps({"question_id": i, "image": f"{i}.jpg", "text": text, "label": label}) + "\n"
            for i, (text, label) in enumerate(
                [("Is the Sun a star?", "yes"), ("Do cats have six legs?", "no")], start=1
            )
        )
    )
    out = tmp_path / "run"
    args = ["audit", "yesno", "--items", str(pope), "--out", str(out), "--no-progress"]
    flags = ["--in-context-sets", "--no-extend-sets"]
    result = CliRunner().invoke(
        main,
        [*args, "--instruction", "Answer yes or no.", "--legacy-ids", "10407,5230", *flags],
    )
    assert result.exit_code == 0, result.output
    run = read_run(out)
    records = run.records
    assert run.manifest.config["greedy_tokens"] == 6  # the paper's string parse, as the API
    assert run.manifest.config["in_context_sets"] is True
    assert run.manifest.config["extend_sets"] is False
    assert set(records[0].decisions) == {
        "legacy_pair",
        "legacy_set",
        "dynamic",
        "dynamic_in_context",
        "string_parse",
    }
    assert "dynamic_in_context − dynamic" in result.output  # the paired comparison
    assert all(len(r.greedy.token_ids) <= 6 for r in records)
    assert [r.split for r in records] == ["adversarial", "adversarial"]
    assert records[0].legacy_pair == [10407, 5230]
    assert "First generated tokens" in result.output and "legacy_pair" in result.output
    for r in records:
        assert str(r.first_token_id) in result.output  # the emitted ids are shown
    bad = CliRunner().invoke(main, [*args, "--legacy-set", "1,2"])
    assert bad.exit_code == 2 and "expected YES_IDS:NO_IDS" in bad.output


def test_out_problems_stop_before_the_model_loads(tmp_path):
    items = tmp_path / "items.jsonl"
    write_items(items, [{"id": "a", "prompt": "p", "options": [" x"]}])
    a_file = tmp_path / "file"
    a_file.write_text("")
    other = tmp_path / "other"
    other.mkdir()
    (other / "manifest.json").write_text(json.dumps({"kind": "yesno", "model": {}, "config": {}}))
    cases = {
        str(a_file): (2, "is a file"),
        str(a_file / "run"): (1, f"cannot be created: {a_file} is a file"),
        str(other): (1, "holds a yesno run and this command writes score runs"),
    }
    for out, (code, message) in cases.items():
        result = CliRunner().invoke(main, ["score", "--items", str(items), "--out", out])
        assert result.exit_code == code, result.output
        assert message in result.output and "loading" not in result.output
        assert "Traceback" not in result.output


@pytest.mark.model
def test_an_item_longer_than_the_window_stops_before_the_weights_load(tmp_path, monkeypatch):
    import transformers

    def no_weights(*args, **kwargs):
        raise AssertionError("the weights were loaded before the items were checked")

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", no_weights)
    items = tmp_path / "items.jsonl"
    write_items(
        items,
        [
            {"id": "short", "prompt": "Two plus two is", "options": [" four"]},
            {"id": "long", "prompt": "word " * 9000, "options": [" x"]},
        ],
    )
    result = CliRunner().invoke(
        main, ["score", "--items", str(items), "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 1, result.output
    assert f"{items}:2, item 'long', field 'prompt': context is 9001 tokens, beyond the " in (
        result.output
    )
    assert "model's window of 8192" in result.output
    assert not (tmp_path / "run").exists()
