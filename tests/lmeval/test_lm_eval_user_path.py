"""An lm-eval user's daily step on the CLI: advice in the task's terms, a stem that is already
there, table and compare of two runs, lm-eval's own spellings and errors that point the way."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from rich.console import Console

from readout_audit._cli import main
from readout_audit.lmeval import LMEvalRecord
from readout_audit.log import read_run
from readout_audit.readout import MASS_FLOOR
from readout_audit.report import print_report
from readout_audit.report._blocks import fmt

pytestmark = pytest.mark.model


def audit(task_dir: Path, out: Path, *args: str) -> str:
    """``readout audit lm-eval`` with lm-eval's own option spellings, as a user pastes them."""
    argv = ["audit", "lm-eval", "--include_path", str(task_dir), "--limit", "3", *args]
    result = CliRunner().invoke(main, [*argv, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def zero_and_two_shot(task_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """tp_plain zero-shot with a stem, and with two solved examples: two runs to compare."""
    folder = tmp_path_factory.mktemp("lm_eval_user")
    runs = [folder / "zero", folder / "two"]
    audit(task_dir, runs[0], "--tasks", "tp_plain,tp_shared", "--stem", " The answer is")
    audit(task_dir, runs[1], "--tasks", "tp_plain,tp_shared", "--num_fewshot", "2")
    return runs


def test_advice_names_the_tasks_knobs_ranked_by_what_was_measured(zero_and_two_shot) -> None:
    zero = read_run(zero_and_two_shot[0])
    records = zero.of(LMEvalRecord).records
    plain = {t.name: t for t in zero.summary.tasks}["tp_plain"]
    assert plain.share_below_floor and plain.share_below_floor > 0  # zero-shot letters collapse
    knobs = [a.knob for a in plain.advice]
    assert knobs[:2] == ["doc_to_text", "num_fewshot"]  # the measured stem first
    stem = plain.advice[0]
    assert stem.median_mass_after == plain.repairs["stem"].median_mass
    # decisions that change: the highest full-option log-likelihood, production against stem
    pick = {
        (r.variant, r.doc_id): int(np.argmax([x for x in r.option_logprobs if x is not None]))
        for r in records
        if r.task == "tp_plain"
    }
    changed = sum(pick["stem", d] != pick["production", d] for v, d in pick if v == "production")
    assert stem.n_changed == changed and stem.acc_affected == f"{changed} of 3 decisions change"
    fewshot = plain.advice[1]
    assert fewshot.median_mass_after is None and "--num_fewshot 5" in (fewshot.measure or "")
    # the options share " the": acc is not affected, and nothing says to score full options
    shared = {t.name: t for t in zero.summary.tasks}["tp_shared"]
    assert shared.advice[-1].knob == "doc_to_choice"
    assert shared.advice[-1].acc_affected.startswith("no: lm-eval's acc already scores")
    texts = [c.repair or "" for c in zero.summary.checks]
    texts += [a.change + (a.measure or "") for t in zero.summary.tasks for a in t.advice]
    assert not any("full options" in t or "check " in t for t in texts)
    first = next(c for c in zero.summary.checks if c.name == "first_tokens tp_shared")
    assert first.verdict == "fail" and "acc is not affected" in (first.repair or "")
    shown = CliRunner().invoke(main, ["report", str(zero_and_two_shot[0]), "--plain"]).output
    assert "What to change" in shown and "num_fewshot" in shown


def test_two_solved_examples_lift_the_mass_the_advice_pointed_at(zero_and_two_shot) -> None:
    summaries = [{t.name: t for t in read_run(r).summary.tasks} for r in zero_and_two_shot]
    zero, two = (s["tp_plain"] for s in summaries)
    assert zero.median_mass is not None and two.median_mass is not None
    assert zero.median_mass < MASS_FLOOR and two.median_mass > zero.median_mass


def test_table_shows_lm_evals_acc_per_task(zero_and_two_shot, tmp_path: Path) -> None:
    sheet = tmp_path / "table.csv"
    argv = ["table", *map(str, zero_and_two_shot), "--csv", str(sheet)]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    for row, run in zip(rows, zero_and_two_shot, strict=True):
        tasks = {t.name: t for t in read_run(run).summary.tasks}
        for name, task in tasks.items():
            assert float(row[f"acc {name}"]) == pytest.approx(task.acc.estimate)
            assert float(row[f"acc_norm {name}"]) == pytest.approx(task.acc_norm.estimate)
        records = [r for r in read_run(run).records if r.variant == "production"]
        pooled = np.mean([r.lm_eval_metrics["acc"] for r in records])
        assert float(row["accuracy"]) == pytest.approx(pooled)
        production = [r.option_mass for r in records if r.option_mass is not None]
        assert float(row["median mass"]) == pytest.approx(np.median(production))


def test_compare_gives_per_task_acc_and_mass_differences(zero_and_two_shot, tmp_path) -> None:
    out = tmp_path / "compare.json"
    argv = ["compare", *map(str, zero_and_two_shot), "--json", str(out)]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    rows = {r["metric"]: r for r in json.loads(out.read_text())["differences"]["production"]}
    a, b = (
        {
            (r.task, r.doc_id): r
            for r in read_run(run).of(LMEvalRecord).records
            if r.variant == "production"
        }
        for run in zero_and_two_shot
    )
    for metric, value in [
        ("acc", lambda r: r.lm_eval_metrics["acc"]),
        ("option mass", lambda r: r.option_mass),
    ]:
        row = rows[f"{metric} tp_plain"]
        docs = [k for k in a if k[0] == "tp_plain"]
        diffs = [value(b[k]) - value(a[k]) for k in docs]
        assert row["b"] - row["a"] == pytest.approx(np.mean(diffs))
        interval = row["difference"]
        assert interval["n"] == 3 and interval["low"] <= interval["estimate"] <= interval["high"]
    assert "acc_norm tp_shared" in rows


def test_a_stem_the_context_already_ends_in_is_not_read_twice(task_dir, tmp_path) -> None:
    argv = ["audit", "lm-eval", "--tasks", "tp_plain", "--include-path", str(task_dir)]
    argv += ["--limit", "2", "--stem", "Answer:", "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    assert "2 document(s) already end in the stem 'Answer:'" in result.output
    run = read_run(tmp_path / "run")
    assert {r.variant for r in run.records} == {"production"}  # no "Answer:Answer:"
    (task,) = run.summary.tasks
    assert task.n_stem_in_context == 2 and not task.repairs
    assert not any(c.name.startswith("stem ") for c in run.summary.checks)
    assert all(a.knob != "doc_to_text" for a in task.advice)  # it already ends in a cue
    shown = CliRunner().invoke(main, ["report", str(tmp_path / "run"), "--plain"]).output
    assert "already ends in it" in " ".join(shown.split())


def test_a_misspelt_task_gets_a_suggestion(task_dir, tmp_path) -> None:
    argv = ["audit", "lm-eval", "--tasks", "tp_plian", "--include_path", str(task_dir)]
    result = CliRunner().invoke(main, [*argv, "--out", str(tmp_path / "run")])
    assert result.exit_code != 0
    assert "no task, group or tag 'tp_plian'; did you mean 'tp_plain'" in result.output


def test_the_mass_table_and_its_check_each_name_the_documents_they_count(zero_and_two_shot):
    run = read_run(zero_and_two_shot[0])
    records = [r for r in run.of(LMEvalRecord).records if r.variant == "production"]
    shown = CliRunner().invoke(main, ["report", str(zero_and_two_shot[0]), "--plain"]).output
    for task in run.summary.tasks:
        mine = [r for r in records if r.task == task.name]
        masses = [r.option_mass for r in mine if r.distinct_first_tokens]
        read = [m for m in masses if m is not None]
        assert task.n_mass_measured == len(read)
        if read:  # the table: the median of N and k/N, over the same N documents
            below = sum(m < MASS_FLOOR for m in read)
            assert f"{fmt(float(np.median(read)))} of {len(read)}" in shown
            assert f"{below}/{len(read)}" in shown
    plain = [r for r in records if r.task == "tp_plain" and r.option_mass is not None]
    check = next(c for c in run.summary.checks if c.name == "option_mass tp_plain")
    assert check.verdict == "fail" and check.evidence["n_mass_measured"] == len(plain)
    assert f"over the {len(plain)} items with a measured mass" in check.finding  # its set named


def test_lm_evals_acc_and_mass_stay_whole_at_every_width(zero_and_two_shot):
    run = read_run(zero_and_two_shot[0])
    shown_values = [
        value
        for task in run.summary.tasks
        for value in (task.acc and fmt(task.acc.estimate), fmt(task.median_mass))
        if value
    ]
    for width in (80, 100, 160):
        out = io.StringIO()
        print_report(run, Console(file=out, width=width, force_terminal=True, no_color=True))
        shown = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
        assert "…" not in shown, width
        assert all(value in shown for value in shown_values), (width, shown_values)
    piped = CliRunner().invoke(main, ["report", str(zero_and_two_shot[0])])
    assert "…" not in piped.output and all(value in piped.output for value in shown_values)
