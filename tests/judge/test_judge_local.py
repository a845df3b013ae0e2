"""The embedded model as a local judge: verdicts, label probabilities, checks, phases, resume."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from readout_audit import InputError
from readout_audit._cli import main
from readout_audit.judge import (
    PAPER_SEED,
    build_inventory,
    load_drop_json,
    load_gsm8k_jsonl,
    parse_configuration,
    read_inventory,
    write_inventory,
)
from readout_audit.judge.run._kind import JUDGE
from readout_audit.judge.run._local import VERDICT_STEM, judge_item, labels_of
from readout_audit.judge.run._run import run_local_judge
from readout_audit.log._run import read_run

pytestmark = pytest.mark.cost(50)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"


@pytest.fixture(scope="module")
def inventory(tmp_path_factory) -> Path:
    """Two FINAL3/FINAL4 configurations on the embedded model, one preflight source a dataset."""
    banks = [
        load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl"),
        load_drop_json(FIXTURES / "drop_rows.jsonl"),
    ]
    configurations = [
        parse_configuration("f3=FINAL3@smollm2-135m", PAPER_SEED),
        parse_configuration("f4=FINAL4@smollm2-135m", PAPER_SEED + 1),
    ]
    built = build_inventory(
        banks, configurations, seed=PAPER_SEED, per_dataset=1, preflight_per_dataset=1
    )
    directory = tmp_path_factory.mktemp("inventory")
    write_inventory(directory, built)
    return directory


@pytest.fixture(scope="module")
def preflight(model, inventory, tmp_path_factory):
    """The preflight phase of f3, run once: (result, plan, run directory). The CLI's test runs
    f4's."""
    out = tmp_path_factory.mktemp("preflight") / "run"
    result, plan = run_local_judge(model, inventory, out, phase="preflight", configurations=["f3"])
    return result, plan, out


def test_a_verdict_is_the_likeliest_label_read_after_the_verdict_stem(
    model, inventory, preflight, float32_budget
):
    result, plan, run = preflight
    planned = {r.request_id: r for r in read_inventory(inventory).requests}
    records = read_run(run).records
    assert result.n_new == len(records) == 2 * 12  # 2 sources × 12 calls
    assert [c.name for c in plan.configurations] == ["f3"] and plan.skipped == []
    # every planned preflight request, once (a local batch may finish them in any order)
    order = [
        r.request_id
        for r in read_inventory(inventory).requests
        if r.phase == "preflight" and r.configuration == "f3"
    ]
    assert sorted(r.item_id for r in records) == sorted(order)
    for record in records[:6]:
        request = planned[record.item_id]
        labels = labels_of(request)
        # independently: the chat template's rendering, the stem, each label's log-likelihood
        item = judge_item(request, "smollm2-135m")
        text = model.codec.tokenizer.apply_chat_template(
            [m.model_dump() for m in item.messages], tokenize=False, add_generation_prompt=True
        )
        context = model.codec.encode(text + VERDICT_STEM)
        full = [model.codec.encode(text + VERDICT_STEM + label) for label in labels]
        assert all(f[: len(context)] == context for f in full)
        alone = model.continuation_logprobs(context, [f[len(context) :] for f in full])
        logprobs = [float(np.sum(x)) for x in alone]
        budget = float32_budget(len(context))
        assert record.verdict == labels[int(np.argmax(logprobs))]
        expected = np.exp(np.asarray(logprobs) - np.logaddexp.reduce(logprobs))
        got = [record.label_probs[label] for label in labels]
        np.testing.assert_allclose(got, expected, atol=budget * 4)
        assert math.isclose(sum(got), 1.0, abs_tol=1e-9)
        # the label mass: the first tokens' probabilities, before any renormalising
        first = {f[len(context)] for f in full}
        dist = model.next_token_logprobs([context])[0]
        mass = float(sum(math.exp(dist.logprob(t)) for t in first))
        assert record.label_mass == pytest.approx(mass, abs=budget * 4)
        assert 0 < record.label_mass < 1
        assert record.metadata["boundary_preserved"] and record.metadata["distinct_first_tokens"]
        assert record.outcome == "completed" and record.prompt_tokens == len(context)


def test_confirmation_waits_for_preflight_gates_and_a_rerun_resumes(
    model, inventory, preflight, tmp_path
):
    out = tmp_path / "run"
    with pytest.raises(InputError, match="no preflight"):
        run_local_judge(model, inventory, out, phase="confirmation", configurations=["f3"])
    shutil.copytree(preflight[2], out)
    rerun, _ = run_local_judge(model, inventory, out, phase="preflight", configurations=["f3"])
    assert rerun.n_new == 0  # every preflight request is on disk already
    summary = read_run(out)
    assert {r.phase for r in summary.records} == {"preflight"}
    result, plan = run_local_judge(
        model, inventory, out, phase="confirmation", configurations=["f3"]
    )
    # the 135M model does not get 19 of 20 controls right: f3 is held back from confirmation
    assert plan.skipped == ["f3"] and result.n_new == 0
    result, plan = run_local_judge(
        model, inventory, out, phase="confirmation", configurations=["f3"], unqualified=True
    )
    assert result.n_new == 2 * 16 and plan.skipped == []
    again, _ = run_local_judge(
        model, inventory, out, phase="confirmation", configurations=["f3"], unqualified=True
    )
    assert again.n_new == 0


def test_a_planned_request_without_a_record_counts_as_unknown(preflight, tmp_path):
    """The run keeps its plan: a record lost from the file is analysed as unknown, the gate's
    denominator stays the planned count, the planned check fails; the family is the inventory's."""
    out = tmp_path / "run"
    shutil.copytree(preflight[2], out)
    whole = JUDGE.summary(read_run(out))
    assert whole.coverage.n_planned == 24 and whole.coverage.n_missing == 0
    assert whole.family == ["f3", "f4"]  # the inventory's, though this run holds f3 alone
    assert [c.verdict for c in whole.checks if c.name == "planned"] == ["pass"]
    lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(lines[1:]))
    lost = JUDGE.summary(read_run(out))  # from the files: records and the kept plan
    gone = json.loads(lines[0])["item_id"]
    assert lost.n_records == 23 and lost.coverage.missing == [gone]
    assert lost.outcomes.get("unknown", 0) == whole.outcomes.get("unknown", 0) + 1
    assert sum(g.n_planned for g in lost.gates) == sum(g.n_planned for g in whole.gates) == 24
    check = next(c for c in lost.checks if c.name == "planned")
    assert check.verdict == "fail" and gone in check.finding


def test_a_run_names_a_configuration_it_does_not_know(model, inventory, tmp_path):
    with pytest.raises(InputError, match="not in the inventory"):
        run_local_judge(model, inventory, tmp_path / "x", phase="preflight", configurations=["f9"])


@pytest.mark.model  # the CLI loads the embedded model itself
def test_the_cli_runs_both_phases_and_analyses_the_runs_as_one_family(inventory, tmp_path):
    def invoke(*args: str) -> str:
        result = CliRunner().invoke(main, [*args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        # --no-progress: nothing on stderr but the model's one loading line
        assert not [line for line in result.stderr.splitlines() if not line.startswith("loading")]
        return result.output

    run = str(tmp_path / "run")
    common = ["--out", run, "--configuration", "f4", "--plain", "--no-progress"]
    invoke("judge", "run", str(inventory), "--phase", "preflight", *common)
    out = invoke("judge", "run", str(inventory), "--phase", "confirmation", *common)
    assert "f4: preflight gates failed, not confirmed (p = 1 in the family)" in out
    joint = tmp_path / "joint"
    report = invoke("judge", "analyze", run, "--out", str(joint), "--plain")
    assert "gate" in report.lower() and f"run written to {joint}" in report
    records = read_run(joint).records
    assert len(records) == 24 and {r.configuration for r in records} == {"f4"}
    # the joint run is a run directory: the same command again finds it finished; other runs
    # into it are refused, naming what differs
    invoke("judge", "analyze", run, "--out", str(joint), "--plain")
    assert [r.model_dump() for r in read_run(joint).records] == [r.model_dump() for r in records]
    shutil.copytree(run, tmp_path / "copy")
    other = ["judge", "analyze", str(tmp_path / "copy"), "--out", str(joint)]
    refused = CliRunner().invoke(main, other)
    assert refused.exit_code != 0 and "another configuration" in refused.output
    assert "config.runs" in refused.output
