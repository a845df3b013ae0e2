"""``readout --help`` lists the built-in commands without importing them; each loads when named."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys

import click
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit._cli._registry import LAZY


def test_each_built_in_commands_line_is_its_own_help():
    for name, (module, attribute, line) in LAZY.items():
        command = getattr(importlib.import_module(f"readout_audit._cli.{module}"), attribute)
        assert isinstance(command, click.Command) and command.name == name
        for limit in (30, 45, 80, 200):
            written = click.Command(name, help=line).get_short_help_str(limit)
            assert written == command.get_short_help_str(limit), name


def test_the_help_lists_every_command_as_the_commands_themselves_say():
    listed = CliRunner().invoke(main, ["--help"]).output.split("Commands:\n")[1].splitlines()
    context = click.Context(main)
    names = main.list_commands(context)
    assert [row.split()[0] for row in listed] == names and set(LAZY) <= set(names)
    width = max(map(len, names))
    for row, name in zip(listed, names, strict=True):
        command = main.get_command(context, name)
        assert command is not None
        assert row.strip() == f"{name.ljust(width)}  {command.get_short_help_str(80 - 6 - width)}"


def test_the_help_imports_no_kind_and_a_command_no_other_commands_module():
    code = (
        "import sys\n"
        "from readout_audit._cli import main\n"
        "try:\n    main(sys.argv[1:])\n"
        "except SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('readout_audit.')),"
        " file=sys.stderr)\n"
    )

    def loaded_commands(*args: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
        )
        return list(ast.literal_eval(done.stderr.strip().splitlines()[-1]))

    def loaded(*args: str) -> list[str]:
        return [m for m in loaded_commands(*args) if m.count(".") == 1]

    kinds = {"readout_audit.options", "readout_audit.judge", "readout_audit.lift"}
    assert not kinds & set(loaded("--help"))
    assert not {"readout_audit._cli._judge", "readout_audit._cli._lift"} & set(
        loaded_commands("score", "--help")
    )
