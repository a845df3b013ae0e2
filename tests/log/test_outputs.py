"""Output paths a command may write: never in a run directory, over an input, or unforced."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.log import Manifest, check_output_path


@pytest.fixture
def run_dir(tmp_path):
    """A run directory as far as outputs go: one holding a run manifest."""
    run = tmp_path / "runs" / "a"
    (run / "artifacts").mkdir(parents=True)
    manifest = Manifest(kind="score", model={"spec": "smollm2-135m"}, config={})
    (run / "manifest.json").write_text(manifest.model_dump_json(), encoding="utf-8")
    return run


@pytest.mark.parametrize(
    "name", ["manifest.json", "records.jsonl", "report.html", "artifacts/x.json", "new/deep.json"]
)
def test_every_path_inside_a_run_directory_is_refused_even_forced(run_dir, name):
    path = run_dir / name
    with pytest.raises(InputError) as caught:
        check_output_path(path, option="html", force=True)
    assert str(caught.value) == (
        f"{path}, field 'html': is inside the run directory {run_dir.resolve()}, whose files "
        "only the run writes; choose a path outside it"
    )


def test_a_dotted_or_linked_path_into_a_run_is_refused(run_dir, tmp_path):
    dotted = tmp_path / "runs" / "elsewhere" / ".." / "a" / "records.jsonl"
    link = tmp_path / "link.json"
    link.symlink_to(run_dir / "manifest.json")
    for path in (dotted, link):
        with pytest.raises(InputError, match="is inside the run directory"):
            check_output_path(path, option="json", force=True)


def test_an_input_is_refused_even_forced(tmp_path):
    source = tmp_path / "paper.tex"
    source.write_text("\\documentclass{article}")
    with pytest.raises(InputError, match=r"paper\.tex, field 'out': is also an input"):
        check_output_path(tmp_path / "." / "paper.tex", option="out", inputs=[source], force=True)


def test_an_existing_file_needs_force_and_a_directory_is_refused(run_dir, tmp_path):
    existing = tmp_path / "old.html"
    existing.write_text("keep")
    with pytest.raises(InputError, match=r"old\.html, field 'html': exists; pass --force"):
        check_output_path(existing, option="html")
    check_output_path(existing, option="html", force=True)
    check_output_path(run_dir.parent / "a.html", option="html")  # beside the run, not in it
    with pytest.raises(InputError, match="is a directory"):
        check_output_path(tmp_path, option="html", force=True)
    assert existing.read_text() == "keep"


def test_a_manifest_json_that_is_not_a_runs_does_not_make_a_run_directory(tmp_path):
    (tmp_path / "manifest.json").write_text('{"manifest_version": 3, "name": "an extension"}')
    check_output_path(tmp_path / "report.html", option="html")
