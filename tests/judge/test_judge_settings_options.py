"""The judge commands' options are their settings' fields; the settings refuse what the CLI did."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from pydantic import BaseModel, ValidationError

from readout_audit._cli import main
from readout_audit.judge import (
    PAPER_SEED,
    BeamSettings,
    BuildSettings,
    JudgeExecution,
    JudgeRun,
    SearchSettings,
    build_inventory,
    load_gsm8k_jsonl,
    parse_configuration,
    read_inventory,
    run_judge,
    write_inventory,
)
from readout_audit.judge.inventory import SourceSettings
from readout_audit.kind import ModelChoice
from readout_audit.model import ServedSettings
from readout_audit.serve import CostCap

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
LOCAL = "f3=FINAL3@smollm2-135m"


def judge_command(name: str) -> click.Command:
    group = main.get_command(click.Context(main), "judge")
    assert isinstance(group, click.Group)
    command = group.get_command(click.Context(group), name)
    assert command is not None
    return command


def documented_fields(model: type[BaseModel], shared: tuple[str, ...] = ()):
    """The fields a command sets and their docstrings (nested models and skipped ones aside)."""
    for name, info in model.model_fields.items():
        hint = (info.json_schema_extra or {}).get("option", {})
        nested = isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel)
        if info.description and not nested and not hint.get("skip") and name not in shared:
            yield hint.get("dest", name), " ".join(info.description.replace("``", "").split())


@pytest.mark.parametrize(
    ("command", "model", "shared"),
    [
        ("build", BuildSettings, ()),
        ("build", SourceSettings, ()),
        ("search", SearchSettings, ()),
        ("search", SourceSettings, ()),
        ("search", JudgeExecution, ("allow_download",)),  # the sources' option serves both
        ("run", JudgeRun, ()),
        ("run", JudgeExecution, ()),
        ("propose", BeamSettings, ()),
    ],
)
def test_each_settings_field_is_an_option_whose_help_is_its_docstring(command, model, shared):
    params = {p.name: p for p in judge_command(command).params}
    fields = dict(documented_fields(model, shared))
    assert fields  # every model here documents its fields
    for name, docstring in fields.items():
        assert isinstance(params[name], click.Option) and params[name].help == docstring, name


def test_build_settings_refuse_a_study_without_its_datasets_or_with_ones_it_does_not_read():
    with pytest.raises(ValidationError, match=r"give --gsm8k, --drop or --halueval"):
        BuildSettings(configurations=(LOCAL,))
    switch = {"study": "reference-switch", "configurations": (LOCAL,)}
    with pytest.raises(
        ValidationError, match="reference-switch study reads no dataset: drop --drop"
    ):
        BuildSettings(**switch, sources=SourceSettings(drop="drop.jsonl"))
    assert BuildSettings(**switch).sources.named() == []


@pytest.mark.parametrize(("field", "value"), [("max_tokens", 0), ("max_usd", 0.0)])
def test_a_served_judges_cap_of_nothing_is_refused_as_on_the_command_line(field, value):
    with pytest.raises(ValidationError, match=f"served.cap.{field}"):
        JudgeExecution.model_validate({"served": {"cap": {field: value}}})


def test_a_served_judges_settings_are_a_served_models():
    execution = JudgeExecution.model_validate(
        {"served": {"concurrency": 2, "timeout_s": 5.0, "cap": {"usd_per_mtok_prompt": 1.0}}}
    )
    (endpoint,) = execution.endpoints("openai:http://127.0.0.1:9/v1#m")
    assert (endpoint.concurrency, endpoint.timeout_s) == (2, 5.0)
    assert execution.cap() is None  # prices alone cap nothing
    capped = JudgeExecution(served=ServedSettings(cap=CostCap(max_tokens=10)))
    assert capped.cap() == CostCap(max_tokens=10)


def test_a_local_judge_opens_on_the_executions_device_and_dtype(model, tmp_path, monkeypatch):
    bank = load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl")
    configuration = parse_configuration(LOCAL, PAPER_SEED)
    inventory = build_inventory(
        [bank], [configuration], seed=PAPER_SEED, per_dataset=1, preflight_per_dataset=1
    )
    write_inventory(tmp_path / "inventory", inventory)
    opened = []

    def open_choice(choice: ModelChoice, preflight=None):
        opened.append((choice.spec, choice.device, choice.dtype, choice.allow_download))
        return model

    monkeypatch.setattr(ModelChoice, "open", open_choice)
    execution = JudgeExecution(device="cpu", dtype="float32", batch_size=5, allow_download=True)
    run = JudgeRun(out=tmp_path / "run", phase="preflight", execution=execution)
    result, _ = run_judge(tmp_path / "inventory", run)
    assert opened == [("smollm2-135m", "cpu", "float32", True)]
    preflight = [
        r for r in read_inventory(tmp_path / "inventory").requests if r.phase == "preflight"
    ]
    assert result.n_new == len(preflight) == 12  # one source x 12 calls
