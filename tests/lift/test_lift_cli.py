"""``readout lift cut → score → report`` on the shipped fixtures, with forecasts from a file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit.lift import read_cuts
from readout_audit.log import Manifest
from readout_audit.log._run import read_run

pytestmark = pytest.mark.cost(20)

TEX = Path(__file__).parent.parent / "fixtures" / "tex"


def invoke(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_cut_score_and_report_from_the_command_line(tmp_path):
    cuts_path = tmp_path / "cuts.jsonl"
    sources = [str(TEX / "aipsamp.tex"), str(TEX / "testmath.tex")]
    # aipsamp offers one qualifying cut: the paper's rule (ten) admits testmath alone
    admitted = invoke("lift", "cut", *sources, "--out", str(cuts_path), "--per-paper", "2")
    assert "admitted 1 of 2 papers (each with at least 10 qualifying cuts)" in admitted
    assert len(read_cuts(cuts_path)) == 2
    both = ["--per-paper", "2", "--min-cuts", "1", "--force"]
    invoke("lift", "cut", *sources, "--out", str(cuts_path), *both)
    cuts = read_cuts(cuts_path)
    assert len(cuts) == 3
    # forecasts made elsewhere: the minimal layout, the setting named on the command line
    forecasts = tmp_path / "z.jsonl"
    forecasts.write_text(
        "".join(
            json.dumps({"cut_id": c.id, "z": c.target[: len(c.target) // 2]}) + "\n" for c in cuts
        )
    )
    out = tmp_path / "run"
    report = invoke("lift", "score", "--cuts", str(cuts_path), "--forecasts", str(forecasts),
                    "--setting", "half", "--out", str(out), "--no-progress", "--plain")  # fmt: skip
    assert "Control ladder" in report and "forecast/half" in report
    run = read_run(out)
    assert {r.variant for r in run.records} == {
        "empty",
        "context",
        "context3",
        "forecast/half",
        "oracle",
    }
    assert len(run.records) == 3 * 5
    assert run.artifacts["forecasts"][cuts[0].id] == {
        "half": cuts[0].target[: len(cuts[0].target) // 2]
    }
    again = invoke("lift", "report", str(out), "--plain")
    assert "Paired forecast advantages" in again


def test_predict_keeps_its_forecasts_off_its_cuts_and_out_of_runs(tmp_path):
    cuts_path = tmp_path / "cuts.jsonl"
    invoke("lift", "cut", str(TEX / "aipsamp.tex"), "--out", str(cuts_path))
    cuts = cuts_path.read_bytes()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    manifest = Manifest(kind="lift", model={"spec": "smollm2-135m"}, config={})
    (run_dir / "manifest.json").write_text(manifest.model_dump_json(), encoding="utf-8")
    for out, reason in (
        (run_dir / "z.jsonl", "is inside the run directory"),
        (cuts_path, "is also an input of this command"),
    ):
        args = ["lift", "predict", "--cuts", str(cuts_path), "--out", str(out)]
        result = CliRunner().invoke(main, [*args, "--max-new-tokens", "1", "--no-progress"])
        assert result.exit_code == 1 and f"{out}, field 'out': {reason}" in result.output
    assert cuts_path.read_bytes() == cuts
    assert [p.name for p in run_dir.iterdir()] == ["manifest.json"]


def test_a_forecast_for_an_unknown_cut_is_named(tmp_path):
    cuts_path = tmp_path / "cuts.jsonl"
    invoke("lift", "cut", str(TEX / "aipsamp.tex"), "--out", str(cuts_path))
    bad = tmp_path / "z.jsonl"
    bad.write_text(json.dumps({"cut_id": "aipsamp:eq99", "setting": "s", "z": "x"}) + "\n")
    result = CliRunner().invoke(
        main,
        [
            "lift",
            "score",
            "--cuts",
            str(cuts_path),
            "--forecasts",
            str(bad),
            "--out",
            str(tmp_path / "run"),
        ],
    )
    assert result.exit_code != 0
    assert "z.jsonl:1" in result.output and "aipsamp:eq99" in result.output
    assert not (tmp_path / "run").exists()


def test_toy_command_prints_table_one_and_its_verdict():
    output = invoke("lift", "toy")
    lines = output.splitlines()
    header = ["case", "condition", "raw", "clipLL_2", "vs.", "empty", "P(recovery)"]
    assert lines[0].split() == header
    assert len(lines) == 1 + 4 * 5 + 1
    recovery = {tuple(line.split()[:2]): line.split()[-1] for line in lines[1:-1]}
    # Table 2: the true token after the mismatch, likelier after the exact forecast than empty
    exact, empty = (float(recovery[("Z=X+A+B", c)]) for c in ("exact", "empty"))
    assert 0 < empty < exact <= 1
    assert lines[-1].startswith("WARN: the exact forecast beats the controls in all 4 cases")
