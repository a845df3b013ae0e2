"""The built-in kinds are found as a plug-in is: through the ``readout_audit.kinds`` entry points.

Each check runs in a fresh interpreter, so that no kind a test module registered (the toy
plug-in) and no entry point loaded earlier stands in for the one under test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BUILT_IN = {"judge", "lift", "lm-eval", "options", "ptrue", "recover", "score", "yesno"}
"""The kinds this package ships (docs/architecture.md), written out here independently."""

AUDIT_COMMANDS = {"lm-eval", "options", "ptrue", "recover", "yesno"}
TOP_COMMANDS = {"judge", "lift", "score"}
"""The built-in kinds whose commands are ``readout audit NAME`` and those with their own group."""

LISTING = """
import json
from importlib.metadata import entry_points
from click.testing import CliRunner
from readout_audit.kind import audit_kinds, get_kind
from readout_audit._cli import main

points = entry_points(group="readout_audit.kinds")
for point in points:
    point.load()
names = {e.name: e.dist.name for e in points}
top = CliRunner().invoke(main, ["--help"])
audit = CliRunner().invoke(main, ["audit", "--help"])
print(json.dumps({
    "points": names,
    "kinds": [k.name for k in audit_kinds()],
    "found": {n: get_kind(n).name for n in names},
    "top": top.output,
    "audit": audit.output,
}))
"""


def python(*args: str, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with no plug-in but those installed, and ``path`` on PYTHONPATH if given."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "READOUT_AUDIT_PLUGINS")}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, env=env
    )


def commands(help_text: str) -> set[str]:
    """The command names a click ``--help`` lists."""
    listed = help_text.split("Commands:\n", 1)[1]
    return {line.split()[0] for line in listed.splitlines() if line.startswith("  ")}


def test_every_built_in_kind_is_an_entry_point_naming_its_package_and_has_its_commands():
    result = python("-c", LISTING)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert seen["points"] == {name: "readout-audit" for name in BUILT_IN}
    # every kind registered is declared, and each entry point's module loads and registers it
    assert set(seen["kinds"]) == BUILT_IN
    assert seen["found"] == {name: name for name in BUILT_IN}
    assert commands(seen["audit"]) == AUDIT_COMMANDS
    assert commands(seen["top"]) >= TOP_COMMANDS


def broken_plugin(root: Path) -> Path:
    """An installed distribution whose only entry point names a module that does not exist."""
    info = root / "broken_kind-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-kind\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[readout_audit.kinds]\nbroken = no_such_kind_module\n")
    return root


REASON = (
    "plug-in entry point 'broken' (no_such_kind_module) cannot be loaded: "
    "ModuleNotFoundError: No module named 'no_such_kind_module'"
)

LOOKUP = """
from readout_audit.kind import UnknownKindError, get_kind
print(sorted(get_kind(n).name for n in ("options", "lm-eval", "lift")))
try:
    get_kind("broken")
except UnknownKindError as error:
    print(error)
"""


def test_a_broken_entry_point_is_named_and_the_built_in_kinds_still_load(tmp_path):
    root = broken_plugin(tmp_path)

    listed = python("-m", "readout_audit", "--help", path=root)
    assert listed.returncode == 0, listed.stderr
    assert listed.stderr == ""  # the command list loads no kind
    assert {"audit", "judge", "lift", "report", "table"} <= commands(listed.stdout)
    audits = python("-m", "readout_audit", "audit", "--help", path=root)
    assert audits.returncode == 0, audits.stderr
    assert audits.stderr == f"warning: {REASON}\n"  # a command loads the kinds: one line
    assert {"options", "ptrue", "yesno", "recover", "lm-eval"} <= commands(audits.stdout)

    looked_up = python("-c", LOOKUP, path=root)
    assert looked_up.returncode == 0, looked_up.stderr
    found, unknown = looked_up.stdout.splitlines()
    assert found == "['lift', 'lm-eval', 'options']"
    assert unknown.startswith("unknown audit kind 'broken'") and unknown.endswith(REASON)


READ_ONLY = """
import sys
from readout_audit.log import get_run_kind
print(get_run_kind("options").name, "click" in sys.modules, "readout_audit._cli" in sys.modules)
"""


def test_reading_a_runs_kind_imports_no_command_line():
    looked_up = python("-c", READ_ONLY)
    assert looked_up.returncode == 0, looked_up.stderr
    assert looked_up.stdout.split() == ["options", "False", "False"]


NO_METADATA = """
from importlib import metadata
real = metadata.entry_points
def installed(**selection):  # a source checkout: no entry points of this package's groups
    return [] if selection.get("group", "").startswith("readout_audit") else real(**selection)
metadata.entry_points = installed
from readout_audit._cli import main
main(["audit", "--help"])
"""


def test_without_installed_metadata_the_built_in_commands_load_with_one_warning_line():
    listed = python("-c", NO_METADATA)
    assert listed.returncode == 0, listed.stderr
    assert commands(listed.stdout) == AUDIT_COMMANDS
    warning = listed.stderr.splitlines()
    assert len(warning) == 1 and warning[0].startswith(
        "warning: no 'readout_audit.kinds' entry points are installed"
    )
