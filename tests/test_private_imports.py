"""A ratchet on imports into another package's private modules: the count may only fall.

``from readout_audit.model._backend import X`` in ``options`` reaches past ``model``'s public
face; each such import is a name the owner cannot move without breaking another package. The
root's own private modules (``_exceptions``, ``_util``, ``_version``) serve every package and
do not count. Lower :data:`MOST` when the count falls; never raise it.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "readout_audit"
SHARED = {"_exceptions", "_util", "_version"}
MOST = 394
"""The count when the ratchet was set."""


def private_imports(source: Path = SOURCE) -> Counter[str]:
    """Per importing package: imports of a private module of another package."""
    found: Counter[str] = Counter()
    for path in source.rglob("*.py"):
        parts = path.relative_to(source).parts
        own = parts[0] if len(parts) > 1 else ""
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not node.module:
                continue
            names = node.module.split(".")
            if names[0] != "readout_audit" or len(names) < 2:
                continue
            target = names[1]
            if target == own or target in SHARED:
                continue
            if target.startswith("_") or any(n.startswith("_") for n in names[2:]):
                found[own or "(root)"] += 1
    return found


def test_imports_into_other_packages_private_modules_never_grow():
    found = private_imports()
    assert sum(found.values()) <= MOST, found.most_common()


def test_the_count_is_of_other_packages_private_modules_only(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.py").write_text(
        "from readout_audit.b._y import Y\n"  # another package's private module: counted
        "from readout_audit.a._z import Z\n"  # its own: not counted
        "from readout_audit.b import W\n"  # another package's public face: not counted
        "from readout_audit._exceptions import InputError\n"  # the root's shared module
        "from readout_audit._cli._common import C\n",  # a private package: counted
        encoding="utf-8",
    )
    assert private_imports(tmp_path) == Counter({"a": 2})
