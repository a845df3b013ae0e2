"""No module imports another package's private module.

A private module (``_name``) is private to its parent package: ``readout_audit.model._backend``
may be imported from inside ``readout_audit.model`` only, ``readout_audit._util._jsonl`` from
inside ``readout_audit._util``, and the root's ``readout_audit._exceptions`` from anywhere in
the package. Everything else goes through the owning package's public face, its ``__init__``.
``make lint`` checks this rule on the imports made at run time (import-linter's
``private_modules`` contract in pyproject.toml); this test also covers the imports only a type
checker sees (``if TYPE_CHECKING:``), which the contract's graph leaves out.
"""

from __future__ import annotations

import ast
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "readout_audit"


def private_to(module: str) -> str | None:
    """The package a module is private to: the parent of its innermost private part."""
    parts = module.split(".")
    for index in range(len(parts) - 1, 0, -1):
        if parts[index].startswith("_") and not parts[index].endswith("__"):
            return ".".join(parts[:index])
    return None


def module_name(path: Path, source: Path) -> str:
    parts = path.relative_to(source.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(node: ast.Import | ast.ImportFrom, base: str, modules: set[str]) -> list[str]:
    """The modules a statement imports: its module and any of its names that are modules."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        anchor = base.split(".")[: len(base.split(".")) - node.level + 1]
        module = ".".join([*anchor, node.module] if node.module else anchor)
    else:
        module = node.module or ""
    names = [f"{module}.{alias.name}" for alias in node.names]
    return [module, *(name for name in names if name in modules)]


def private_imports(source: Path = SOURCE) -> list[str]:
    """``importer -> imported (l.N)`` for each import of a module private to another package."""
    paths = sorted(source.rglob("*.py"))
    modules = {module_name(path, source) for path in paths}
    found = []
    for path in paths:
        importer = module_name(path, source)
        base = importer if path.name == "__init__.py" else importer.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for module in imported_modules(node, base, modules):
                owner = private_to(module)
                if owner and importer != owner and not importer.startswith(owner + "."):
                    found.append(f"{importer} -> {module} (l.{node.lineno})")
    return found


def test_no_module_imports_another_packages_private_module():
    assert private_imports() == []


def test_a_private_module_is_private_to_its_parent_package(tmp_path):
    root = tmp_path / "readout_audit"
    files = {
        "__init__.py": "",
        "_exceptions.py": "",
        "cli.py": "from readout_audit._cli import main\n",  # the root's own private package
        "_cli/__init__.py": "from readout_audit._cli._common import main\n",  # its own module
        "_cli/_common.py": "",
        "b/__init__.py": "from readout_audit.b._y import Y\n",  # its own module
        "b/_y.py": "",
        "c/__init__.py": "from readout_audit.c.d._e import E\n",  # a subpackage's: counted
        "c/d/__init__.py": "",
        "c/d/_e.py": "from ._f import F\n",  # relative, its own package's: not counted
        "c/d/_f.py": "from .._g import G\n",  # relative, into c from inside c: not counted
        "c/_g.py": "",
        "a/__init__.py": "",
        "a/_z.py": "",
        "a/x.py": (
            "from typing import TYPE_CHECKING\n"
            "from readout_audit.b._y import Y\n"  # another package's private module: counted
            "from readout_audit.a._z import Z\n"  # its own: not counted
            "from readout_audit.b import W\n"  # another package's public face: not counted
            "from readout_audit._exceptions import InputError\n"  # the root's: not counted
            "from readout_audit._cli._common import C\n"  # private to _cli: counted
            "from readout_audit.b import _y\n"  # a private module imported as a name: counted
            "import readout_audit.c.d._e\n"  # a plain import: counted
            "if TYPE_CHECKING:\n"
            "    from readout_audit.c._g import G\n"  # for annotations only: counted
            "def f():\n"
            "    from readout_audit.c.d import _e\n"  # inside a function: counted
        ),
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    assert sorted(private_imports(root)) == [
        "readout_audit.a.x -> readout_audit._cli._common (l.6)",
        "readout_audit.a.x -> readout_audit.b._y (l.2)",
        "readout_audit.a.x -> readout_audit.b._y (l.7)",
        "readout_audit.a.x -> readout_audit.c._g (l.10)",
        "readout_audit.a.x -> readout_audit.c.d._e (l.12)",
        "readout_audit.a.x -> readout_audit.c.d._e (l.8)",
        "readout_audit.c -> readout_audit.c.d._e (l.1)",
    ]
