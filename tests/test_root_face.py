"""The package root is a small face, each name imported from its package when first used."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import readout_audit

ROOT_INIT = Path(readout_audit.__file__)


def _type_checking_imports() -> dict[str, tuple[str, ...]]:
    """The names the root imports under ``TYPE_CHECKING``, by module."""
    tree = ast.parse(ROOT_INIT.read_text(encoding="utf-8"))
    block = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
    )
    return {
        node.module: tuple(alias.name for alias in node.names)
        for node in block.body
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }


def test_the_lazy_table_and_the_type_checkers_imports_say_the_same():
    assert _type_checking_imports() == readout_audit.LAZY


def test_every_name_of_the_face_is_its_packages_own():
    for module, names in readout_audit.LAZY.items():
        package = sys.modules.get(module) or __import__(module, fromlist=["_"])
        for name in names:
            assert getattr(readout_audit, name) is getattr(package, name), name
    assert set(readout_audit.__all__) == {
        *(name for names in readout_audit.LAZY.values() for name in names),
        "CapabilityError",
        "InputError",
        "ModelNotAvailableError",
        "ReadoutError",
        "RunDirectoryError",
        "__version__",
    }
    assert sorted(dir(readout_audit)) == sorted(readout_audit.__all__)


def test_an_unknown_name_is_an_attribute_error_naming_it():
    try:
        readout_audit.run_search  # noqa: B018  (test-only names left the face)
    except AttributeError as error:
        assert "run_search" in str(error)
    else:
        raise AssertionError("run_search is still on the face")


def test_importing_the_root_loads_no_kind_and_no_click():
    code = (
        "import sys, readout_audit\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('readout_audit'))\n"
        "print(loaded, 'click' in sys.modules, 'pydantic' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == (
        "['readout_audit', 'readout_audit._exceptions', 'readout_audit._version'] False False"
    )
