"""What the judge commands share: their paths' click types, the refused execution options.

An execution option the command's judge would not read (a served judge's pool beside a local
judge) is refused before anything loads.
"""

from __future__ import annotations

from pathlib import Path

import click

from readout_audit._cli._common import refuse_other_kind
from readout_audit._cli._fields import option_keywords
from readout_audit._cli._types import GivenPath
from readout_audit.judge import JudgeExecution

SOURCE_TYPES = {"exclude": GivenPath(path_type=Path, exists=True)}
"""``types_`` of a command whose settings hold a ``judge.inventory.SourceSettings``."""
JUDGE_SKIPS = ("server", "echo", "chat")
"""The served-model settings no judge reads: a served judge's chat requests, planned in its
inventory, are sent as they are, whatever the server."""
LOCAL_JUDGE_ONLY = option_keywords(JudgeExecution, "local")
"""The execution options only a local judge reads."""
SERVED_JUDGE_ONLY = option_keywords(JudgeExecution, "served")
"""The execution options only a served judge reads."""

progress_option = click.option("--progress/--no-progress", default=None, help="Progress on stderr.")


def refuse_unused_execution(judge: str, *, local_proposer: bool = False) -> None:
    """Before anything loads: refuse the execution options ``judge`` would not read.

    A local proposer (``judge search`` without ``--proposals``) still reads ``--device`` and
    ``--dtype`` beside a served judge.
    """
    placing = {"device", "dtype"} if local_proposer else set()
    refuse_other_kind(judge, "judge", SERVED_JUDGE_ONLY, LOCAL_JUDGE_ONLY - placing)
