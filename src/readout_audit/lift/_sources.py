r"""Papers read from TeX sources: a ``.tex`` file, a folder of them, or an arXiv-style archive.

A paper is its main file with ``\input``/``\include`` of files beside it inlined, then cleaned
(:func:`clean_tex`). Archives are read in memory, never extracted. Everything read is bounded:
a paper's text (inputs inlined) by :data:`MAX_PAPER_BYTES` and its ``\input`` commands by
:data:`MAX_INPUTS`, an archive before and after decompression by :data:`MAX_ARCHIVE_BYTES`,
refused before it is expanded further.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path, PurePosixPath

from readout_audit._exceptions import InputError
from readout_audit._util import read_input_bytes
from readout_audit.lift._cut import sha256_text
from readout_audit.lift._tex import clean_tex, strip_comments

MAX_INPUT_DEPTH = 10
"""How deep ``\\input`` files may nest before further inputs are left as they are."""
MAX_PAPER_BYTES = 64 << 20
"""The most text one paper may hold, its inputs inlined (64 MiB; arXiv takes a whole submission
of up to 50 MB): an ``\\input`` fan-out that would pass it is refused, not expanded."""
MAX_INPUTS = 5_000
"""The most ``\\input``/``\\include`` commands one paper may meet while its inputs are inlined:
a fan-out of small files is refused after this much work, long before it reaches the size limit."""
MAX_ARCHIVE_BYTES = 512 << 20
"""The largest archive read, and the most it may expand to (512 MiB)."""

_INPUT = re.compile(r"\\(?:input|include)\s*\{([^{}]+)\}")
_MAIN_MARKERS = (r"\documentclass", r"\begin{document}")
_ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".gz")

Lookup = Callable[[str], tuple[str, bytes] | None]
"""An input name to its file's name and bytes, or None when there is no such file."""


@dataclass(frozen=True)
class TexPaper:
    """One paper's cleaned text, with where it came from and what reading it noticed."""

    id: str
    source: str
    """The main file (inside an archive: ``archive:member``)."""
    text: str
    """The cleaned text (comments, ``\\iffalse`` blocks and preamble removed) cuts index."""
    raw_sha256: str
    """SHA-256 of the source's bytes as read (the archive's for an archive)."""
    notes: tuple[str, ...] = field(default=())
    """Inputs skipped, bytes that were not UTF-8."""
    files: tuple[str, ...] = field(default=())
    """Every file read for the paper, resolved (its main file and each input inlined): the
    command's inputs, which no output of it may replace."""

    @cached_property
    def sha256(self) -> str:
        """SHA-256 of the cleaned text (hashed once: every cut of the paper names it)."""
        return sha256_text(self.text)


def decode(data: bytes, name: str, notes: list[str]) -> str:
    """UTF-8 text; undecodable bytes become U+FFFD and a note says so."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        notes.append(f"{name}: not UTF-8, undecodable bytes replaced by U+FFFD")
        return data.decode("utf-8", errors="replace")


@dataclass
class _Inliner:
    r"""Inlines ``\input``/``\include`` files within :data:`MAX_PAPER_BYTES` and :data:`MAX_INPUTS`.

    Each input file is looked up and read once, however often it is met.
    """

    lookup: Lookup
    notes: list[str]
    source: str
    budget: int = MAX_PAPER_BYTES
    met: int = 0
    files: dict[str, tuple[str, bytes] | None] = field(default_factory=dict)

    def inline(self, text: str, stack: tuple[str, ...]) -> str:
        r"""The text (comments stripped) with every ``\input{x}``/``\include{x}`` found replaced."""
        return _INPUT.sub(lambda match: self._replace(match, stack), strip_comments(text))

    def _replace(self, match: re.Match[str], stack: tuple[str, ...]) -> str:
        name = match.group(1).strip()
        self.met += 1
        if self.met > MAX_INPUTS:
            raise InputError(
                f"inlining its inputs meets more than {MAX_INPUTS:,} \\input or \\include "
                f"commands (the last {name!r}): an input fan-out, not read",
                source=self.source,
            )
        if len(stack) >= MAX_INPUT_DEPTH:
            self.notes.append(f"input {name!r} not inlined: nested deeper than {MAX_INPUT_DEPTH}")
            return match.group()
        if name not in self.files:
            self.files[name] = self.lookup(name)
        found = self.files[name]
        if found is None:
            self.notes.append(f"input {name!r} not found, left as it is")
            return match.group()
        resolved, data = found
        if resolved in stack:
            self.notes.append(f"input {name!r} not inlined: it includes itself")
            return match.group()
        self.budget -= len(data)
        if self.budget < 0:
            raise InputError(
                f"inlining its inputs ({name!r} and those before it) would make the paper "
                f"longer than {MAX_PAPER_BYTES >> 20} MiB; not read",
                source=self.source,
            )
        return self.inline(decode(data, resolved, self.notes), (*stack, resolved))


def candidate_names(name: str) -> list[str]:
    """The file names LaTeX tries for an input: with ``.tex`` added first, then as written."""
    return [name] if name.endswith(".tex") else [name + ".tex", name]


def folder_lookup(folder: Path, read: list[str] | None = None) -> Lookup:
    """Inputs read from files inside ``folder`` (never outside it); ``read`` gets each file read."""
    root = folder.resolve()

    def lookup(name: str) -> tuple[str, bytes] | None:
        for candidate in candidate_names(name):
            path = Path(os.path.realpath(root / candidate))  # a symlink loop stays as it is
            if path.is_relative_to(root) and os.path.lexists(path):
                if path.is_dir():
                    continue  # \input{sections} of a folder ``sections``: LaTeX skips it too
                data = read_input_bytes(path, limit=MAX_PAPER_BYTES, what="TeX input")
                if read is not None:
                    read.append(str(path))
                return str(path.relative_to(root)), data
        return None

    return lookup


def has_main_marker(text: str) -> bool:
    r"""Whether a file (comments stripped) is a main file: ``\documentclass`` or a body."""
    stripped = strip_comments(text)
    return any(marker in stripped for marker in _MAIN_MARKERS)


def make_paper(
    paper_id: str, source: str, main: tuple[str, bytes], lookup: Lookup, raw: bytes
) -> TexPaper:
    """A paper from its main file's name (as ``lookup`` names it) and bytes: inputs inlined."""
    notes: list[str] = []
    inliner = _Inliner(lookup, notes, source, MAX_PAPER_BYTES - len(main[1]))
    text = inliner.inline(decode(main[1], source, notes), (main[0],))
    return TexPaper(
        paper_id, source, clean_tex(text), hashlib.sha256(raw).hexdigest(), tuple(notes)
    )


def read_tex_file(path: Path, raw: bytes | None = None) -> TexPaper:
    """One ``.tex`` file as a paper named after its stem; inputs read beside it.

    ``raw`` is its bytes when they were already read.
    """
    if raw is None:
        raw = read_input_bytes(path, limit=MAX_PAPER_BYTES, what="TeX file")
    read = [os.path.realpath(path)]
    lookup = folder_lookup(path.parent, read)
    paper = make_paper(path.stem, str(path), (path.name, raw), lookup, raw)
    return replace(paper, files=tuple(dict.fromkeys(read)))


def read_folder(folder: Path) -> list[TexPaper]:
    r"""Every ``.tex`` file in a folder with ``\documentclass`` or ``\begin{document}``."""
    papers = []
    for path in sorted(folder.glob("*.tex")):
        if not path.is_file():
            continue
        raw = read_input_bytes(path, limit=MAX_PAPER_BYTES, what="TeX file")
        if has_main_marker(raw.decode("utf-8", "replace")):
            papers.append(read_tex_file(path, raw))
    if not papers:
        raise InputError(
            "holds no .tex file with \\documentclass or \\begin{document}", source=str(folder)
        )
    return papers


def archive_id(path: Path) -> str:
    """An archive's paper id: its name without ``.tar.gz``, ``.tgz``, ``.tar`` or ``.gz``."""
    name = path.name
    for suffix in _ARCHIVE_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def safe_members(archive: tarfile.TarFile, source: str) -> dict[str, tarfile.TarInfo]:
    """The archive's regular files by normalised name; absolute or ``..`` names are refused."""
    members = {}
    for member in archive.getmembers():
        pure = PurePosixPath(member.name)
        if pure.is_absolute() or ".." in pure.parts:
            raise InputError(f"unsafe member name {member.name!r}", source=source)
        if member.isfile():
            members[str(pure)] = member
    return members


def read_tar(data: bytes, path: Path, raw: bytes) -> TexPaper:
    r"""A tarball's paper; main member: the one with ``\documentclass`` (ties: a body, size).

    Its ``.tex`` members are read only when their sizes (from the headers) sum to at most
    :data:`MAX_PAPER_BYTES`.
    """
    source = str(path)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        members = safe_members(archive, source)
        tex_names = [name for name in members if name.lower().endswith(".tex")]
        total = sum(members[name].size for name in tex_names)
        if total > MAX_PAPER_BYTES:
            raise InputError(
                f"its .tex files hold {total >> 20} MiB, more than {MAX_PAPER_BYTES >> 20} MiB "
                "for one paper; not read",
                source=source,
            )

        def read(name: str) -> bytes:
            handle = archive.extractfile(members[name])
            assert handle is not None  # regular files always have contents
            return handle.read()

        texts = {name: read(name).decode("utf-8", "replace") for name in tex_names}

        def rank(name: str) -> tuple[bool, bool, int, str]:
            stripped = strip_comments(texts[name])
            return (
                r"\documentclass" in stripped,
                _MAIN_MARKERS[1] in stripped,
                members[name].size,
                name,
            )

        mains = [name for name in texts if has_main_marker(texts[name])]
        if not mains:
            raise InputError(
                "holds no .tex file with \\documentclass or \\begin{document}", source=source
            )
        main = max(mains, key=rank)

        def lookup(name: str) -> tuple[str, bytes] | None:
            base = PurePosixPath(main).parent
            for candidate in candidate_names(name):
                key = str(base / PurePosixPath(candidate))
                if key in members:
                    return key, read(key)
            return None

        return make_paper(archive_id(path), f"{source}:{main}", (main, read(main)), lookup, raw)


def gunzip(data: bytes, limit: int, source: str) -> bytes:
    """A gzip file's contents (every member), refused as soon as they pass ``limit`` bytes."""
    out = bytearray()
    rest = data
    while rest[:2] == b"\x1f\x8b":
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out += inflater.decompress(rest, limit + 1 - len(out))
            while inflater.unconsumed_tail and len(out) <= limit:
                out += inflater.decompress(inflater.unconsumed_tail, limit + 1 - len(out))
        except zlib.error as error:
            raise InputError(f"unreadable gzip ({error})", source=source) from None
        if len(out) > limit:
            raise InputError(
                f"expands to more than {limit >> 20} MiB; not read (a gzip bomb?)", source=source
            )
        if not inflater.eof:
            raise InputError("unreadable gzip (cut off before its end)", source=source)
        rest = inflater.unused_data
    return bytes(out)


def read_archive(path: Path) -> TexPaper:
    """A tarball (plain or gzipped) or a gzip of a single ``.tex`` file, read in memory."""
    data = read_input_bytes(path, limit=MAX_ARCHIVE_BYTES, what="archive")
    content = gunzip(data, MAX_ARCHIVE_BYTES, str(path)) if data[:2] == b"\x1f\x8b" else data
    try:
        with tarfile.open(fileobj=io.BytesIO(content)):
            pass
        is_tar = True
    except tarfile.TarError:
        is_tar = False
    if not is_tar:
        if content is data:
            raise InputError(
                "neither a .tex file, a folder, a tar archive nor a gzip file", source=str(path)
            )
        if len(content) > MAX_PAPER_BYTES:
            raise InputError(
                f"expands to {len(content) >> 20} MiB, more than {MAX_PAPER_BYTES >> 20} MiB "
                "for one paper; not read",
                source=str(path),
            )
        return make_paper(archive_id(path), str(path), (path.name, content), lambda _: None, data)
    return read_tar(content, path, data)


def read_source(path: Path) -> list[TexPaper]:
    """The papers one source holds: a ``.tex`` file, a folder or an archive."""
    if not path.exists():
        raise InputError("no such file or folder", source=str(path))
    if path.is_dir():
        return read_folder(path)
    if path.suffix.lower() == ".tex":
        return [read_tex_file(path)]
    return [read_archive(path)]


def read_papers(sources: Sequence[Path], limit: int | None = None) -> list[TexPaper]:
    """Every paper of every source in order, or the first ``limit``; one id twice is an error.

    Sources after those that give the first ``limit`` papers are not read.
    """
    papers: dict[str, TexPaper] = {}
    files: dict[str, str] = {}  # each file read, resolved, by the source that gave it
    for path in sources:
        if limit is not None and len(papers) >= limit:
            break
        for paper in read_source(Path(path)):
            real = os.path.realpath(paper.source)
            if real in files:
                earlier = files[real]
                how = "given twice" if earlier == str(path) else f"read from {earlier} and {path}"
                raise InputError(f"{paper.source} is {how}; give it once", source=str(path))
            files[real] = str(path)
            if paper.id in papers:
                raise InputError(
                    f"paper id {paper.id!r} is read from both {papers[paper.id].source} "
                    f"and {paper.source}; rename one",
                    source=str(path),
                )
            papers[paper.id] = paper
    return list(papers.values())[:limit]
