r"""``\input`` expansion is bounded by the work it does, not only by the text it makes.

A fan-out of tiny files (a few hundred bytes that would inline to gigabytes) and a file that
inputs itself over and over are refused after at most :data:`MAX_INPUTS` commands, each input
file read once: the work is counted (files cleaned, characters read), never timed.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from hostile import refused, snapshot

from readout_audit import InputError
from readout_audit.lift import _sources
from readout_audit.lift._sources import MAX_INPUTS, make_paper, read_papers

DOCUMENT = "\\documentclass{article}\n\\begin{document}\n{body}\n\\end{document}\n"


def tiny_fan_out(width: int = 10, depth: int = 9) -> dict[str, str]:
    """``depth`` files of ``width`` inputs of the next: 10^9 inclusions from under a kilobyte."""
    files = {"main.tex": DOCUMENT.replace("{body}", "\\input{f0}")}
    for level in range(depth):
        files[f"f{level}.tex"] = f"\\input{{f{level + 1}}}" * width
    files[f"f{depth}.tex"] = "x"
    return files


@pytest.fixture
def counted(monkeypatch):
    """The characters every inlined file's comment stripping reads, one entry per file."""
    seen: list[int] = []
    real = _sources.strip_comments

    def strip(text: str) -> str:
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr(_sources, "strip_comments", strip)
    return seen


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder / "main.tex"


def test_a_fan_out_of_tiny_files_is_refused_after_bounded_work(tmp_path, counted):
    files = tiny_fan_out()
    assert sum(len(t) for t in files.values()) < 1000
    main = write(tmp_path / "src", files)
    before = snapshot(tmp_path / "src")
    out = tmp_path / "cuts.jsonl"
    error = refused(["lift", "cut", main, "--out", out], str(main), f"{MAX_INPUTS:,}", "fan-out")
    assert "Traceback" not in error and not out.exists()
    assert snapshot(tmp_path / "src") == before
    assert len(counted) <= MAX_INPUTS + 1 and sum(counted) < 50 * MAX_INPUTS


def test_a_file_that_inputs_itself_over_and_over_is_refused(tmp_path, counted):
    main = write(
        tmp_path / "src", {"main.tex": DOCUMENT.replace("{body}", "\\input{main}\n" * 6000)}
    )
    with pytest.raises(InputError, match="an input fan-out") as caught:
        read_papers([main])
    assert caught.value.source == str(main)
    assert len(counted) == 1  # the main file only: itself is never inlined


def test_a_fan_out_in_an_archive_names_its_main_member(tmp_path):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        for name, text in tiny_fan_out().items():
            info = tarfile.TarInfo(f"paper/{name}")
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    path = tmp_path / "2401.00001.tar.gz"
    path.write_bytes(data.getvalue())
    refused(["lift", "cut", path, "--out", tmp_path / "c.jsonl"], f"{path}:paper/main.tex")


def test_many_inputs_of_one_file_are_inlined_and_it_is_read_once(tmp_path):
    reads: list[str] = []

    def lookup(name: str) -> tuple[str, bytes] | None:
        reads.append(name)
        return ("part.tex", b"Part. % a comment\n") if name == "part" else None

    body = "\\input{part}\n" * 300 + "\\input{missing}\n" * 3
    main = DOCUMENT.replace("{body}", body).encode()
    paper = make_paper("p", "p.tex", ("p.tex", main), lookup, main)
    assert paper.text.count("Part.") == 300 and "a comment" not in paper.text
    assert reads == ["part", "missing"]
    assert paper.notes == ("input 'missing' not found, left as it is",) * 3
