"""A finished lm-eval run's logged samples (``--log_samples``): what it scored and what it got."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from readout_audit._exceptions import InputError
from readout_audit._util import BoundsError, decode_json, loads_line
from readout_audit.data import read_lines
from readout_audit.lmeval._doc import LMEvalDoc, Logged, choices_problem
from readout_audit.model import FLOAT32_BUDGET

SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[0-9.\-]+)\.jsonl$")
"""lm-eval's file name: ``samples_<task>_<date>.jsonl`` (``EvaluationTracker``)."""
DECIMAL = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?")
"""A number as Python writes a float: the only text a logged log-likelihood may be (ASCII
digits only: ``float`` would read ``'-١.٥'`` as -1.5)."""


def samples_files(source: str | Path) -> list[tuple[str, Path]]:
    """(task, file) of a samples file, or of every samples file under a folder.

    Refuses a folder holding two runs of one task: which one to audit is the user's choice.
    """
    path = Path(source)
    if not path.exists():
        raise InputError("no such samples file or folder", source=str(path))
    files = sorted(path.rglob("samples_*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise InputError(
            "no lm-eval samples files (samples_<task>_<date>.jsonl) here", source=str(path)
        )
    found: dict[str, Path] = {}
    for file in files:
        match = SAMPLES_NAME.match(file.name)
        if match is None:
            raise InputError(
                "not an lm-eval samples file name (samples_<task>_<date>.jsonl)", source=str(file)
            )
        task = match["task"]
        if task in found:
            raise InputError(
                f"two logged runs of task {task!r} ({found[task].name} and {file.name}); "
                "give one file",
                source=str(path),
            )
        found[task] = file
    return sorted(found.items())


def read_samples(
    source: str | Path, *, tasks: Sequence[str] | None = None, limit: int | None = None
) -> list[LMEvalDoc]:
    """Every logged document of the samples files, with its logged log-likelihoods and metrics.

    ``tasks``: the tasks the files must hold, each of them and no other; ``limit``: the first
    documents of each task.
    """
    files = samples_files(source)
    if tasks is not None:
        for task, file in files:
            if task not in tasks:
                raise InputError(
                    f"a logged run of task {task!r}, not of {', '.join(tasks)}", source=str(file)
                )
        missing = sorted(set(tasks) - {task for task, _ in files})
        if missing:
            raise InputError(f"no logged run of {', '.join(missing)}", source=str(source))
    docs: list[LMEvalDoc] = []
    for task, file in files:
        lines = read_lines(file)
        seen: set[int] = set()
        for number, text in enumerate(lines, 1):
            if not text.strip():
                continue
            raw = loads_line(text, source=str(file), line=number)
            doc = _sample(task, raw, str(file), number)
            if doc.doc_id in seen:
                raise InputError(
                    f"doc_id {doc.doc_id} appears twice",
                    source=str(file),
                    line=number,
                    field="doc_id",
                )
            seen.add(doc.doc_id)
            if limit is None or len(seen) <= limit:
                docs.append(doc)
        if not seen:
            raise InputError("the samples file holds no documents", source=str(file))
    return docs


def _numbered(values: dict[str, Any], prefix: str, fail: Any) -> list[Any]:
    """The values of ``{prefix}0``, ``{prefix}1``, ... in order: every index once, no other key."""
    names = [f"{prefix}{i}" for i in range(len(values))]
    missing = next((name for name in names if name not in values), None)
    if missing is not None:
        raise fail(f"no {missing}: lm-eval numbers them {prefix}0, {prefix}1, ...", "arguments")
    return [values[name] for name in names]


def _pairs(raw: dict[str, Any], fail: Any) -> list[tuple[str, str]]:
    """lm-eval's request arguments: ``{"gen_args_0": {"arg_0": ..., "arg_1": ...}}`` or lists."""
    arguments = raw.get("arguments")
    if isinstance(arguments, dict):
        args = _numbered(arguments, "gen_args_", fail)
        args = [_numbered(a, "arg_", fail) if isinstance(a, dict) else a for a in args]
    elif isinstance(arguments, list):
        args = arguments
    else:
        raise fail("missing, or not lm-eval's request arguments", "arguments")
    pairs = []
    for arg in args:
        if not isinstance(arg, list) or len(arg) < 2 or not isinstance(arg[0], str):
            raise fail(
                "not a (context, continuation) request of a log-likelihood task", "arguments"
            )
        if not isinstance(arg[1], str):
            raise fail(
                "a generate_until request: only multiple_choice and loglikelihood tasks read a "
                "score at a position",
                "arguments",
            )
        pairs.append((arg[0], arg[1]))
    if not pairs:
        raise fail("no requests", "arguments")
    return pairs


def _logliks(raw: dict[str, Any], n: int, fail: Any) -> tuple[float, ...]:
    """The logged log-likelihood of each request (``filtered_resps``: ``[loglik, is_greedy]``)."""
    responses = raw.get("filtered_resps")
    if not isinstance(responses, list) or len(responses) < n:
        raise fail(f"expected {n} logged responses", "filtered_resps")
    values = []
    for response in responses[:n]:
        first = response[0] if isinstance(response, list) and response else response
        value = _number(first)
        if value is None:
            raise fail(f"not a finite log-likelihood: {str(first)[:40]!r}", "filtered_resps")
        if value > FLOAT32_BUDGET:
            raise fail(
                f"a log-likelihood above 0 (a probability above 1): {value:g}", "filtered_resps"
            )
        values.append(value)
    return tuple(values)


def _number(value: Any) -> float | None:
    """A logged number (lm-eval writes ``str(float)``) as a finite float, else None.

    None for a bool, ``inf``, ``nan``, ``1_0`` or padded text.
    """
    if isinstance(value, str) and DECIMAL.fullmatch(value):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _gold(target: Any, choices: Sequence[str], fail: Any) -> tuple[int, ...]:
    """The logged ``target`` (lm-eval writes ``str(target)``) as gold indices."""
    text = str(target).strip()
    try:
        value = decode_json(text)
    except BoundsError as error:
        raise fail(str(error), "target") from None
    except ValueError:  # a choice's text, not JSON
        value = text
    values = value if isinstance(value, list) else [value]
    found = []
    for v in values:
        if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(choices):
            found.append(v)
        elif isinstance(v, str) and v in choices:
            found.append(choices.index(v))
    return tuple(found)


def _metric_names(raw: dict[str, Any], fail: Any) -> list[str]:
    """The names of the metrics the line logs (``metrics``: a list of names)."""
    names = raw.get("metrics", [])
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise fail("not a list of metric names", "metrics")
    return names


def _sample(task: str, raw: Any, source: str, line: int) -> LMEvalDoc:
    def fail(message: str, field: str) -> InputError:
        return InputError(message, source=source, line=line, field=field)

    if not isinstance(raw, dict):
        raise fail("a samples line is a JSON object", "doc_id")
    doc_id = raw.get("doc_id")
    if not isinstance(doc_id, int) or isinstance(doc_id, bool):
        raise fail("missing or not an integer", "doc_id")
    pairs = _pairs(raw, fail)
    contexts = [c for c, _ in pairs if c]
    if len(set(contexts)) != 1:
        raise fail("the requests do not share one context (a multiple-input task?)", "arguments")
    kept = [(c, cont) for c, cont in pairs if c]  # acc_mutual_info's unconditional requests
    continuations = tuple(cont for _, cont in kept)
    delimiter = " " if all(c.startswith(" ") for c in continuations) else ""
    choices = tuple(c[len(delimiter) :] for c in continuations)
    names = _metric_names(raw, fail)
    metrics = {
        name: float(raw[name])
        for name in names
        if isinstance(raw.get(name), int | float) and not isinstance(raw.get(name), bool)
    }
    # a loglikelihood task logs perplexity; a multiple-choice one does not
    scored: Literal["multiple_choice", "loglikelihood"] = (
        "loglikelihood" if "perplexity" in names else "multiple_choice"
    )
    problem = choices_problem(choices if scored == "multiple_choice" else continuations)
    if problem is not None:
        raise fail(problem, "arguments")
    return LMEvalDoc(
        task=task,
        doc_id=doc_id,
        output_type=scored,
        context=kept[0][0],
        continuations=continuations,
        choices=choices,
        gold=_gold(raw.get("target"), choices, fail),
        logged=Logged(logliks=_logliks(raw, len(kept), fail), metrics=metrics),
    )
