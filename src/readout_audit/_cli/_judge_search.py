"""``readout judge search``: a cue search's development, frozen selection and confirmation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import user_errors
from readout_audit._cli._fields import settings_from, settings_options
from readout_audit._cli._judge_options import (
    JUDGE_SKIPS,
    SOURCE_TYPES,
    progress_option,
    refuse_unused_execution,
)
from readout_audit._cli._types import GivenPath
from readout_audit.judge import JudgeExecution, SearchSettings, search_cues
from readout_audit.judge.search import search_summary
from readout_audit.progress import progress_mode

_TYPES = {
    **SOURCE_TYPES,
    "proposals": GivenPath(path_type=Path, dir_okay=False, exists=True),
}


@click.command("search")
@click.argument("out", type=GivenPath(path_type=Path, file_okay=False))
@settings_options(SearchSettings, types_=_TYPES)
@settings_options(JudgeExecution, skip=("allow_download", *JUDGE_SKIPS))
@progress_option
@user_errors
def judge_search_command(out: Path, progress: bool | None, **given: Any) -> None:
    """Run a cue search: development stages, a selection frozen to a file, then confirmation."""
    settings = settings_from(SearchSettings, given)
    # one --allow-download: the datasets' (the sources' option) and the judge's alike
    execution = settings_from(JudgeExecution, given, allow_download=settings.sources.allow_download)
    refuse_unused_execution(settings.judge, local_proposer=settings.proposals is None)
    result = search_cues(settings, out, execution, progress=progress_mode(progress))
    click.echo("\n".join(search_summary(result, out)))
