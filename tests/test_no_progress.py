"""``progress="off"`` (what ``--no-progress`` passes) silences every stage of every kind.

"off" is a non-empty string: an audit that read it as a truth value showed its stages'
progress anyway (P(True)'s answer step did).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from readout_audit import (
    Item,
    LMEvalRun,
    MCItem,
    OptionsSettings,
    PTrueSettings,
    QAItem,
    RecoverRun,
    RunSettings,
    YesNoItem,
    YesNoSettings,
    score,
)
from readout_audit.lmeval import DocReading, TaskOptions, audit_lm_eval
from readout_audit.options import audit_options
from readout_audit.progress import as_mode
from readout_audit.prompt import ANSWER
from readout_audit.ptrue import audit_ptrue
from readout_audit.recover import RecoverSetup, audit_recover, recover_splits
from readout_audit.yesno import audit_yesno

LOGGED = Path(__file__).resolve().parents[1] / "examples" / "lm-eval" / "logged"

pytestmark = [pytest.mark.model, pytest.mark.cost(40)]


def test_a_mode_is_taken_as_it_is_and_a_bool_as_asked():
    assert as_mode("off") == "off" and as_mode("lines") == "lines" and as_mode(False) == "off"
    assert as_mode(True) in ("bar", "lines")


def runs(model, out):
    """Each kind's smallest run, progress off; P(True)'s item has no answer (its answer step)."""
    yield lambda: score(
        model, [Item(id="a", prompt="2 + 2 =", options=(" 4", " 5"))], out / "score",
        greedy_tokens=2, progress="off",
    )  # fmt: skip
    yield lambda: audit_options(
        model, OptionsSettings(
            items=[MCItem(id="q", question="Which is a fruit?", choices=("Apple", "Stone"),
                          answer="A")],
            spec=ANSWER, variants=("production",), greedy_tokens=2,
        ), out / "options", RunSettings(progress="off"),
    )  # fmt: skip
    yield lambda: audit_ptrue(
        model,
        PTrueSettings(items=[QAItem(id="p", question="What is the capital of France?",
                                    gold=("Paris",))]),
        out / "ptrue", RunSettings(progress="off"),
    )  # fmt: skip
    yield lambda: audit_yesno(
        model, YesNoSettings(items=[YesNoItem(id="y", question="Is the sky blue?", label="yes")]),
        out / "yesno", RunSettings(progress="off"),
    )  # fmt: skip
    yield lambda: audit_lm_eval(
        model, LMEvalRun(samples=LOGGED, tasks=TaskOptions(limit=1),
                         reading=DocReading(greedy_tokens=2)),
        out / "lm-eval", RunSettings(progress="off"),
    )  # fmt: skip
    yield lambda: audit_recover(
        model, RecoverRun(splits=recover_splits(
            generate="controlled-logic", n=30, train_n=60, evals=["id"], limit=8
        ), setup=RecoverSetup(n_perm=100, n_boot=100)),
        out / "recover", RunSettings(progress="off"),
    )  # fmt: skip


def test_no_stage_of_any_kind_writes_progress_when_it_is_off(model, tmp_path, capsys):
    for run in runs(model, tmp_path):
        run()
        err = capsys.readouterr().err
        assert err == "", err


def judge_stages(model, out):
    """Each judge stage's smallest call, progress off: build, run (twice), combine, search."""
    from readout_audit.judge import (
        BuildSettings,
        JudgeExecution,
        JudgeRun,
        SearchSettings,
        build_study,
        combine_runs,
        run_judge,
        run_local_judge,
        search_cues,
    )
    from readout_audit.judge.inventory import SourceSettings

    proposals = out / "proposals.json"
    pool = [{"text": "Actually", "token_ids": model.codec.encode("Actually"), "logprob": -1.0}]
    proposals.write_text(json.dumps({"retained": pool}))
    gsm8k = str(Path(__file__).parent / "fixtures" / "judge" / "gsm8k_test_head.jsonl")
    sources = SourceSettings(gsm8k=gsm8k)
    inventory = out / "inventory"
    yield lambda: build_study(
        BuildSettings(configurations=("f3=FINAL3@smollm2-135m",), per_dataset=1,
                      preflight_per_dataset=1, sources=sources),
        inventory,
    )  # fmt: skip
    yield lambda: run_local_judge(model, inventory, out / "run", phase="preflight", progress="off")
    yield lambda: run_judge(
        inventory, JudgeRun(out=out / "run", phase="confirmation", unqualified=True), model
    )
    yield lambda: combine_runs([out / "run"], out / "joint")
    yield lambda: search_cues(
        SearchSettings(programme="screen", configuration="c=FINAL3@smollm2-135m", development=1,
                       confirmation=1, keep=1, proposals=proposals, sources=sources),
        out / "search", JudgeExecution(), lambda spec: model, progress="off",
    )  # fmt: skip


def test_no_stage_of_a_judge_command_writes_progress_when_it_is_off(model, tmp_path, capsys):
    for stage in judge_stages(model, tmp_path):
        stage()
        err = capsys.readouterr().err
        assert err == "", err
