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


ROOT = DIFFERENCES.parents[1]


def rows() -> list[list[str]]:
    """The table's rows as cells (paper, step, the paper, this project, why)."""
    lines = DIFFERENCES.read_text(encoding="utf-8").splitlines()
    table = [line for line in lines if re.match(r"\| \d{3} \|", line)]
    found = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in table]
    assert found and all(len(r) == 5 for r in found), [r for r in found if len(r) != 5][:1]
    return found


def test_each_step_has_one_row_and_a_cited_row_exists():
    keys = [(paper, step) for paper, step, *_ in rows()]
    assert sorted(k for k in set(keys) if keys.count(k) > 1) == []
    for paper, step, *cells in rows():
        for cited in re.findall(r'row "([^"]+)"', " ".join(cells)):
            assert (paper, cited) in keys, (paper, step, cited)


UNNAMED = {"the", "a", "this", "that", "its", "one", "selection"}
"""Words before "rule" that leave it unnamed: beside a named rule's subject, they mean it."""


def test_a_named_rule_is_stated_once_and_cited_elsewhere():
    # a row restating another row's rule is how two rows came to contradict each other: the
    # decomposition figures' row called the witness rule the paper's, the witness rule's own
    # row said it is not; a row touching a rule cites the rule's row instead
    every = rows()
    rules = [(paper, step) for paper, step, *_ in every if step.endswith(" rule")]
    assert rules, "the table has named rules"
    for paper, rule in rules:
        subject = rule.removesuffix(" rule")
        for other, step, *cells in every:
            text = " ".join(cells)
            if other != paper or step == rule:
                continue
            about = re.search(rf"\b{re.escape(subject)}", text)
            named = {m.lower() for m in re.findall(r"\b(\w+) rule\b", text)}
            if subject in named or (about and named & UNNAMED):
                assert f'row "{rule}"' in text, (paper, step, rule)
                assert not re.search(r"rule is the paper", text), (paper, step, rule)


def test_every_file_a_row_names_exists():
    text = DIFFERENCES.read_text(encoding="utf-8")
    named = set(re.findall(r"\b(?:docs|tests|benchmarks|src|examples)/[\w./-]*\w", text))
    assert "docs/lift.md" in named
    assert sorted(p for p in named if not (ROOT / p).exists()) == []
