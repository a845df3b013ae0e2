"""A judge run directory reported from its files alone, in the terminal, in HTML and by the CLI."""

from __future__ import annotations

import io

import pytest
from click.testing import CliRunner
from judge_records import TARGETS, record, source_records
from rich.console import Console

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit.judge import JudgeSummary
from readout_audit.judge.protocol import CONFIRMATION_CELLS, PRESENTATIONS
from readout_audit.log import Manifest
from readout_audit.report import print_report, render_html, report_sections, run_summary

SORTED_COLON = ("sorted", "random_colon")


def _local(source: str, dataset: str, accepted: bool) -> list:
    """A local judge's records with probabilities and label mass; R: accepted when asked."""
    found = []
    for presentation in PRESENTATIONS:
        for cell in CONFIRMATION_CELLS:
            verdict = TARGETS.get(cell, "incorrect")
            if accepted and (presentation, cell) == SORTED_COLON:
                verdict = "correct"
            p_c = 0.9 if verdict == "correct" else 0.1
            probs = {"correct": p_c, "incorrect": round(0.95 - p_c, 10), "no_answer": 0.05}
            mass = 0.3 if cell == "revision" else 0.8
            found.append(
                record(
                    "local",
                    source,
                    cell,
                    presentation,
                    verdict,
                    dataset=dataset,
                    probs=probs,
                    mass=mass,
                )
            )
    return found


@pytest.fixture
def judge_run(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    records = []
    for k in range(20):
        dataset = ("drop", "gsm8k")[k % 2]
        records += _local(f"s{k:02d}", dataset, accepted=k < 10)
        records += source_records(
            "served", f"s{k:02d}", dataset=dataset, missing=[SORTED_COLON] if k == 0 else ()
        )
        records += source_records("served", f"p{k:02d}", phase="preflight", dataset=dataset)
    manifest = Manifest(
        kind="judge",
        model={"spec": "smollm2-135m", "name": "SmolLM2-135M-Instruct"},
        config={
            "configurations": [
                {"name": "local", "contract": "FINAL3", "bootstrap_seed": 20261007154},
                {"name": "served", "contract": "FINAL3", "bootstrap_seed": 20261007155},
            ],
            "analysis": {"n_boot": 1999},
        },
    )
    (run / "manifest.json").write_text(manifest.model_dump_json(), encoding="utf-8")
    lines = "".join(r.model_dump_json() + "\n" for r in records)
    (run / "records.jsonl").write_text(lines, encoding="utf-8")
    return run


def test_terminal_and_html_reports_draw_every_judge_section(judge_run):
    run = read_run(judge_run)
    titles = [s.title for s in report_sections(run)]
    assert titles == [
        "Checks",
        "Gates and qualification",
        "Primary interaction",
        "Secondary family",
        "Acceptance per cell",
        "Duplicate requests",
        "Displayed scores",
        "Label mass (local judges)",
        "Manifest",
    ]
    buffer = io.StringIO()
    print_report(run, Console(file=buffer, width=240), plain=True, verbose=True)
    text = buffer.getvalue()
    assert "judge robustness (judge)" in text and "880 records" in text
    assert "gate[confirmation:local:sorted]" in text and "PASS" in text
    assert "bare_correct 20/20 (≥ 19)" in text
    # 10 of 20 sources flip under sorted R: for the local judge: θ̂ = +50 pp
    assert "+50.00" in text and "10/0" in text
    assert "label_mass[local]" in text and "40 of 320 records" in text
    assert "0/19 of 20" in text  # the served judge's sorted R: with one unknown verdict
    assert "[+50.00, +50.00]" in text and "[+0.00, +5.00]" in text  # planned-panel bounds
    summary = run_summary(run)  # summary.json reads back to the same summary
    assert JudgeSummary.model_validate_json(summary.model_dump_json()) == summary
    html = render_html(run)
    for title in titles:
        assert title in html
    assert html.count("<svg") == 2  # the primary intervals and the label-mass figure


def test_readout_report_on_a_judge_run_directory(judge_run, tmp_path):
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(judge_run), "--plain", "--verbose"])
    assert result.exit_code == 0, result.output
    assert "D = [V(sorted, R:) − V(sorted, R)]" in result.output
    assert "R: against R within each presentation" in result.output
    written = CliRunner().invoke(main, ["report", str(judge_run), "--plain", "--html", str(out)])
    assert written.exit_code == 0, written.output
    assert "Acceptance per cell" in out.read_text(encoding="utf-8")


def test_judge_report_keeps_its_html_out_of_the_run_directory(judge_run):
    records = (judge_run / "records.jsonl").read_bytes()
    for out, force in ((judge_run / "records.jsonl", []), (judge_run / "report.html", ["--force"])):
        args = ["judge", "report", str(judge_run), "--html", str(out), *force]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1
        assert f"{out}, field 'html': is inside the run directory" in result.output
    assert (judge_run / "records.jsonl").read_bytes() == records
    assert sorted(p.name for p in judge_run.iterdir()) == ["manifest.json", "records.jsonl"]
    assert len(read_run(judge_run).records) == 880
