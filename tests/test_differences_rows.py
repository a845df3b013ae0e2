"""docs/differences.md names only commands and options that exist: a row about an option the
CLI lacks would tell a reader the project does what it does not."""

from __future__ import annotations

import re
from pathlib import Path

import click

from readout_audit._cli import main

DIFFERENCES = Path(__file__).resolve().parents[1] / "docs" / "differences.md"


def commands(group: click.Command, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], set[str]]:
    """Every command's path under ``readout`` and its option spellings."""
    found = {path: {o for p in group.params for o in (*p.opts, *p.secondary_opts)}}
    if isinstance(group, click.Group):
        context = click.Context(group)
        for name in group.list_commands(context):
            command = group.get_command(context, name)
            assert command is not None
            found |= commands(command, (*path, name))
    return found


def test_every_command_and_option_a_row_names_exists():
    every = commands(main)
    options = set().union(*every.values())
    spans = re.findall(r"`([^`]+)`", DIFFERENCES.read_text(encoding="utf-8"))
    named = {o for span in spans for o in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", span)}
    assert named, "the rows name options"
    assert sorted(named - options) == []
    for span in spans:
        words = span.removeprefix("readout ").split()
        if span.startswith("readout ") or (words and words[0] in {"lift", "judge", "audit"}):
            path = tuple(w for w in words if re.fullmatch(r"[a-z][a-z-]*", w))
            prefixes = [path[:n] for n in range(len(path), 0, -1)]
            command = next((p for p in prefixes if p in every), None)
            assert command is not None and len(command) >= min(2, len(path)), span
            flags = re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", span)
            assert set(flags) <= every[command], (span, sorted(set(flags) - every[command]))
