"""``readout table``: one row per run, its CSV, and the index page linking every run's report."""

from __future__ import annotations

import csv
import math
import re
import shutil

import markupsafe
import pytest
from click.testing import CliRunner

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit.kind import get_kind
from readout_audit.kind._headline import VariantMass, mass_headline
from readout_audit.report import index_report_paths, run_summary

pytestmark = pytest.mark.cost(20)


def test_mass_headline_pools_the_variants():
    found = mass_headline(
        [
            VariantMass(median=0.9, n_below_floor=1, n_measured=4, accuracy=0.5, n_judged=4),
            VariantMass(median=0.2, n_below_floor=3, n_measured=4, accuracy=1.0, n_judged=2),
            VariantMass(median=None, n_below_floor=0, n_measured=0, accuracy=None, n_judged=0),
        ]
    )
    assert found == {"median mass": 0.2, "below floor": 0.5, "accuracy": pytest.approx(4 / 6)}
    assert set(mass_headline([]).values()) == {None}


def test_index_reports_are_numbered_with_safe_names(tmp_path):
    out = tmp_path / "site" / "index.html"
    paths = index_report_paths(out, [tmp_path / "a b<c>", tmp_path / "a b<c>", tmp_path / ".."])
    folder = tmp_path / "site" / "index_reports"
    assert paths[:2] == [folder / "1-a_b_c.html", folder / "2-a_b_c.html"]
    assert paths[2].parent == folder and re.fullmatch(r"3-[\w.-]+\.html", paths[2].name)


def _expected_row(run_dir):
    run = read_run(run_dir)
    summary = run_summary(run)
    verdicts = [str(sum(c.verdict == v for c in summary.checks)) for v in ("pass", "warn", "fail")]
    fixed = [str(run_dir), run.manifest.kind, "smollm2-135m"]
    fixed += [str(len({r.item_id for r in run.records})), str(len(run.records)), run.state]
    return [*fixed, *verdicts], get_kind(run.manifest.kind).headline(summary)


def test_table_counts_verdicts_and_headline_of_every_run(hostile_run, yesno_run, tmp_path):
    out = tmp_path / "table.csv"
    args = ["table", str(hostile_run), str(yesno_run), "--plain", "--csv", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "+--" in result.output and "\x1b[" not in result.output
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2
    header = list(rows[0])
    assert header[:9] == [
        "run",
        "kind",
        "model",
        "items",
        "records",
        "state",
        "PASS",
        "WARN",
        "FAIL",
    ]
    for row, run_dir in zip(rows, (hostile_run, yesno_run), strict=True):
        fixed, headline = _expected_row(run_dir)
        assert list(row.values())[:9] == fixed
        assert headline and set(headline) <= set(header[9:])
        for name in header[9:]:
            value = headline.get(name)
            if value is None:
                assert row[name] == ""
            else:
                assert math.isclose(float(row[name]), value, abs_tol=1e-12)
    yesno = read_run(yesno_run).summary
    assert sum(c.verdict == "fail" for c in yesno.checks) == int(rows[1]["FAIL"]) > 0
    assert rows[0]["F1 dynamic"] == "" and rows[1]["median mass"] == ""


def test_index_links_every_run_to_its_report_and_escapes_names(hostile_run, yesno_run, tmp_path):
    hostile_name = tmp_path / "<i>run&\"'"
    shutil.copytree(hostile_run, hostile_name)
    index = tmp_path / "site" / "index.html"
    args = ["table", str(hostile_name), str(yesno_run), "--html", str(index), "--plain"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    page = index.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<script" not in page and "<i>" not in page
    assert str(markupsafe.escape(str(hostile_name))) in page
    links = re.findall(r'<a href="([^"]+)">', page)
    assert links == ["index_reports/1-i_run.html", "index_reports/2-run.html"]
    for link in links:
        report = (index.parent / link).read_text(encoding="utf-8")
        assert report.startswith("<!DOCTYPE html>")
    # the reports beside the index are outputs too: kept unless forced
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 1 and "exists; pass --force" in again.output
    forced = CliRunner().invoke(main, [*args, "--force"])
    assert forced.exit_code == 0, forced.output


def test_table_refuses_outputs_inside_a_run_and_missing_runs(hostile_run, tmp_path):
    inside = hostile_run / "index.html"
    result = CliRunner().invoke(main, ["table", str(hostile_run), "--html", str(inside)])
    assert result.exit_code == 1 and "is inside the run directory" in result.output
    assert not inside.exists() and not (hostile_run / "index_reports").exists()
    missing = CliRunner().invoke(main, ["table", str(hostile_run), str(tmp_path / "nowhere")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    empty = CliRunner().invoke(main, ["table", str(tmp_path)])
    assert empty.exit_code == 1 and "is not a run directory" in empty.output
    none = CliRunner().invoke(main, ["table"])
    assert none.exit_code == 2 and "Missing argument" in none.output
