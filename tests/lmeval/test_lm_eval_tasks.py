"""The lm-eval audit against lm-evaluation-harness itself: same requests, same numbers."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from readout_audit import LMEvalRun, ScoringModel
from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.lmeval import (
    DocReading,
    LMEvalRecord,
    TaskOptions,
    TaskSettings,
    audit_lm_eval,
    read_samples,
    task_documents,
)
from readout_audit.log import read_run

pytestmark = [pytest.mark.model, pytest.mark.cost(50)]
AUDITED = ("tp_plain", "tp_fewshot", "tp_shared", "tp_space", "tp_loglik")
STEM = " The answer is"
"""A stem none of the test tasks' contexts ends in (each ends in ``Answer:``)."""


def lm_eval_samples(model: ScoringModel, task_dir: Path, **settings: Any) -> dict[str, list]:
    """lm-eval's ``simple_evaluate`` on the same model object, with its logged samples."""
    from lm_eval import simple_evaluate
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    hflm = HFLM(pretrained=model._model, tokenizer=model.codec._tok, batch_size=4)
    results = simple_evaluate(
        model=hflm,
        tasks=["tp_all"],
        task_manager=TaskManager(include_path=str(task_dir), include_defaults=False),
        log_samples=True,
        limit=3,
        **settings,
    )
    return results["samples"]


def audited(model: ScoringModel, task_dir: Path, out: Path, **settings: Any) -> list[LMEvalRecord]:
    """This project's audit of the same tasks and documents, with both repairs."""
    tasks = TaskOptions(tasks=("tp_all",), include_path=str(task_dir), limit=3, **settings)
    reading = DocReading(stem=STEM, keep_whitespace=True)
    audit_lm_eval(model, LMEvalRun(tasks=tasks, reading=reading), out)
    return read_run(out).of(LMEvalRecord).records


def assert_same(records: list[LMEvalRecord], samples: dict[str, list], budget: Any) -> None:
    """Every document's requests, log-likelihoods and acc/acc_norm are lm-eval's own."""
    assert sorted({r.task for r in records}) == sorted(AUDITED)
    assert set(samples) == set(AUDITED)
    original = [r for r in records if r.variant == "production"]
    assert len(original) == sum(len(rows) for rows in samples.values())
    for record in original:
        sample = next(s for s in samples[record.task] if s["doc_id"] == record.doc_id)
        pairs = [tuple(a) for a in sample["arguments"]]
        (context,) = {c for c, _ in pairs}
        kept = context.rstrip()
        # lm-eval's own context and continuations, read after its trailing-whitespace move
        assert record.rendered_sha256 == hashlib.sha256(kept.encode("utf-8")).hexdigest()
        assert record.moved_whitespace == context[len(kept) :]
        assert record.options == [record.moved_whitespace + cont for _, cont in pairs]
        logged = [float(r[0]) for r in sample["filtered_resps"]]
        ours = [float(x) for x in record.option_logprobs if x is not None]
        assert len(ours) == len(logged)
        tolerance = budget(record.n_tokens)
        assert max(abs(a - b) for a, b in zip(ours, logged, strict=True)) <= tolerance
        metrics = [m for m in ("acc", "acc_norm", "exact_match") if m in sample]
        assert metrics and {m: record.lm_eval_metrics[m] for m in metrics} == {
            m: sample[m] for m in metrics
        }


@pytest.fixture(scope="module")
def plain_run(
    model: ScoringModel, task_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[LMEvalRecord], dict[str, list], Path]:
    """Zero-shot and few-shot tasks without a chat template: ours, lm-eval's, and its samples."""
    out = tmp_path_factory.mktemp("lm_eval_plain") / "run"
    records = audited(model, task_dir, out)
    samples = lm_eval_samples(model, task_dir)
    return records, samples, out


def test_requests_and_numbers_are_lm_evals(plain_run, float32_budget) -> None:
    records, samples, _ = plain_run
    assert_same(records, samples, float32_budget)
    by_task = {r.task: r for r in records}
    # the few-shot task's context holds its two first_n dev examples
    assert by_task["tp_fewshot"].n_tokens > by_task["tp_plain"].n_tokens + 20
    # full-text choices that share " the": the first-token readout cannot separate them
    shared = [r for r in records if r.task == "tp_shared" and r.variant == "production"]
    assert shared and all(r.distinct_first_tokens is False for r in shared)
    # "Answer: " + "ice": lm-eval reads before the space, as " ice"
    space = [r for r in records if r.task == "tp_space" and r.variant == "production"]
    assert {r.moved_whitespace for r in space} == {" "}
    assert all(o.startswith(" ") for r in space for o in r.options)
    # the repair reads after the space, with lm-eval's continuations as they are: where " silk"
    # is one token, "silk" after the space merges with it and the option cannot be scored there
    kept = [r for r in records if r.task == "tp_space" and r.variant == "whitespace_kept"]
    assert [r.options for r in kept] == [list(r.choices) for r in space]
    assert all(r.ending == "space" for r in kept)
    assert any(not r.boundary_preserved for r in kept)
    assert all(not r.lm_eval_metrics for r in kept if not r.boundary_preserved)
    # only documents ending in whitespace get that rung; every document gets the stem
    assert {r.task for r in records if r.variant == "whitespace_kept"} == {"tp_space"}
    stems = [r for r in records if r.variant == "stem"]
    assert len(stems) == sum(r.variant == "production" for r in records) == 15
    assert all(r.rendered_tail.endswith(f"Answer:{STEM}") for r in stems if r.task == "tp_plain")


def test_chat_template_few_shot_as_multiturn(
    model: ScoringModel, task_dir: Path, tmp_path: Path, float32_budget
) -> None:
    chat = {"apply_chat_template": True, "fewshot_as_multiturn": True}
    records = audited(model, task_dir, tmp_path / "run", system_instruction="Be brief.", **chat)
    samples = lm_eval_samples(model, task_dir, system_instruction="Be brief.", **chat)
    assert_same(records, samples, float32_budget)
    fewshot = [r for r in records if r.task == "tp_fewshot"]
    # two solved examples as user/assistant turns, then the question's turn
    plain = [r for r in records if r.task == "tp_plain"]
    assert min(r.n_tokens for r in fewshot) > max(r.n_tokens for r in plain) + 20
    # the assistant turn opens with a newline, which lm-eval moves onto every continuation:
    # it reads the position before it, and scores "\nA"
    original = [r for r in records if r.variant == "production"]
    assert all(r.rendered_tail.endswith("<|im_start|>assistant") for r in original)
    assert {r.moved_whitespace for r in original} == {"\n"}
    # every "\nA" opens with the same newline token: its mass separates nothing
    checks = {c.name: c.verdict for c in read_run(tmp_path / "run").summary.checks}
    assert checks["first_tokens tp_plain"] == "fail" and checks["option_mass tp_plain"] == "fail"
    by_variant = {(r.variant, r.doc_id): r for r in fewshot}
    assert all(
        r.options == ["\nA", "\nB", "\nC", "\nD"]
        for (v, _), r in by_variant.items()
        if v == "production"
    )
    # read after the newline instead, the letters are the options
    kept = [r for r in fewshot if r.variant == "whitespace_kept"]
    assert len(kept) == 3 and all(r.options == ["A", "B", "C", "D"] for r in kept)
    assert all(r.rendered_tail.endswith("<|im_start|>assistant\n") for r in kept)


def test_summary_per_task_and_group(plain_run) -> None:
    records, samples, out = plain_run
    summary = read_run(out).summary
    rows = {t.name: t for t in summary.tasks}
    assert set(rows) == set(AUDITED)
    for name, row in rows.items():
        mine = [
            r.lm_eval_metrics["acc"]
            for r in records
            if r.task == name and r.variant == "production"
        ]
        assert row.acc.estimate == pytest.approx(sum(mine) / len(mine))
        assert row.acc.estimate == pytest.approx(
            sum(s["acc"] for s in samples[name]) / len(samples[name])
        )
        assert row.acc.low <= row.acc.estimate <= row.acc.high
    (group,) = summary.groups
    assert group.name == "tp_all" and group.n_docs == 15
    assert set(rows["tp_space"].repairs) == {"stem", "whitespace_kept"}
    assert set(rows["tp_plain"].repairs) == {"stem"}
    stem_acc = [
        r.lm_eval_metrics["acc"] for r in records if r.task == "tp_plain" and r.variant == "stem"
    ]
    assert rows["tp_plain"].repairs["stem"].acc.estimate == pytest.approx(sum(stem_acc) / 3)
    assert group.acc.n_clusters == len(AUDITED)
    names = [c.name for c in summary.checks]
    assert "first_tokens tp_shared" in names and "first_tokens tp_all" in names
    shared = next(c for c in summary.checks if c.name == "first_tokens tp_shared")
    assert shared.verdict == "fail"


def save_samples(samples: dict[str, list], folder: Path) -> Path:
    """The samples as lm-eval's own ``--log_samples`` writes them (its EvaluationTracker)."""
    from lm_eval.loggers import EvaluationTracker

    tracker = EvaluationTracker(output_path=str(folder / "results.json"))
    # the stamp lm-eval sets while saving the aggregated results, which come first there
    tracker.date_id = datetime.now().isoformat().replace(":", "-")
    for task, rows in samples.items():
        tracker.save_results_samples(task_name=task, samples=json.loads(json.dumps(rows)))
    return folder


def test_logged_samples_are_reproduced(plain_run, tmp_path: Path) -> None:
    _, samples, _ = plain_run
    logged = save_samples(samples, tmp_path / "logged")
    assert len(list(logged.glob("samples_tp_*_*.jsonl"))) == len(AUDITED)
    view = tmp_path / "audit.json"
    argv = ["audit", "lm-eval", "--samples", str(logged), "--json", str(view)]
    result = CliRunner().invoke(main, [*argv, "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    summary = read_run(tmp_path / "run").summary
    written = json.loads(view.read_text(encoding="utf-8"))
    assert set(written["results"]) == set(AUDITED)
    for row in summary.tasks:
        mine = written["results"][row.name]
        assert mine["acc"] == row.acc.estimate
        assert mine["readout_audit"]["reproduced"] is True
        assert mine["readout_audit"]["checks"]["reproduced"] == "pass"
    reproduced = {c.name: c.verdict for c in summary.checks if c.name.startswith("reproduced")}
    assert reproduced == {f"reproduced {t}": "pass" for t in AUDITED}
    # the logged run's acc, re-read, is the re-scored one
    for row in summary.tasks:
        assert row.reproduction is not None and row.reproduction.reproduced
        assert row.reproduction.logged_acc == pytest.approx(row.acc.estimate)


def test_altered_samples_are_named(plain_run, tmp_path: Path) -> None:
    _, samples, _ = plain_run
    logged = save_samples(samples, tmp_path / "logged")
    (path,) = logged.glob("samples_tp_plain_*.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[1])
    lls = [float(r[0]) for r in row["filtered_resps"]]
    loser = lls.index(min(lls))
    row["filtered_resps"][loser][0] = str(max(lls) + 1.0)  # the logged decision flips
    lines[1] = json.dumps(row)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["audit", "lm-eval", "--samples", str(path), "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 0, result.output
    summary = read_run(tmp_path / "run").summary
    check = next(c for c in summary.checks if c.name == "reproduced tp_plain")
    assert check.verdict == "fail"
    assert summary.checks[0] is check or summary.checks[0].name == "reproduced tp_plain"
    assert f"tp_plain/{row['doc_id']}" in check.finding
    assert check.evidence["decision_changes"] == [f"tp_plain/{row['doc_id']}"]


def test_bad_tasks_are_named(model: ScoringModel, task_dir: Path) -> None:
    with pytest.raises(InputError, match="no task, group or tag 'tp_nowhere'"):
        task_documents(TaskSettings(tasks=("tp_nowhere",), include_path=str(task_dir)), None)
    with pytest.raises(InputError, match="'tp_generate' is a generate_until task"):
        task_documents(TaskSettings(tasks=("tp_generate",), include_path=str(task_dir)), None)
    with pytest.raises(InputError, match=r"could not build 'tp_hub' \(offline: pass --allow"):
        task_documents(TaskSettings(tasks=("tp_hub",), include_path=str(task_dir)), None)


def test_bad_samples_are_named(plain_run, tmp_path: Path) -> None:
    _, samples, _ = plain_run
    logged = save_samples(samples, tmp_path / "logged")
    with pytest.raises(InputError, match="a logged run of task 'tp_plain', not of tp_space"):
        read_samples(next(logged.glob("samples_tp_plain_*.jsonl")), tasks=["tp_space"])
    (path,) = logged.glob("samples_tp_shared_*.jsonl")
    text = path.read_text(encoding="utf-8")
    path.write_text(text[: len(text) - 40], encoding="utf-8")  # cut inside the last line
    last = len(text.splitlines())
    with pytest.raises(InputError, match=rf"samples_tp_shared_.*:{last}: malformed JSON"):
        read_samples(path)
    generated = logged / "samples_tp_generate_2026-01-01T00-00-00.000000.jsonl"
    row = {"doc_id": 0, "arguments": {"gen_args_0": {"arg_0": "Q", "arg_1": {"until": ["\n"]}}}}
    generated.write_text(json.dumps(row) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r":1, field 'arguments': a generate_until request"):
        read_samples(generated)


def test_html_report_shows_the_tasks_and_repairs(plain_run, tmp_path: Path) -> None:
    _, _, out = plain_run
    page = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(out), "--html", str(page)])
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    assert "the readout audit</" in html and "What a repair changes" in html
    assert all(task in html for task in AUDITED) and "first_tokens tp_shared" in html
