"""``readout report`` and ``readout compare`` on real run directories, without the model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from readout_audit import Item, read_run, score
from readout_audit._cli import main
from readout_audit.kind import get_kind
from readout_audit.report import render_html
from readout_audit.report._compare import compare_runs
from readout_audit.stats import paired_bootstrap

pytestmark = pytest.mark.cost(15)


@pytest.mark.model
@pytest.mark.parametrize("fixture", ["hostile_run", "options_run", "ptrue_run", "yesno_run"])
def test_plain_report_of_every_kind(fixture, request, tmp_path):
    run_dir = request.getfixturevalue(fixture)
    html = tmp_path / "report.html"
    written = CliRunner().invoke(main, ["report", str(run_dir), "--plain", "--html", str(html)])
    assert written.exit_code == 0, written.output
    assert html.read_text().startswith("<!DOCTYPE html>") and "Versions" in html.read_text()
    result = CliRunner().invoke(main, ["report", str(run_dir), "--plain"])
    assert result.exit_code == 0, result.output
    assert "\x1b[" not in result.output  # no colour codes in plain mode
    assert "+--" in result.output and "┃" not in result.output  # ASCII borders
    kind = get_kind(read_run(run_dir).manifest.kind)
    assert result.output.startswith(f"{kind.title} ({kind.name}) {run_dir}")
    # the terminal's short report: no manifest tables, one line saying where they are
    assert "sha256 " not in result.output and "Versions" not in result.output
    assert f"readout report {run_dir} --verbose (or --html FILE)\n" in result.output
    verbose = CliRunner().invoke(main, ["report", str(run_dir), "--plain", "--manifest"])
    assert verbose.exit_code == 0, verbose.output
    assert "sha256 " in verbose.output and "Versions" in verbose.output
    assert "command: " in verbose.output and "--verbose" not in verbose.output.splitlines()[-1]
    summary = read_run(run_dir).summary
    for check in summary.checks:
        assert check.verdict.upper() in result.output  # verdicts read without colour


def test_report_of_a_missing_directory_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert result.exit_code == 1 and "is not a run directory" in result.output


def test_screenshot_needs_html(hostile_run, tmp_path):
    result = CliRunner().invoke(
        main, ["report", str(hostile_run), "--screenshot", str(tmp_path / "a.png")]
    )
    assert result.exit_code == 2 and "--screenshot needs --html" in result.output


def test_screenshot_is_taken_by_chromium(hostile_run, tmp_path):
    png = tmp_path / "shot.png"
    args = [
        "report",
        str(hostile_run),
        "--html",
        str(tmp_path / "r.html"),
        "--screenshot",
        str(png),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


@pytest.fixture(scope="module")
def two_runs(model, tmp_path_factory):
    """The same questions with and without an answer stem: the stem should raise the mass."""
    base = tmp_path_factory.mktemp("compare")
    questions = [
        ("Which planet is red? Mars or Venus?", [" Mars", " Venus"], " Mars"),
        ("Which animal barks? dog or cat?", [" dog", " cat"], " dog"),
        ("Which is colder? ice or fire?", [" ice", " fire"], " ice"),
        ("Which is a fruit? apple or stone?", [" apple", " stone"], " apple"),
    ]
    for name, stem in (("a", None), ("b", "The answer is")):
        items = [
            Item(
                id=f"q{i}",
                messages=[{"role": "user", "content": q}],
                options=options,
                stem=stem,
                target=target,
                cluster=f"c{i % 2}",
            )
            for i, (q, options, target) in enumerate(questions)
        ]
        score(model, items, base / name, greedy_tokens=2)
    return base / "a", base / "b"


def test_compare_pairs_items_across_specs_and_equals_a_direct_bootstrap(two_runs):
    a, b = (read_run(p) for p in two_runs)
    result = compare_runs(a, b, n_boot=2000, seed=5)
    assert result.n_paired == 4 and list(result.differences) == ["production → stem"]
    rows = {r.metric: r for r in result.differences["production → stem"]}
    assert set(rows) == {
        "option mass",
        "argmax in the declared set",
        "accuracy (log-likelihood choice)",
    }
    row = rows["option mass"]
    mass_a = np.array([r.option_mass for r in a.records])
    mass_b = np.array([{x.item_id: x for x in b.records}[r.item_id].option_mass for r in a.records])
    expected = paired_bootstrap(
        {"A": mass_a, "B": mass_b},
        statistic="mean",
        clusters=[r.cluster for r in a.records],
        n_boot=2000,
        seed=5,
    ).differences["B - A"]
    assert (row.a, row.b) == pytest.approx((mass_a.mean(), mass_b.mean()))
    assert row.difference.estimate == pytest.approx(mass_b.mean() - mass_a.mean())
    assert (row.difference.low, row.difference.high) == pytest.approx((expected.low, expected.high))
    assert row.difference.n == 4


def test_compare_cli_writes_json_and_refuses_other_kinds(two_runs, yesno_run, tmp_path):
    out = tmp_path / "cmp.json"
    args = ["compare", str(two_runs[0]), str(two_runs[0]), "--plain", "--json", str(out)]
    result = CliRunner().invoke(main, [*args, "--n-boot", "500"])
    assert result.exit_code == 0, result.output
    saved = json.loads(out.read_text())
    assert saved["n_paired"] == 4
    assert saved["differences"]["production"]  # every metric of the group is saved
    for row in saved["differences"]["production"]:
        difference = row["difference"]  # a run against itself
        assert difference["estimate"] == 0 and difference["low"] == difference["high"] == 0
    bad = CliRunner().invoke(main, ["compare", str(two_runs[0]), str(yesno_run)])
    assert bad.exit_code == 1 and "cannot compare a 'score' run with a 'yesno' run" in bad.output


def _files(directory: Path) -> dict[Path, bytes]:
    """Every file under ``directory`` with its bytes."""
    return {p.relative_to(directory): p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def _inside(path: Path, run: Path, option: str) -> str:
    """The one-line refusal of an output inside a run directory."""
    return (
        f"Error: {path}, field '{option}': is inside the run directory {run.resolve()}, whose "
        "files only the run writes; choose a path outside it\n"
    )


@pytest.mark.parametrize(
    ("group", "name", "force"),
    [
        ([], "records.jsonl", []),
        (["lift"], "manifest.json", ["--force"]),
        (["judge"], "report.html", ["--force"]),
    ],
)
def test_report_never_writes_inside_the_run_even_forced(hostile_run, tmp_path, group, name, force):
    run = Path(shutil.copytree(hostile_run, tmp_path / "run"))
    before, files = read_run(run), _files(run)
    html = run / name
    args = [*group, "report", str(run), "--plain", "--html", str(html), *force]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and result.output == _inside(html, run, "html")
    assert _files(run) == files
    assert read_run(run).records == before.records and read_run(run).manifest == before.manifest


def test_report_overwrites_an_existing_file_only_with_force(hostile_run, tmp_path):
    html = tmp_path / "old.html"
    html.write_text("keep")
    args = ["report", str(hostile_run), "--plain", "--html", str(html)]
    refused = CliRunner().invoke(main, args)
    assert refused.exit_code == 1
    assert refused.output == f"Error: {html}, field 'html': exists; pass --force to overwrite it\n"
    assert html.read_text() == "keep"
    forced = CliRunner().invoke(main, [*args, "--force"])
    assert forced.exit_code == 0, forced.output
    assert html.read_text(encoding="utf-8") == render_html(read_run(hostile_run))
    new = tmp_path / "new" / "report.html"
    created = CliRunner().invoke(main, ["report", str(hostile_run), "--html", str(new)])
    assert created.exit_code == 0 and new.read_text(encoding="utf-8") == html.read_text("utf-8")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["new", "old.html", "report.html"]


def test_the_screenshot_may_not_replace_the_html_it_shows(hostile_run, tmp_path):
    html = tmp_path / "r.html"
    args = ["report", str(hostile_run), "--html", str(html), "--screenshot", str(html)]
    result = CliRunner().invoke(main, [*args, "--force"])
    assert result.exit_code == 1 and result.output == (
        f"Error: {html}, field 'screenshot': is also an input of this command; "
        "choose another path\n"
    )
    assert not html.exists()


def test_compare_json_never_lands_in_a_run_and_overwrites_only_with_force(two_runs, tmp_path):
    a, b = (Path(shutil.copytree(run, tmp_path / run.name)) for run in two_runs)
    before = {run: (read_run(run).records, _files(run)) for run in (a, b)}
    compare = ["compare", str(a), str(b), "--plain", "--n-boot", "100"]
    for target, force in (
        (a / "manifest.json", []),
        (b / "records.jsonl", ["--force"]),
        (b / "comparison.json", ["--force"]),
    ):
        result = CliRunner().invoke(main, [*compare, "--json", str(target), *force])
        assert result.exit_code == 1 and result.output == _inside(target, target.parent, "json")
    assert {run: (read_run(run).records, _files(run)) for run in (a, b)} == before
    out = tmp_path / "cmp.json"
    out.write_text("keep")
    refused = CliRunner().invoke(main, [*compare, "--json", str(out)])
    assert refused.exit_code == 1
    assert refused.output == f"Error: {out}, field 'json': exists; pass --force to overwrite it\n"
    assert out.read_text() == "keep"
    forced = CliRunner().invoke(main, [*compare, "--json", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert json.loads(out.read_text())["n_paired"] == 4
    assert not list(tmp_path.glob("*.tmp"))
