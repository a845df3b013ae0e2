"""Every ``readout`` command in the README runs as written (those that need no hub or GPU)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NEEDS_ELSEWHERE = ("--device cuda", "--device-map", "--allow-download")
"""Commands that need a GPU or the network: documented, not runnable on a CI machine."""


SERVED = "openai:<base-url>"
"""Blocks naming a served model need a server: tests/served runs them against a real one."""


def readme_commands(served: bool = False) -> list[str]:
    """The README's shell commands that call ``readout`` (continuation lines joined), from the
    blocks without a served model, or with ``served`` from those with one."""
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    commands = []
    for block in blocks:
        if (SERVED in block) != served:
            continue
        for command in block.replace("\\\n", " ").splitlines():
            if command.strip().startswith(".venv/bin/readout"):
                commands.append(command.strip())
    return commands


def runnable(command: str) -> bool:
    """No placeholder (``<revision>``) and nothing that needs a GPU or a download."""
    return "<" not in command and not any(flag in command for flag in NEEDS_ELSEWHERE)


def test_the_readme_documents_commands_that_can_run_here():
    commands = readme_commands()
    assert len(commands) >= 12
    assert sum(runnable(c) for c in commands) >= 10
    for command in commands:  # every skipped command names a hub model or data set, or a GPU
        assert runnable(command) or any(s in command for s in ("hf:", "race:", "--device"))
    assert len(readme_commands(served=True)) >= 2


@pytest.mark.model
def test_every_runnable_readme_command_runs_as_written(tmp_path):
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    readout = Path(sys.executable).parent / "readout"
    prefix = [str(readout)] if readout.exists() else [sys.executable, "-m", "readout_audit"]
    demo = ".venv/bin/readout demo --out runs/demo"  # what `make demo` runs
    failures = []
    for command in [demo, *filter(runnable, readme_commands())]:
        argv = shlex.split(command, comments=True)
        assert argv[0] == ".venv/bin/readout"
        done = subprocess.run(
            prefix + argv[1:], cwd=tmp_path, capture_output=True, text=True, timeout=600
        )
        if done.returncode != 0:
            failures.append(f"{command}\n{done.stderr[-2000:]}")
    assert not failures, "\n\n".join(failures)
    assert (tmp_path / "runs" / "yesno.html").is_file()
