"""The Hugging Face hub as lm-eval's datasets meet it: offline unless allowed, its failures told."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def hub_access(allow_download: bool) -> Iterator[None]:
    """The Hugging Face hub offline for ``datasets`` unless downloads are allowed."""
    import datasets
    from datasets.utils import disable_progress_bars

    disable_progress_bars()
    previous = datasets.config.HF_HUB_OFFLINE, os.environ.get("HF_DATASETS_OFFLINE")
    datasets.config.HF_HUB_OFFLINE = not allow_download
    if not allow_download:
        os.environ["HF_DATASETS_OFFLINE"] = "1"
    try:
        yield
    finally:
        datasets.config.HF_HUB_OFFLINE = previous[0]
        if previous[1] is None:
            os.environ.pop("HF_DATASETS_OFFLINE", None)
        else:
            os.environ["HF_DATASETS_OFFLINE"] = previous[1]


def from_hub(error: BaseException) -> bool:
    """Whether ``error``, or an error that led to it, is a read from the hub that failed."""
    from datasets.exceptions import DatasetNotFoundError
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    hub = (ConnectionError, DatasetNotFoundError, HfHubHTTPError, LocalEntryNotFoundError)
    found: BaseException | None = error
    while found is not None:
        if isinstance(found, hub):
            return True
        found = found.__cause__ or found.__context__
    return False
