"""Which loader reads a dataset: a file in its layout, or else a hub dataset id or local copy."""

from __future__ import annotations

import os
from pathlib import Path

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory._datasets import (
    load_drop_hf,
    load_drop_json,
    load_gsm8k_hf,
    load_gsm8k_jsonl,
)
from readout_audit.judge.inventory._halueval import load_halueval_hf, load_halueval_json
from readout_audit.judge.inventory._sources import SourceBank

DATASETS = ("gsm8k", "drop", "halueval")
DEFAULT_SPLITS = {"gsm8k": "test", "drop": "train", "halueval": "data"}


def is_file_source(where: str | Path) -> bool:
    """Whether ``where`` is read as a file (any path but a folder), not as a hub dataset."""
    return os.path.lexists(where) and not Path(where).is_dir()


def split_problem(where: str | Path, dataset: str, split: str | None) -> str | None:
    """Why ``split`` is not read from ``where``, or None: a file has no splits, it is read whole."""
    if split is None or not is_file_source(where):
        return None
    return (
        f"--{dataset}-split is not read: --{dataset} {where} is a file, read whole (a split is "
        "read only from a hub dataset id or a local copy of one)"
    )


def load_bank(
    where: str | Path,
    dataset: str,
    *,
    split: str | None = None,
    allow_download: bool = False,
    dates: bool = False,
    limit: int | None = None,
) -> SourceBank:
    """``gsm8k``, ``drop`` or ``halueval`` sources from a file, or a hub dataset id or copy.

    A file is JSON lines (DROP and HaluEval: or one JSON array); any path but a folder is read
    as one (a FIFO or a link loop is refused as such, not taken for a hub id); ``split`` is the
    dataset's default when None, and refused with a file. ``limit`` reads only the first
    ``limit`` rows (the bank's ``rows`` says how many were read).
    """
    if dataset not in DATASETS:
        raise InputError(f"{dataset!r} is not one of {', '.join(DATASETS)}", field="dataset")
    if dates and dataset != "drop":
        raise InputError("dates are admitted only as DROP references", field="dates")
    problem = split_problem(where, dataset, split)
    if problem is not None:
        raise InputError(problem, field=f"{dataset}_split")
    split = split or DEFAULT_SPLITS[dataset]
    if is_file_source(where):
        if dataset == "gsm8k":
            return load_gsm8k_jsonl(where, limit=limit)
        if dataset == "halueval":
            return load_halueval_json(where, limit=limit)
        return load_drop_json(where, dates=dates, limit=limit)
    if dataset == "gsm8k":
        return load_gsm8k_hf(str(where), split=split, allow_download=allow_download, limit=limit)
    if dataset == "halueval":
        return load_halueval_hf(str(where), split=split, allow_download=allow_download, limit=limit)
    return load_drop_hf(
        str(where), split=split, allow_download=allow_download, dates=dates, limit=limit
    )
