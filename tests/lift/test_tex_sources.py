"""Reading papers: .tex files, folders, tarballs and gzips in memory, inputs inlined."""

from __future__ import annotations

import gzip
import hashlib
import io
import tarfile
from pathlib import Path

import pytest

from readout_audit import InputError
from readout_audit.lift import read_papers

MAIN = (
    "\\documentclass{article}\n\\begin{document}\n% \\input{commented}\n"
    "Intro.\n\\input{sec/one}\n\\include{two.tex}\n\\input{missing}\n\\end{document}\n"
)


def tarball(path: Path, files: dict[str, str], mode: str = "w:gz") -> bytes:
    with tarfile.open(path, mode) as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path.read_bytes()


def test_a_tarball_is_read_in_memory_with_its_inputs_inlined(tmp_path):
    files = {
        "ms.tex": MAIN,
        "sec/one.tex": "One % c\n\\input{sec/three}\n",
        "sec/three.tex": "Three.\n",
        "two.tex": "Two.\n",
        "macros.tex": "\\newcommand{\\x}{x}\n",
        "notes.tex": "\\begin{document} a stray body \\end{document}",
    }
    raw = tarball(tmp_path / "2604.19885.tar.gz", files)
    (paper,) = read_papers([tmp_path / "2604.19885.tar.gz"])
    assert paper.id == "2604.19885"
    assert paper.source == f"{tmp_path / '2604.19885.tar.gz'}:ms.tex"
    assert paper.text == "\n\nIntro.\nOne\nThree.\n\n\nTwo.\n\n\\input{missing}\n"
    assert paper.notes == ("input 'missing' not found, left as it is",)
    assert paper.raw_sha256 == hashlib.sha256(raw).hexdigest()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2604.19885.tar.gz"]  # nothing extracted


def test_an_input_that_includes_itself_is_inlined_once(tmp_path):
    tarball(
        tmp_path / "loop.tar",
        {"a.tex": MAIN.replace("sec/one", "b"), "b.tex": "B \\input{b}"},
        mode="w",
    )
    (paper,) = read_papers([tmp_path / "loop.tar"])
    assert "B \\input{b}" in paper.text
    assert "input 'b' not inlined: it includes itself" in paper.notes


def test_unsafe_member_names_are_refused(tmp_path):
    tarball(tmp_path / "bad.tgz", {"ms.tex": MAIN, "../evil.tex": "x"})
    with pytest.raises(InputError, match=r"unsafe member name '\.\./evil\.tex'"):
        read_papers([tmp_path / "bad.tgz"])


def test_a_gzip_of_one_tex_file_is_a_paper(tmp_path):
    (tmp_path / "2604.1.gz").write_bytes(gzip.compress(MAIN.encode()))
    (paper,) = read_papers([tmp_path / "2604.1.gz"])
    assert paper.id == "2604.1"
    assert paper.text.startswith("\n\nIntro.\n\\input{sec/one}")


def test_a_folder_holds_one_paper_per_main_file_and_inputs_beside_them(tmp_path):
    (tmp_path / "a.tex").write_text(MAIN)
    (tmp_path / "sec").mkdir()
    (tmp_path / "sec" / "one.tex").write_text("One.")
    (tmp_path / "two.tex").write_text("Two: no document class, an input only.")
    (tmp_path / "b.tex").write_bytes(b"\\begin{document}caf\xe9\\end{document}")
    papers = read_papers([tmp_path])
    assert [p.id for p in papers] == ["a", "b"]
    assert (
        papers[0].text
        == "\n\nIntro.\nOne.\nTwo: no document class, an input only.\n\\input{missing}\n"
    )
    assert papers[1].text == "caf\ufffd"
    assert papers[1].notes == (
        f"{tmp_path / 'b.tex'}: not UTF-8, undecodable bytes replaced by U+FFFD",
    )


def test_two_papers_with_one_id_name_both_sources(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "a.tex").write_text(MAIN)
    (tmp_path / "x" / "a.tex").write_text(MAIN)
    with pytest.raises(InputError, match=r"paper id 'a' is read from both .*a\.tex and .*x/a\.tex"):
        read_papers([tmp_path / "a.tex", tmp_path / "x" / "a.tex"])


def test_a_file_that_is_neither_tex_nor_an_archive_is_an_error(tmp_path):
    (tmp_path / "notes.txt").write_text("plain")
    with pytest.raises(InputError, match=r"neither a \.tex file"):
        read_papers([tmp_path / "notes.txt"])
