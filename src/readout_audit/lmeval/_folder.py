"""A folder of task YAMLs (``--include-path``), gated before lm-eval walks and reads it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from readout_audit._exceptions import InputError
from readout_audit._util import (
    MAX_NODES,
    BoundsError,
    check_regular,
    parse_bounded,
    read_input_text,
)


class _TaskLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type hints
    """lm-eval's YAML: the safe loader and its ``!function`` tag, kept as text (never imported)."""


_TaskLoader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def read_task_yaml(path: Path) -> Any:
    """A task YAML's document, or an ``InputError`` naming the file and what is wrong in it."""
    text = read_input_text(path, what="task YAML")
    try:
        return parse_bounded(lambda: yaml.load(text, Loader=_TaskLoader), max_nodes=MAX_NODES)
    except BoundsError as error:
        raise InputError(str(error), source=str(path)) from None
    except yaml.MarkedYAMLError as error:
        line = None if error.problem_mark is None else error.problem_mark.line + 1
        message = f"malformed YAML ({error.problem or error.context})"
        raise InputError(message, source=str(path), line=line) from None
    except (yaml.YAMLError, ValueError) as error:  # a value YAML cannot build: a 30th of February
        raise InputError(f"malformed YAML ({error})", source=str(path)) from None


def _includes(path: Path, document: Any) -> list[Path]:
    """The files a task YAML's ``include`` names, resolved as lm-eval resolves them."""
    if not isinstance(document, dict) or "include" not in document:
        return []
    named = document["include"]
    names = named if isinstance(named, list) else [named]
    if not all(isinstance(name, str) and name for name in names):
        raise InputError("not a file name or a list of them", source=str(path), field="include")
    base = Path(os.path.realpath(path)).parent
    return [base / name for name in names]


def task_folder_files(folder: Path) -> list[Path]:
    """Every file under ``folder`` and every file its YAMLs include, each a regular file.

    lm-eval opens every ``*.yaml`` it finds (a FIFO would block it) and skips one it cannot
    parse; here each is parsed first, so a broken one is named instead of its task missing.
    """
    files = [path for path in sorted(folder.rglob("*")) if not path.is_dir()]
    for path in files:
        check_regular(path, limit=None)
    seen = {os.path.realpath(path) for path in files}
    pending = [(path, read_task_yaml(path)) for path in files if path.suffix == ".yaml"]
    for path, document in pending:  # grows with the included files not seen yet
        for included in _includes(path, document):
            task = _included_task(path, included)
            if os.path.realpath(included) not in seen:
                seen.add(os.path.realpath(included))
                files.append(included)
                pending.append((included, task))
    return files


def _included_task(path: Path, included: Path) -> Any:
    """The task YAML ``path`` includes, refused naming both files unless it is a mapping.

    lm-eval would drop the task, and say only that it knows no task of that name.
    """
    document = read_task_yaml(included)
    if not isinstance(document, dict):
        raise InputError(
            f"includes {included}, which is no task YAML (a mapping of lm-eval's task settings)",
            source=str(path),
            field="include",
        )
    return document
