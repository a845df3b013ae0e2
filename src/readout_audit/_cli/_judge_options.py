"""What the judge commands share: their paths' click types, the refused execution options.

An execution option the command's judge would not read (a served judge's pool beside a local
judge) is refused before anything loads.
"""

from __future__ import annotations

from pathlib import Path

import click

from readout_audit._cli._common import refuse_unused
from readout_audit._cli._types import GivenPath
from readout_audit.judge import JudgeExecution
from readout_audit.model import is_served

SOURCE_TYPES = {"exclude": GivenPath(path_type=Path, exists=True)}
"""``types_`` of a command whose settings hold a ``judge.inventory.SourceSettings``."""
LOCAL_JUDGE_ONLY = ("device", "dtype", "batch_size")
"""The execution options only a local judge reads."""
SERVED_JUDGE_ONLY = tuple(
    name
    for name in JudgeExecution.model_fields
    if name not in (*LOCAL_JUDGE_ONLY, "allow_download")
)
"""The execution options only a served judge reads."""

progress_option = click.option("--progress/--no-progress", default=None, help="Progress on stderr.")


def refuse_unused_execution(judge: str, *, local_proposer: bool = False) -> None:
    """Before anything loads: refuse the execution options ``judge`` would not read.

    A local proposer (``judge search`` without ``--proposals``) still reads ``--device`` and
    ``--dtype`` beside a served judge.
    """
    if not is_served(judge):
        refuse_unused(SERVED_JUDGE_ONLY, f"by a local judge ({judge}), only by a served one")
        return
    placing = ("device", "dtype") if local_proposer else ()
    unused = [name for name in LOCAL_JUDGE_ONLY if name not in placing]
    refuse_unused(unused, f"by a served judge ({judge}), only by a local one")
