"""What a user sees in a terminal of 80, 100 or 160 columns and in a pipe: whole numbers and ids,
checks in plain figures, about one screen, and ``report --html`` saying only where it wrote."""

from __future__ import annotations

import io
import re
import shutil
import stat

import pytest
from click.testing import CliRunner
from rich.console import Console

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit._util._jsonl import umask_mode
from readout_audit.report import print_report
from readout_audit.report._blocks import TableBlock, fmt
from readout_audit.report._terminal import tables

pytestmark = pytest.mark.cost(15)

WIDTHS = (80, 100, 160)


def terminal(width: int) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=width, force_terminal=True, no_color=True), out


def visible(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_a_wide_table_is_split_never_cut():
    numbers = [f"0.{i}{i}{i}{i}" for i in range(1, 10)]
    block = TableBlock(
        "Wide",
        ["task", *(f"metric {i}" for i in range(1, 10)), "legend"],
        [["readout_mmlu_everyday_science", *numbers, "a long prose cell " * 6]],
        wrap=("legend",),
    )
    for width in WIDTHS:
        console, out = terminal(width)
        for part in tables(block, width):
            console.print(part)
        shown = visible(out.getvalue())
        assert "…" not in shown
        assert all(number in shown for number in numbers)
        assert max(len(line) for line in shown.splitlines()) <= width
        # the key column is repeated in every part of a split table
        parts = shown.count("Wide")
        assert shown.count("readout_mmlu_everyday_science") == parts
        assert (parts > 1) == (width < 160)


@pytest.mark.model
def test_yesno_report_whole_numbers_at_every_width(yesno_run):
    run = read_run(yesno_run)
    f1 = [fmt(r.f1.estimate) for r in run.summary.overall.readouts.values() if r.f1 is not None]
    for width in WIDTHS:
        console, out = terminal(width)
        print_report(run, console)
        shown = visible(out.getvalue())
        assert "…" not in shown, width
        assert all(value in shown for value in f1)
        assert max(len(line) for line in shown.splitlines()) <= width
    piped = CliRunner().invoke(main, ["report", str(yesno_run)])  # a pipe: 160 columns
    assert piped.exit_code == 0 and "…" not in piped.output
    assert all(value in piped.output for value in f1)


@pytest.mark.model
def test_table_shows_every_run_id_whole(options_run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # run directories as a user names them: runs/...
    names = [f"runs/ascending_prompt_ladder_variant_{i}" for i in range(4)]
    for name in names:
        shutil.copytree(options_run, name)
    for width in WIDTHS:
        result = CliRunner(env={"COLUMNS": str(width), "TTY_COMPATIBLE": "1"}).invoke(
            main, ["table", *names]
        )
        assert result.exit_code == 0, result.output
        shown = visible(result.output)
        assert "…" not in shown
        assert all(name in shown for name in names), shown


@pytest.mark.model
def test_checks_in_plain_figures_after_the_results(yesno_run):
    result = CliRunner().invoke(main, ["report", str(yesno_run)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert not re.search(r"\d\.\d{6,}", out)  # no 16-digit floats from the evidence's JSON
    assert "{" not in out.split("Checks", 1)[1]  # evidence as text, not JSON
    assert out.index("Readouts") < out.index("Checks")  # the results first, the checks after
    checks = read_run(yesno_run).summary.checks
    for check in checks:
        if check.verdict != "pass":  # failures and warnings in full
            assert f"{check.verdict.upper()} {check.name}: " in out
    passed = [c for c in checks if c.verdict == "pass"]
    if passed:
        assert f"PASS ({len(passed)})" in out
    # about one screen: the transition tables are named, not drawn (146-195 lines before)
    assert len(out.splitlines()) <= 80, len(out.splitlines())
    assert out.index("Readouts") < out.index("Token sets")  # the readouts before why they differ
    verbose = CliRunner().invoke(main, ["report", str(yesno_run), "--verbose"])
    for table in ("Confusion matrix: dynamic", "Paired transitions", "Closed-form F1"):
        assert table in verbose.output and table not in out  # the rest behind --verbose
    assert "more tables" in out


@pytest.mark.model
def test_report_html_prints_where_it_went_and_one_line(yesno_run, tmp_path):
    html = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["report", str(yesno_run), "--html", str(html)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    verdicts = [c.verdict for c in read_run(yesno_run).summary.checks]
    assert len(lines) == 2, result.output
    assert lines[0].startswith(f"yes/no audit (yesno) {yesno_run}: ")
    assert f"{verdicts.count('fail')} fail" in lines[0] or "fail" not in verdicts
    assert lines[1] == f"HTML report written to {html}"
    assert stat.S_IMODE(html.stat().st_mode) == umask_mode()


@pytest.mark.model
def test_a_score_runs_masses_stay_whole_at_every_width(hostile_run):
    run = read_run(hostile_run)
    masses = [fmt(r.option_mass) for r in run.records]
    medians = [fmt(v.option_mass.median) for v in run.summary.variants.values()]
    for width in WIDTHS:
        console, out = terminal(width)
        print_report(run, console)
        shown = visible(out.getvalue())
        assert "…" not in shown and "0…" not in shown, width
        assert all(value in shown for value in [*masses, *medians]), (width, shown)
    piped = CliRunner().invoke(main, ["report", str(hostile_run)])
    assert piped.exit_code == 0 and "…" not in piped.output
    assert all(value in piped.output for value in [*masses, *medians])
