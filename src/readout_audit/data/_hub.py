"""Rows of one split of a Hugging Face dataset (hub id or local folder), offline unless allowed."""

from __future__ import annotations

import tempfile
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit._util import hub_hint


def hub_rows(
    dataset: str, subset: str | None, split: str, revision: str | None, allow_download: bool
) -> list[dict[str, Any]]:
    """The rows of one split, read through ``datasets`` with the hub offline unless allowed.

    ``subset`` None takes the dataset's only (or default) configuration. A local folder is read
    through a cache of its own, removed afterwards: ``datasets`` keys its cache by the folder's
    name, so a folder whose files changed would otherwise give the rows of an earlier read.
    """
    import datasets  # a heavy import, needed only here
    from datasets.utils import disable_progress_bars

    disable_progress_bars()
    mode = datasets.DownloadMode.REUSE_DATASET_IF_EXISTS
    previous = datasets.config.HF_HUB_OFFLINE
    datasets.config.HF_HUB_OFFLINE = not allow_download
    local = Path(dataset).is_dir()
    try:
        with tempfile.TemporaryDirectory() if local else nullcontext(None) as cache:
            loaded = datasets.load_dataset(
                dataset, subset, split=split, revision=revision, download_mode=mode, cache_dir=cache
            )
            return [dict(row) for row in loaded]
    except Exception as error:  # datasets raises many types for a missing or offline dataset
        hint = "" if local else f" ({hub_hint(allow_download)})"
        config = "" if subset is None else f" subset {subset!r}"
        raise InputError(
            f"cannot load dataset {dataset!r}{config} split {split!r}{hint}: {error}",
            source=dataset,
        ) from None
    finally:
        datasets.config.HF_HUB_OFFLINE = previous
