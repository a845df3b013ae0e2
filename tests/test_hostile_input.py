"""Hostile input at every entry point: a one-line error naming the input, before any work, and
nothing written to an existing run directory. Every hostile input is made here."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from fault_proxy import FaultProxy
from hostile import refused, snapshot

from readout_audit._cli import main
from readout_audit.log._run import SUMMARY
from readout_audit.serve import LEDGER_FILE

ROOT = Path(__file__).resolve().parents[1]
DEEP = 100_000


@pytest.fixture(scope="module")
def score_run(tmp_path_factory) -> Path:
    """A finished one-item score run on the session's model: no hostile rerun may touch it."""
    out = tmp_path_factory.mktemp("hostile") / "run"
    items = ROOT / "examples" / "items.jsonl"
    result = CliRunner().invoke(
        main, ["score", "--items", str(items), "--limit", "1", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def specials(tmp_path) -> dict[str, Path]:
    """A folder, a symbolic-link loop, a link to /dev/zero and a FIFO."""
    made = {}
    for suffix in (".jsonl", ".toml", ".tex"):
        folder = tmp_path / f"folder{suffix}"
        folder.mkdir()
        loop = tmp_path / f"loop{suffix}"
        loop.symlink_to(loop)
        zero = tmp_path / f"zero{suffix}"
        zero.symlink_to("/dev/zero")
        fifo = tmp_path / f"fifo{suffix}"
        os.mkfifo(fifo)
        made |= {f"folder{suffix}": folder, f"loop{suffix}": loop}
        made |= {f"zero{suffix}": zero, f"fifo{suffix}": fifo}
    return made


@pytest.mark.model
@pytest.mark.parametrize("kind", ["loop", "zero", "fifo"])
def test_items_that_are_no_regular_file_leave_the_run_untouched(score_run, specials, kind):
    before = snapshot(score_run)
    path = specials[f"{kind}.jsonl"]
    refused(["score", "--items", path, "--out", score_run], path.name)
    refused(["audit", "options", "--items", path, "--out", score_run.parent / "new"], path.name)
    assert snapshot(score_run) == before
    assert not (score_run.parent / "new").exists()


@pytest.mark.parametrize("kind", ["folder", "loop", "zero", "fifo"])
def test_a_spec_that_is_no_regular_file_is_named(tmp_path, specials, kind):
    path = specials[f"{kind}.toml"]
    items = ROOT / "examples" / "mc.jsonl"
    refused(
        ["audit", "options", "--items", items, "--spec", path, "--out", tmp_path / "o"], path.name
    )
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", ["zero", "fifo", "loop"])
def test_lift_cut_refuses_a_tex_source_that_is_no_regular_file(tmp_path, specials, kind):
    path = specials[f"{kind}.tex"]
    refused(["lift", "cut", path, "--out", tmp_path / "cuts.jsonl"], path.name)
    assert not (tmp_path / "cuts.jsonl").exists()


@pytest.mark.parametrize(
    ("name", "text", "reason"),
    [
        ("deep.toml", "[spec]\nname = 'x'\nx = " + "[" * DEEP + "]" * DEEP, "nested deeper than"),
        ("deep.yaml", "spec:\n  name: x\n  x: " + "[" * DEEP + "]" * DEEP, "nested deeper than"),
        ("big.toml", "[spec]\nname = 'x'\nx = " + "9" * 5000, "integer of more than 4,300"),
        ("big.yaml", "spec:\n  name: x\n  x: " + "9" * 5000, "integer of more than 4,300"),
    ],
)
def test_spec_files_are_bounded_in_nesting_and_integer_size(tmp_path, name, text, reason):
    spec = tmp_path / name
    spec.write_text(text + "\n")
    items = ROOT / "examples" / "mc.jsonl"
    error = refused(["audit", "options", "--items", items, "--spec", spec, "--out", tmp_path / "o"])
    assert name in error and reason in error
    assert not (tmp_path / "o").exists()


@pytest.mark.model
def test_a_report_of_a_summary_nested_too_deeply_names_the_file(score_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(score_run, run)
    (run / SUMMARY).write_text('{"kind": ' + "[" * DEEP + "]" * DEEP + "}\n")
    refused(["report", run], SUMMARY, "nested deeper than")


def test_judge_build_names_a_drop_file_nested_too_deeply(tmp_path):
    drop = tmp_path / "drop.jsonl"
    drop.write_text('{"query_id": ' + "[" * DEEP + "]" * DEEP + "}\n")
    args = ["judge", "build", "--drop", drop, "--configuration", "a=FINAL3@smollm2-135m"]
    refused([*args, "--out", tmp_path / "inventory"], "drop.jsonl:1", "nested deeper than")
    assert not (tmp_path / "inventory").exists()


def test_a_served_endpoint_answering_json_nested_too_deeply_is_named(tmp_path):
    with FaultProxy("127.0.0.1", 9) as proxy:  # answers itself: nothing is forwarded
        proxy.schedule(["deep_json"] * 4)
        items = ROOT / "examples" / "items.jsonl"
        model = ["--model", f"openai:{proxy.url}#smollm2", "--tokenizer", "smollm2-135m"]
        error = refused(["score", *model, "--items", items, "--out", tmp_path / "o"])
    assert "/models did not answer" in error and "nested deeper than" in error
    assert proxy.forwarded == []


@pytest.mark.parametrize("content", [b"not a database at all" * 100, None])
def test_a_ledger_that_is_no_sqlite_database_is_named(tmp_path, content):
    path = tmp_path / LEDGER_FILE
    if content is None:
        path.mkdir()
        reason = "is a folder, not a ledger"
    else:
        path.write_bytes(content)
        reason = "cannot be read as a ledger (file is not a database)"
    before = snapshot(tmp_path)
    refused(["ledger", tmp_path], LEDGER_FILE, reason)
    assert snapshot(tmp_path) == before
    if content is not None:
        with pytest.raises(sqlite3.DatabaseError):  # sqlite itself agrees
            sqlite3.connect(path).execute("PRAGMA user_version").fetchone()


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process cannot write in: mode 0500, or ``/proc`` for root (whom modes do
    not stop)."""
    if os.geteuid() == 0:
        return Path("/proc")
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o500)
    return folder


@pytest.mark.model
def test_report_html_into_an_unwritable_folder_is_refused_before_writing(score_run, tmp_path):
    folder = unwritable_folder(tmp_path)
    html = folder / "report.html"
    refused(["report", score_run, "--html", html], "report.html", "not writable")
    assert not html.exists()


@pytest.mark.model
def test_a_resume_whose_records_cannot_be_written_changes_nothing(score_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(score_run, run)
    records = run / "records.jsonl"
    records.chmod(0o444)
    root = os.geteuid() == 0
    if root and subprocess.run(["chattr", "+i", str(records)], check=False).returncode != 0:
        pytest.skip("root here cannot make a file read-only (no chattr +i)")
    try:
        before = snapshot(run)
        items = ROOT / "examples" / "items.jsonl"
        args = ["score", "--items", items, "--limit", "2", "--out", run]
        refused(args, "records.jsonl", "cannot be written")
        assert snapshot(run) == before
    finally:
        if root:
            subprocess.run(["chattr", "-i", str(records)], check=True)


def test_a_csv_field_over_the_csv_limit_names_its_line(tmp_path):
    folder = tmp_path / "mmlu"
    folder.mkdir()
    row = '"' + "a" * 200_000 + '",a,b,c,d,A\n'
    (folder / "geo_test.csv").write_text("q,a,b,c,d,A\n" + row)
    items = ["--items", folder, "--spec", "answer", "--out", tmp_path / "o"]
    refused(["audit", "options", *items], "geo_test.csv:2", "field larger than field limit")


def test_an_empty_yes_form_is_refused_before_the_model_loads(tmp_path):
    refused(["audit", "yesno", "--yes-form", "", "--out", tmp_path / "o"], "yes_form")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("option", "value", "reason"),
    [
        ("--grid", "nan,10,0.05", "must be finite numbers"),
        ("--grid", "-10,10,0", "step > 0"),
        ("--grid", "10,-10,0.05", "high ≥ low"),
        ("--grid", "-10,10,1e-12", "use a coarser grid"),
        ("--prior", "nan,0.5,0.5", "must be finite numbers"),
        ("--prior", "0.5,0.5", "3 non-negative numbers summing to 1"),
        ("--probe-seeds", "42,-1", "-1 is not in the range 0<=x<2^63"),
        ("--seed", "-1", "-1 is not in the range 0<=x<2^63"),
        ("--generator-seed", str(1 << 63), "not in the range 0<=x<2^63"),
    ],
)
def test_recover_options_are_refused_before_the_model_loads(tmp_path, option, value, reason):
    args = ["audit", "recover", "--generate", "controlled-logic", "--n", "4", "--train-n", "8"]
    refused([*args, option, value, "--out", tmp_path / "o"], reason)
    assert not (tmp_path / "o").exists()


def test_served_listing_files_pass_the_same_gate(tmp_path, specials):
    path = specials["fifo.jsonl"]
    items = ROOT / "examples" / "items.jsonl"
    refused(
        ["score", "--model", f"openai:{path}#m", "--items", items, "--out", tmp_path / "o"],
        path.name,
    )


@pytest.mark.parametrize("kind", ["folder", "zero", "fifo"])
def test_lift_cut_files_that_are_no_regular_file_are_named(tmp_path, specials, kind):
    cuts = specials[f"{kind}.jsonl"]
    refused(["lift", "predict", "--cuts", cuts, "--out", tmp_path / "z.jsonl"], cuts.name)
    args = ["lift", "score", "--cuts", cuts, "--forecasts", cuts, "--out", tmp_path / "run"]
    refused(args, cuts.name)
    assert not (tmp_path / "z.jsonl").exists() and not (tmp_path / "run").exists()
