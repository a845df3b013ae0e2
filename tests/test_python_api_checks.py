"""What a notebook passes is checked when it is passed: a model that is no loaded model, a
device that names none, lm-eval settings that name no task. Each is one error naming it."""

from __future__ import annotations

from functools import partial

import pytest
from hostile import refused

from readout_audit import (
    LMEvalRun,
    OptionsSettings,
    PTrueSettings,
    RecoverRun,
    YesNoSettings,
    demo_items,
    score,
)
from readout_audit._exceptions import InputError
from readout_audit.judge import JudgeExecution
from readout_audit.kind import ModelChoice
from readout_audit.lift import score_lift
from readout_audit.lmeval import TaskSettings, audit_lm_eval
from readout_audit.options import audit_options
from readout_audit.ptrue import audit_ptrue
from readout_audit.recover import audit_recover
from readout_audit.yesno import audit_yesno

AUDITS = {
    "score": partial(score, items=demo_items()[:1]),
    "audit_options": partial(audit_options, settings=OptionsSettings(items=[])),
    "audit_yesno": partial(audit_yesno, settings=YesNoSettings(items=[])),
    "audit_ptrue": partial(audit_ptrue, settings=PTrueSettings(items=[])),
    "audit_recover": partial(audit_recover, settings=RecoverRun()),
    "score_lift": partial(score_lift, cuts=[]),
    "audit_lm_eval": partial(audit_lm_eval, settings=LMEvalRun()),
}
"""Every audit a notebook runs, its other arguments whatever the model check comes before."""


@pytest.mark.parametrize("audit", list(AUDITS))
@pytest.mark.parametrize("model", [object(), "smollm2-135m"], ids=["object", "spec"])
def test_an_audit_refuses_anything_but_a_loaded_model_before_it_writes(tmp_path, audit, model):
    with pytest.raises(InputError, match="field 'model': expected a ScoringModel, got") as error:
        AUDITS[audit](model, out=tmp_path / "run")
    assert "load_model(spec)" in str(error.value) and type(model).__name__ in str(error.value)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("device", ["\x1b[2J", "cuda:٣", "cuda:-1", "gpu", "", "cuda:" + "9" * 400])
@pytest.mark.parametrize("settings", [ModelChoice, JudgeExecution])
def test_a_device_that_names_none_is_refused_when_the_settings_are_built(device, settings):
    with pytest.raises(ValueError, match="unknown device") as error:
        settings(device=device)
    assert "\x1b" not in str(error.value)  # quoted escaped, never sent to a terminal as is


@pytest.mark.parametrize("device", ["auto", "cpu", "mps", "cuda", "cuda:0", "cuda:12"])
def test_every_device_form_is_taken(device):
    assert ModelChoice(device=device).device == device


def test_the_cli_refuses_a_control_sequence_as_a_device_in_one_escaped_line(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "q", "prompt": "P", "options": ["a", "b"]}\n')
    error = refused(
        ["score", "--items", items, "--device", "\x1b[2J", "--out", tmp_path / "run"], "--device"
    )
    assert "unknown device" in error and "\x1b" not in error
    assert not (tmp_path / "run").exists()


def test_lm_eval_task_settings_name_a_task():
    with pytest.raises(ValueError, match="name at least one lm-eval task, group or tag"):
        TaskSettings()
    with pytest.raises(ValueError, match="name at least one lm-eval task"):
        TaskSettings(tasks=())
    for blank in ("", " "):
        with pytest.raises(ValueError, match="a task name is blank"):
            TaskSettings(tasks=("arc_easy", blank))
    assert TaskSettings(tasks=("arc_easy",)).tasks == ("arc_easy",)
