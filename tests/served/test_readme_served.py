"""The README's served-model commands run as written against a real llama.cpp server.

They run in this process at the small sizes of tests/test_readme.py; the conformance command is
the session's ``conformance`` fixture (the same command with ``--plain``), whose file the later
commands read as the README's.
"""

from __future__ import annotations

import shlex
import shutil

import pytest
from click.testing import CliRunner
from test_readme import readme_commands, small

from readout_audit._cli import main

pytestmark = pytest.mark.cost(15)


def test_readme_served_commands_run_as_written(served_spec, conformance, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    commands = readme_commands(served=True, env={"SERVED": served_spec})
    assert commands and all(c.startswith(".venv/bin/readout") for c in commands)
    first = shlex.split(commands[0])
    assert first[1:] == ["conformance", "--model", served_spec, "--reference", "smollm2-135m",
                         "--out", "runs/conf"]  # fmt: skip
    shutil.copytree(conformance.parent, tmp_path / "runs" / "conf")
    for command in commands[1:]:
        argv = shlex.split(command)
        result = CliRunner().invoke(main, small(argv[1:]))
        assert result.exit_code == 0, f"{command}\n{result.output[-3000:]}{result.exception!r}"
    assert (tmp_path / "runs" / "yesno-served" / "summary.json").is_file()
