"""One rule for outputs: every file a command reads is an input, and every stage's files belong
to its own writer, so no command's output replaces either, even forced.

Each case makes its stages and the user's files itself and checks them byte-identical after.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hostile import first_writer, refused, snapshot

from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.log import Manifest, check_output_path, stage_owning

pytestmark = pytest.mark.usefixtures("no_model_loads")
"""Every refusal here comes before a model loads."""
ROOT = Path(__file__).resolve().parents[2]
TEX = ROOT / "tests" / "fixtures" / "tex"
CUT = ["lift", "cut", "--min-cuts", "1"]
SWITCH = ["judge", "build", "--study", "reference-switch", "--items", "4"]
SWITCH += ["--configuration", "a=FINAL3@smollm2-135m"]


def ok(args: list[object]) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def texcopy(tmp_path: Path) -> Path:
    """A user's folder of TeX sources, copied from the fixtures."""
    return Path(shutil.copytree(TEX, tmp_path / "texcopy"))


@pytest.fixture
def stages(tmp_path: Path) -> dict[str, Path]:
    """A cut file, a judge inventory and a plain run made here, each a finished stage."""
    cuts = tmp_path / "stages" / "cuts.jsonl"
    ok([*CUT, TEX, "--out", cuts])
    inventory = tmp_path / "stages" / "inv"
    ok([*SWITCH, "--out", inventory])
    run = tmp_path / "stages" / "b1"
    run.mkdir()
    manifest = Manifest(kind="score", model={"spec": "smollm2-135m"}, config={})
    (run / "manifest.json").write_text(manifest.model_dump_json())
    (run / "records.jsonl").write_text("")
    return {"cuts": cuts, "inventory": inventory, "run": run}


@pytest.mark.parametrize("where", ["testmath.tex", "notes.jsonl", "sub/new.jsonl"])
def test_lift_cut_never_writes_inside_a_folder_it_reads(texcopy, where):
    (texcopy / "sub").mkdir()
    before = snapshot(texcopy)
    for option in ("--out", "--training-out"):
        args = [*CUT, texcopy, "--force", option, texcopy / where]
        if option == "--training-out":
            args += ["--out", texcopy.parent / "cuts.jsonl"]
        error = refused(args, str(texcopy / where), f"is inside {texcopy}, a folder this command")
        assert f"field '{option.removeprefix('--')}'" in error
        assert snapshot(texcopy) == before
    assert not (texcopy.parent / "cuts.jsonl").exists()


@pytest.mark.parametrize(
    ("stage", "target"),
    [
        ("cuts", "cuts.jsonl"),
        ("cuts", "cuts.jsonl.manifest.json"),
        ("cuts", "cuts.jsonl.lock"),
        ("inventory", "inv/inventory.jsonl"),
        ("inventory", "inv/inventory.jsonl.manifest.json"),
        ("inventory", "inv/new.csv"),
        ("run", "b1/report.csv"),
    ],
)
def test_export_never_replaces_a_stage_file_even_forced(tmp_path, stages, stage, target):
    path = tmp_path / "stages" / target
    before = snapshot(tmp_path / "stages")
    error = refused(["export", stages["run"], "--out", path, "--force"], str(path), "field 'out'")
    owner = "only the run writes" if stage == "run" else "only its own writer"
    assert str(stages[stage]) in error and owner in error
    assert snapshot(tmp_path / "stages") == before


def test_a_cut_file_never_lands_over_another_stage_or_its_manifest(tmp_path, stages):
    before = snapshot(tmp_path / "stages")
    cuts = stages["cuts"]
    for target in (
        cuts.with_name(cuts.name + ".manifest.json"),
        stages["inventory"] / "inventory.jsonl",
        stages["run"] / "cuts.jsonl",
    ):
        error = refused([*CUT, TEX, "--out", target, "--force"], str(target))
        assert "only its own writer" in error or "only the run writes" in error
    assert snapshot(tmp_path / "stages") == before


def test_a_cut_file_is_replaced_by_its_own_writer_when_forced(tmp_path, stages):
    cuts = stages["cuts"]
    ok([*CUT, TEX, "--per-paper", "1", "--out", cuts, "--force"])
    manifest = json.loads(cuts.with_name(cuts.name + ".manifest.json").read_text())
    assert manifest["kind"] == "lift-cut" and manifest["config"]["settings"]["per_paper"] == 1


def test_training_out_is_compared_with_out_as_resolved_paths(tmp_path):
    (tmp_path / "runs" / "lc").mkdir(parents=True)
    out = tmp_path / "runs" / "lc" / "same.jsonl"
    spelled = tmp_path / "runs" / ".." / "runs" / "lc" / "same.jsonl"
    error = refused([*CUT, TEX, "--out", out, "--training-out", spelled], "must differ from --out")
    assert str(spelled) in error
    assert list((tmp_path / "runs" / "lc").iterdir()) == []


@pytest.mark.parametrize("twice", ["file", "folder and file"])
def test_a_source_read_twice_is_named_once_with_where_it_came_from(texcopy, twice):
    paper = texcopy / "testmath.tex"
    first = paper if twice == "file" else texcopy
    out = texcopy.parent / "cuts.jsonl"
    error = refused([*CUT, first, paper, "--out", out], str(paper))
    expected = "is given twice" if twice == "file" else f"is read from {texcopy} and {paper}"
    assert expected in error and "give it once" in error
    assert not out.exists()


def test_a_plain_users_file_is_no_stage(tmp_path):
    (tmp_path / "mine.jsonl").write_text('{"a": 1}\n')
    (tmp_path / "mine.jsonl.manifest.json").write_text('{"name": "my own sidecar"}')
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "manifest.json").write_text('{"manifest_version": 3}')
    for path in (tmp_path / "mine.jsonl", tmp_path / "ext" / "out.csv"):
        assert stage_owning(path) is None
        check_output_path(path, option="out", force=True)
    with pytest.raises(InputError, match="exists; pass --force"):
        check_output_path(tmp_path / "mine.jsonl", option="out")


def test_a_tex_file_read_through_a_link_or_an_input_is_never_replaced(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(TEX / "testmath.tex", outside / "other.tex")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "link.tex").symlink_to("../outside/other.tex")
    body = tmp_path / "inputs"
    body.mkdir()
    (body / "main.tex").write_text("\\documentclass{article}\n\\begin{document}\n\\input{body}\n")
    shutil.copy(TEX / "testmath.tex", body / "body.tex")
    before = snapshot(tmp_path)
    for source, read in ((linked, outside / "other.tex"), (body / "main.tex", body / "body.tex")):
        for option in ("--out", "--training-out"):
            args = [*CUT, source, "--force", option, read]
            if option == "--training-out":
                args += ["--out", tmp_path / "cuts.jsonl"]
            refused(args, str(read), "is also an input of this command")
            assert snapshot(tmp_path) == before  # nothing written, not even a lock


@pytest.mark.parametrize("own", [".manifest.json", ".lock", ".papers.json"])
def test_training_out_is_none_of_outs_own_files(tmp_path, own):
    out = tmp_path / "c.jsonl"
    training = tmp_path / f"c.jsonl{own}"
    error = refused([*CUT, TEX, "--out", out, "--training-out", training, "--force"], str(training))
    assert "must differ from --out and from its own files beside it" in error
    assert list(tmp_path.iterdir()) == []


def test_a_cut_files_papers_ledger_is_one_of_its_files(tmp_path, stages):
    ledger = stages["cuts"].with_name("cuts.jsonl.papers.json")
    assert ledger.exists()
    before = snapshot(tmp_path / "stages")
    error = refused(["export", stages["run"], "--out", ledger, "--force"], str(ledger))
    assert f"one of the files of the stage file {stages['cuts']} (lift-cut)" in error
    assert snapshot(tmp_path / "stages") == before


def test_no_output_lands_on_a_file_another_process_is_writing(tmp_path, stages):
    forecast = tmp_path / "forecasts.jsonl"
    forecast.write_text("")  # a writer holds its lock before its manifest exists
    lock = tmp_path / "forecasts.jsonl.lock"
    with first_writer(forecast, "lock-beside") as pid:
        before = snapshot(tmp_path)
        refused(["export", stages["run"], "--out", forecast, "--force"], f"by process {pid}")
        assert snapshot(tmp_path) == before
    assert lock.exists()


def test_a_run_is_never_written_into_another_stages_folder(tmp_path, stages):
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "a", "prompt": "Two plus two is", "options": [" four", " five"]}\n')
    before = snapshot(tmp_path / "stages")
    inventory = stages["inventory"]
    for out, reason in (
        (inventory, "holds a judge-inventory stage, not a run"),
        (inventory / "sub", "is inside the stage folder"),
        (stages["run"] / "sub", "is inside the run directory"),
    ):
        for extra in ([], ["--overwrite"]):
            refused(["score", "--items", items, "--out", out, *extra], str(out), reason)
    assert snapshot(tmp_path / "stages") == before


def test_an_empty_path_is_no_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["score", "--out", "", "--items", str(TEX / "README.md")])
    assert result.exit_code == 2 and "'--out': is empty: name a file or a folder" in result.output
    assert list(tmp_path.iterdir()) == []
