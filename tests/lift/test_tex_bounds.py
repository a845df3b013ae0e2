"""Cutting is linear in the source and reading it is bounded: the work is counted, not timed.

The work of a cut is the number of Python lines the lift package executes (``sys.settrace``
restricted to its modules); a linear cutter does about four times the work on four times the
input, a quadratic one sixteen times. A tracer that stops at a budget proportional to the input
keeps a quadratic cutter from running for minutes before it fails.
"""

from __future__ import annotations

import gzip
import io
import sys
import tarfile
import zlib
from pathlib import Path

import pytest

import readout_audit.lift as lift_package
from readout_audit import InputError
from readout_audit.lift import CutSettings, cut_equations, cut_prose, read_papers
from readout_audit.lift._sources import MAX_ARCHIVE_BYTES, MAX_PAPER_BYTES, TexPaper
from readout_audit.lift._tex import clean_tex

LIFT = str(Path(lift_package.__file__).parent)
STEPS_PER_CHAR = 20
"""The tracer's budget: lines executed per character of input before it stops the cut."""


class TooMuchWork(Exception):
    """The cut executed more lines than its linear budget."""


def steps(text: str) -> int:
    """Lines of the lift package executed to clean ``text`` and cut it both ways."""
    budget, count = STEPS_PER_CHAR * len(text), 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count > budget:
                raise TooMuchWork(f"more than {budget:,} lines for {len(text):,} characters")
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(LIFT) else None

    sys.settrace(calls)
    try:
        paper = TexPaper("p", "p.tex", clean_tex(text), "0" * 64)
        settings = {"min_cuts": 1, "min_context": 10}
        cut_equations(paper, CutSettings(**settings))
        cut_prose(paper, CutSettings(kind="prose", **settings))
    finally:
        sys.settrace(None)
    return count


HOSTILE = {
    "unclosed displays": lambda n: "x \\[ a = b\n" * n,
    "unclosed environments": lambda n: "\\begin{equation} a = b + c\n" * n,
    "unclosed verb spans on one line": lambda n: "".join(
        f"\\verb{chr(33 + i % 6)}ab " for i in range(n)
    ),
    "many blocks": lambda n: "Some words of prose here and there.\n\n" * n,
    "backslashes in a label": lambda n: "\\[ a = b \\label{" + "\\" * (8 * n) + "} + c \\]",
    "environments closed out of order": lambda n: "\\begin{a}\\begin{b}" * n + "\\end{a}" * n,
}


@pytest.mark.parametrize("shape", list(HOSTILE))
def test_the_work_of_a_cut_grows_linearly_with_hostile_sources(shape):
    make = HOSTILE[shape]
    small, large = make(500), make(2000)
    work = [steps(small), steps(large)]
    # four times the input: about four times the work (a quadratic cutter does sixteen)
    assert work[1] / work[0] < 5, (shape, work)


def test_a_real_source_cut_fits_the_same_linear_budget():
    tex = Path(__file__).parent.parent / "fixtures" / "tex" / "testmath.tex"
    text = tex.read_text(encoding="utf-8")
    assert steps(text) < STEPS_PER_CHAR * len(text)


def fan_out_folder(folder: Path, width: int = 10, depth: int = 8, filler: int = 100_000) -> Path:
    """A "billion laughs" of ``\\input``: each file holds filler and ``width`` inputs of the
    next level, ``depth`` levels deep (10^8 inclusions, terabytes once inlined)."""
    for level in range(depth):
        inputs = "".join(f"\\input{{level{level + 1}}}\n" for _ in range(width))
        body = "x" * filler + "\n" + (inputs if level + 1 < depth else "")
        (folder / f"level{level}.tex").write_text(body)
    main = folder / "main.tex"
    main.write_text(
        "\\documentclass{article}\n\\begin{document}\n\\input{level0}\n\\end{document}\n"
    )
    return main


def test_an_input_fan_out_is_refused_at_the_paper_size_limit(tmp_path):
    main = fan_out_folder(tmp_path)
    with pytest.raises(InputError, match=f"longer than {MAX_PAPER_BYTES >> 20} MiB") as caught:
        read_papers([main])
    assert caught.value.source == str(main)


def gzip_of_zeros(size: int) -> bytes:
    """A gzip file expanding to ``size`` zero bytes, made a MiB at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    chunk, parts = bytes(1 << 20), []
    for _ in range(size >> 20):
        parts.append(packer.compress(chunk))
    return b"".join(parts) + packer.flush()


def test_a_gzip_bomb_is_refused_by_size_while_it_expands(tmp_path):
    bomb = tmp_path / "paper.tar.gz"
    bomb.write_bytes(gzip_of_zeros(MAX_ARCHIVE_BYTES + (1 << 20)))
    assert bomb.stat().st_size < MAX_ARCHIVE_BYTES // 500  # about 500 kB on disk
    with pytest.raises(InputError, match=f"expands to more than {MAX_ARCHIVE_BYTES >> 20} MiB"):
        read_papers([bomb])


def test_a_tarball_whose_tex_files_pass_the_paper_limit_is_refused_before_reading(tmp_path):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        for name, size in (("main.tex", 100), ("huge.tex", MAX_PAPER_BYTES)):
            info = tarfile.TarInfo(name)
            info.size = size
            archive.addfile(info, io.BytesIO(b"%" * size))
    path = tmp_path / "paper.tgz"
    path.write_bytes(data.getvalue())
    with pytest.raises(InputError, match=r"its \.tex files hold 64 MiB, more than 64 MiB"):
        read_papers([path])


def test_a_gzip_of_one_tex_file_over_the_paper_limit_is_refused(tmp_path):
    path = tmp_path / "paper.gz"
    path.write_bytes(gzip.compress(b"%" * (MAX_PAPER_BYTES + 1), compresslevel=1))
    with pytest.raises(InputError, match="more than 64 MiB for one paper"):
        read_papers([path])
