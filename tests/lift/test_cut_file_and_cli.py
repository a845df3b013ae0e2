"""Cut files and their manifest, and ``readout lift cut`` on the shipped fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit import InputError
from readout_audit._cli import main
from readout_audit.lift import read_cuts
from readout_audit.log import Manifest

TEX = Path(__file__).parent.parent / "fixtures" / "tex"


def run(*args: str):
    return CliRunner().invoke(main, ["lift", "cut", *args])


def test_cut_writes_cuts_a_manifest_and_a_table(tmp_path):
    out = tmp_path / "cuts.jsonl"
    result = run(str(TEX / "testmath.tex"), str(TEX / "aipsamp.tex"), "--out", str(out))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == [
        "paper", "displays", "cuts", "context", "no_site", "target_short", "target_in_context",
        "too_few_cuts", "over_quota",
    ]  # fmt: skip
    assert lines[1].split() == ["testmath", "131", "10", "24", "30", "24", "4", "0", "39"]
    # aipsamp offers one qualifying cut: the paper's rule (ten) leaves it out
    assert lines[2].split() == ["aipsamp", "12", "0", "7", "2", "2", "0", "1", "0"]
    assert lines[3].split() == ["total", "143", "10", "31", "32", "26", "4", "1", "39"]
    assert lines[4] == "admitted 1 of 2 papers (each with at least 10 qualifying cuts)"
    cuts = read_cuts(out)
    assert len(cuts) == 10 and {c.paper for c in cuts} == {"testmath"}
    manifest = json.loads((tmp_path / "cuts.jsonl.manifest.json").read_text())
    assert manifest["kind"] == "lift-cut" and manifest["model"] == {}
    assert manifest["config"]["settings"] == {
        "kind": "equation", "seed": 0, "per_paper": 10, "every": False, "min_cuts": 10,
        "min_context": 10000, "min_target": 50, "max_target": 400,
    }  # fmt: skip
    assert [p["paper"] for p in manifest["config"]["papers"]] == ["testmath", "aipsamp"]
    assert manifest["invocations"][-1]["finished"] is not None
    assert manifest["invocations"][-1]["planned"] == 10
    papers = json.loads((tmp_path / "cuts.jsonl.papers.json").read_text())["papers"]
    assert [p["admitted"] for p in papers] == [True, False]
    assert papers[0]["paper_sha256"] == cuts[-1].paper_sha256
    assert not list(tmp_path.glob("*.tmp"))


def test_training_out_holds_every_qualifying_cut_of_the_admitted_papers(tmp_path):
    out, training = tmp_path / "cuts.jsonl", tmp_path / "train.jsonl"
    sources = [str(TEX / "testmath.tex"), str(TEX / "aipsamp.tex")]
    result = run(*sources, "--out", str(out), "--training-out", str(training))
    assert result.exit_code == 0, result.output
    assert f"wrote 49 training cuts to {training}" in result.output
    bench, every = read_cuts(out), read_cuts(training)
    # testmath's 10 kept + 39 over the quota (the table above); aipsamp is still not admitted
    assert len(every) == 49 and {c.paper for c in every} == {"testmath"}
    assert all(cut in every for cut in bench)  # the benchmark's cuts, identical
    assert [c.cut_offset for c in every] == sorted(c.cut_offset for c in every)
    manifest = json.loads((tmp_path / "train.jsonl.manifest.json").read_text())
    assert manifest["config"]["settings"]["every"] is True
    papers = json.loads((tmp_path / "train.jsonl.papers.json").read_text())["papers"]
    assert [(p["cuts"], p["rejected"]["over_quota"]) for p in papers] == [
        (49, 0),
        (0, 0),
    ]
    same = run(*sources, "--out", str(out), "--training-out", str(out), "--force")
    assert same.exit_code != 0 and "must differ from --out" in same.output


def test_an_existing_out_is_kept_unless_forced(tmp_path):
    out = tmp_path / "cuts.jsonl"
    out.write_text("keep\n")
    result = run(str(TEX / "aipsamp.tex"), "--out", str(out))
    assert result.exit_code == 1
    assert f"{out}, field 'out': exists; pass --force to overwrite it" in result.output
    assert out.read_text() == "keep\n"
    prose = ["--force", "--kind", "prose", "--min-cuts", "1"]
    result = run(str(TEX / "aipsamp.tex"), "--out", str(out), *prose)
    assert result.exit_code == 0, result.output
    assert [c.kind for c in read_cuts(out)] == ["prose"] * 9  # non-overlapping targets


def test_cut_never_overwrites_a_source_a_manifest_or_a_run_file(tmp_path):
    source = tmp_path / "aipsamp.tex"
    shutil.copy(TEX / "aipsamp.tex", source)
    result = run(str(source), "--out", str(source), "--force")
    assert result.exit_code == 1 and result.output == (
        f"Error: {source}, field 'out': is also an input of this command; choose another path\n"
    )
    assert source.read_bytes() == (TEX / "aipsamp.tex").read_bytes()
    sidecar = tmp_path / "cuts.jsonl.manifest.json"
    sidecar.write_text("keep\n")
    result = run(str(source), "--out", str(tmp_path / "cuts.jsonl"))
    assert result.exit_code == 1
    assert f"{sidecar}, field 'out': exists; pass --force to overwrite it" in result.output
    assert sidecar.read_text() == "keep\n" and not (tmp_path / "cuts.jsonl").exists()
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    manifest = Manifest(kind="lift", model={"spec": "smollm2-135m"}, config={})
    (run_dir / "manifest.json").write_text(manifest.model_dump_json(), encoding="utf-8")
    result = run(str(source), "--out", str(run_dir / "cuts.jsonl"))
    assert result.exit_code == 1
    assert f"{run_dir / 'cuts.jsonl'}, field 'out': is inside the run directory" in result.output
    assert [p.name for p in run_dir.iterdir()] == ["manifest.json"]


def test_a_duplicate_paper_id_is_a_clean_error(tmp_path):
    (tmp_path / "x").mkdir()
    shutil.copy(TEX / "aipsamp.tex", tmp_path / "x" / "aipsamp.tex")
    result = run(str(TEX / "aipsamp.tex"), str(tmp_path / "x"), "--out", str(tmp_path / "c"))
    assert result.exit_code == 1
    assert "paper id 'aipsamp' is read from both" in result.output
    assert "Traceback" not in result.output


def test_read_cuts_names_the_line_and_field_of_a_bad_cut(tmp_path):
    out = tmp_path / "cuts.jsonl"
    assert run(str(TEX / "aipsamp.tex"), "--out", str(out), "--min-cuts", "1").exit_code == 0
    (cut,) = read_cuts(out)
    record = cut.model_dump()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(record) + "\n" + json.dumps({**record, "cut_offset": "x"}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl:2, item 'aipsamp:eq9', field 'cut_offset'"):
        read_cuts(bad)
    bad.write_text(json.dumps(record) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(
        InputError,
        match=r"bad.jsonl:2, item 'aipsamp:eq9', field 'id': cut id 'aipsamp:eq9' repeats",
    ):
        read_cuts(bad)
    bad.write_text(json.dumps({**record, "target": "changed"}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl:1, field 'target_sha256'"):
        read_cuts(bad)


def test_paper_ids_from_hostile_file_names_are_printed_inert(tmp_path):
    name = "\x1b]0;pwned\x07\x1b[31maip\u202esamp"  # a window title, a colour, an override
    (tmp_path / "papers").mkdir()
    shutil.copy(TEX / "aipsamp.tex", tmp_path / "papers" / f"{name}.tex")
    out = tmp_path / "cuts.jsonl"
    result = run(str(tmp_path / "papers"), "--out", str(out), "--min-cuts", "1")
    assert result.exit_code == 0, result.output
    assert not {"\x1b", "\x07", "\u202e"} & set(result.output)
    assert "pwned" not in result.output
    assert result.output.splitlines()[1].split()[:3] == ["aip<U+202E>samp", "12", "1"]
    assert [c.paper for c in read_cuts(out)] == [name]  # the cut file keeps the id as read
