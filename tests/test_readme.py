"""Every ``readout`` command in the README runs as written (those that need no hub or GPU).

The commands run in this process on the session's model, at small sizes (:func:`small`), after
``make demo``'s command has run once as a real subprocess (its run is the README's
``runs/demo``): each command's own code path is what is checked here; the documented full-size
runs are in docs/ and benchmarks/.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit.log import read_run

pytestmark = pytest.mark.cost(80)

ROOT = Path(__file__).resolve().parents[1]
NEEDS_ELSEWHERE = ("--device cuda", "--device-map", "--allow-download")
"""Commands that need a GPU or the network: documented, not runnable on a CI machine."""


SERVED = "openai:"
"""Blocks naming a served model need a server: tests/served runs them against a real one."""

ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)=(\S.*)$")
"""A shell variable set in a block (``REV=main  # comment``), used by the commands after it."""

LIMIT = "1"
"""Items per command here: every command that takes ``--limit`` gets (or keeps at most) this."""
LIMITS = {("audit", "recover"): "8", ("judge", "build"): "4"}
"""Commands whose ``--limit`` must keep more: recover's probes need every label of the cut
examples (at most 8 per split here), judge build rows for one preflight and one confirmation
source of each dataset once DROP's unusable rows are left out."""
SIZES = {"--n": "4", "--train-n": "8", "--n-perm": "100", "--n-boot": "100"}
SIZES |= {"--max-new-tokens": "4", "--per-paper": "1", "--min-context": "1000", "--min-cuts": "1"}
"""Size options the README sets or the commands default to, at their small values here."""
DEFAULTED = {("audit", "recover"): ("--n-perm", "--n-boot"), ("lift", "cut"): ("--min-context",)}
"""Commands whose size options default to full size when the README leaves them out."""
PER_SPLIT = 2
"""Examples of each split and label kept from ``examples/logic.jsonl``."""
MAKE_DEMO = "readout demo --out runs/demo"
"""What ``make demo`` runs: once, as a subprocess, before the README's commands."""
SMALL_TEX = "aipsamp.tex"
"""The one TeX source kept in ``examples/tex`` (the smaller of the two)."""


LM_EVAL_LOGGED = "examples/lm-eval/logged"
LM_EVAL_RESULTS = "runs/lm-eval-results"
"""The README's ``lm_eval --log_samples --output_path``, whose samples its audit reads."""


def test_the_readme_runs_lm_eval_first_then_audits_its_samples():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert text.index("## Auditing your lm-evaluation-harness run") < text.index(
        "## Scoring your own items"
    )
    (block,) = [b for b in bash_blocks() if ".venv/bin/lm_eval " in b]
    assert f"--output_path {LM_EVAL_RESULTS}" in block and "--log_samples" in block
    assert "--num_fewshot 5" in block.split(".venv/bin/readout")[0]  # as the kept samples
    assert f"--samples {LM_EVAL_RESULTS} " in block


def bash_blocks() -> list[str]:
    """The README's ``bash`` code blocks."""
    return re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)


def readme_commands(served: bool = False, env: dict[str, str] | None = None) -> list[str]:
    """The README's shell commands that call ``readout`` (continuation lines joined, the
    block's variables expanded, ``env`` overriding them), from the blocks without a served
    model, or with ``served`` from those with one."""
    commands = []
    for block in bash_blocks():
        if (SERVED in block) != served:
            continue
        variables: dict[str, str] = {}
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if match := ASSIGNMENT.match(line):
                (value,) = shlex.split(match.group(2), comments=True)
                variables[match.group(1)] = (env or {}).get(match.group(1), value)
            elif line.startswith(".venv/bin/readout"):
                commands.append(expand(line, variables))
    return commands


def expand(line: str, variables: dict[str, str]) -> str:
    """``line`` with each ``$NAME`` set in ``variables`` replaced by its value."""
    return re.sub(r"\$(\w+)", lambda m: variables.get(m.group(1), m.group(0)), line)


def runnable(command: str) -> bool:
    """Nothing that needs a hub model or data set, a GPU or a download."""
    needs = (*NEEDS_ELSEWHERE, "hf:", "race:")
    return "$" not in command and not any(flag in command for flag in needs)


def test_every_block_pastes_into_a_shell():
    """No ``<placeholder>`` (a redirection once pasted), and bash parses every block."""
    for block in bash_blocks():
        assert not re.search(r"<[a-z][a-z-]*>", block), block
        checked = subprocess.run(["bash", "-n"], input=block, capture_output=True, text=True)
        assert checked.returncode == 0, f"{block}\n{checked.stderr}"


def _command(argv: list[str]) -> click.Command:
    """The click command ``argv`` (without the program) names."""
    command: click.Command = main
    with click.Context(main) as context:
        for word in argv:
            if not isinstance(command, click.Group):
                break
            found = command.get_command(context, word)
            if found is None:
                break
            command = found
    return command


def small(argv: list[str]) -> list[str]:
    """``argv`` at the small sizes of this test: ``--limit`` and the size options set low."""
    names = {p for o in _command(argv).params for p in getattr(o, "opts", ())}
    argv = list(argv)
    limit = LIMITS.get(tuple(argv[:2]), LIMIT)
    for option, value in [("--limit", limit), *SIZES.items()]:
        if option in argv:
            argv[argv.index(option) + 1] = value
        elif option in names and (
            option == "--limit" or option in DEFAULTED.get(tuple(argv[:2]), ())
        ):
            argv += [option, value]
    return argv


def small_examples(examples: Path) -> None:
    """The examples folder cut to a few items where a command has no ``--limit``."""
    logic = examples / "logic.jsonl"
    kept, seen = [], {}
    for line in logic.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        key = (row["metadata"]["split"], row["label"])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= PER_SPLIT:
            kept.append(line + "\n")
    logic.write_text("".join(kept), encoding="utf-8")
    for tex in (examples / "tex").iterdir():
        if tex.name != SMALL_TEX:
            tex.unlink()


def test_the_readme_documents_commands_that_can_run_here():
    commands = readme_commands()
    assert len(commands) >= 12
    assert sum(runnable(c) for c in commands) >= 10
    for command in commands:  # every skipped command names a hub model or data set, or a GPU
        assert runnable(command) or any(s in command for s in ("hf:", "race:", "--device"))
        assert "$" not in command  # every variable is set in its block
    assert len(readme_commands(served=True)) >= 2


def test_small_sizes_reach_every_command_that_has_them():
    argv = shlex.split("readout audit options --items x --limit 64 --out y")[1:]
    assert small(argv) == ["audit", "options", "--items", "x", "--limit", "1", "--out", "y"]
    argv = ["audit", "recover", "--generate", "controlled-logic", "--n", "30", "--out", "y"]
    limited = ["--limit", "8", "--n-perm", "100", "--n-boot", "100"]
    assert small(argv) == [*argv[:5], "4", "--out", "y", *limited]
    assert small(["report", "runs/x"]) == ["report", "runs/x"]
    argv = ["lift", "cut", "examples/tex", "--per-paper", "3", "--out", "c.jsonl"]
    assert small(argv) == [*argv[:4], "1", *argv[5:], "--limit", "1", "--min-context", "1000"]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make demo``'s command run as a real subprocess: the folder holding its ``runs/demo``."""
    folder = tmp_path_factory.mktemp("make-demo")
    readout = Path(sys.executable).parent / "readout"
    prefix = [str(readout)] if readout.exists() else [sys.executable, "-m", "readout_audit"]
    done = subprocess.run(
        prefix + MAKE_DEMO.split()[1:], cwd=folder, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return folder


@pytest.mark.model
def test_make_demo_runs_as_a_real_command(demo_run):
    assert MAKE_DEMO in (ROOT / "Makefile").read_text()
    assert (demo_run / "runs" / "demo" / "summary.json").is_file()


@pytest.mark.model
def test_every_runnable_readme_command_runs_as_written(demo_run, tmp_path, monkeypatch):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    small_examples(tmp_path / "examples")
    shutil.copytree(demo_run / "runs", tmp_path / "runs")
    # what the README's lm_eval command writes: lm-eval's own samples of that command, kept in
    # examples/lm-eval/logged (tests/lmeval loads its --model_args in lm-eval's HFLM)
    shutil.copytree(ROOT / LM_EVAL_LOGGED, tmp_path / LM_EVAL_RESULTS / "smollm2")
    monkeypatch.chdir(tmp_path)
    failures = []
    for command in filter(runnable, readme_commands()):
        argv = shlex.split(command, comments=True)
        assert argv[0] == ".venv/bin/readout"
        result = CliRunner().invoke(main, small(argv[1:]))
        if result.exit_code != 0:
            failures.append(f"{command}\n{result.output[-2000:]}{result.exception!r}")
    assert not failures, "\n\n".join(failures)
    assert (tmp_path / "runs" / "yesno.html").is_file()
    judged = read_run(tmp_path / "runs" / "judge" / "local")  # preflight, then confirmation
    assert {r.phase for r in judged.records} == {"preflight", "confirmation"}
    assert judged.state == "finished" and judged.planned == len(judged.records)
    shown = CliRunner().invoke(main, ["report", "runs/judge/local"]).output
    assert "unfinished" not in shown and "planned records" not in shown
