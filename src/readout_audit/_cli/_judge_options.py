"""Options the judge commands share: where sources come from, and how a judge is driven."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from readout_audit._cli._common import refuse_unused
from readout_audit._cli._limit_plain import limit_option
from readout_audit._cli._model import ModelChoice
from readout_audit._cli._served import cap_options, pool_options, with_options
from readout_audit.judge.protocol import make_settings
from readout_audit.judge.run import JudgeExecution
from readout_audit.model import DEFAULT_BATCH_SIZE, DTYPES, ScoringModel, is_served

F = TypeVar("F", bound=Callable[..., Any])


_DATASETS = (
    (
        "gsm8k",
        "test",
        "GSM8K: its JSON-lines file, or a hub dataset id or local copy (e.g. openai/gsm8k, "
        "configuration main).",
    ),
    (
        "drop",
        "train",
        "DROP in the hub's layout: a JSON-lines or JSON-array file, or a hub dataset id or "
        "local copy (e.g. ucinlp/drop).",
    ),
    (
        "halueval",
        "data",
        "HaluEval QA (qa_data.json's layout): a JSON-lines or JSON-array file, or a hub "
        "dataset id or local copy (e.g. pminervini/HaluEval, configuration qa).",
    ),
)
"""Each dataset's option name, default split and help."""
DATASETS = tuple(name for name, _, _ in _DATASETS)
SOURCE_OPTIONS = (
    *(option for name in DATASETS for option in (name, f"{name}_split")),
    "drop_dates",
    "allow_download",
    "exclude",
    "limit",
)
"""The parameters ``source_options`` adds (a ``judge.inventory.SourceSettings`` each)."""


def source_options(command: F) -> F:
    """Where sources come from: ``--gsm8k``, ``--drop``, splits, ``--limit``, hub, exclusions."""
    return with_options(
        command,
        [
            *(
                option
                for name, split, text in _DATASETS
                for option in (
                    click.option(f"--{name}", metavar="FILE|HUB-ID", help=text),
                    click.option(f"--{name}-split", default=split, show_default=True),
                )
            ),
            click.option(
                "--drop-dates",
                is_flag=True,
                help="Admit a DROP number typed date (a year) as a reference (the paper's "
                "workload is numbers only).",
            ),
            click.option(
                "--allow-download", is_flag=True, help="Let hub ids download (else offline)."
            ),
            click.option(
                "--exclude",
                multiple=True,
                type=click.Path(path_type=Path, exists=True),
                help="An earlier inventory (its directory or inventory.jsonl) whose source ids, "
                "clusters and normalised questions are not used again (repeatable).",
            ),
            limit_option("rows of each dataset, read before the sources are drawn"),
        ],
    )


def execution_options(command: F) -> F:
    """How a judge runs: a local model's device and batch, a served one's pools and caps."""
    return with_options(
        command,
        [
            click.option(
                "--device", default="auto", show_default=True, help="A local judge's device."
            ),
            click.option(
                "--dtype", type=click.Choice(list(DTYPES)), default="auto", show_default=True
            ),
            click.option(
                "--batch-size",
                default=DEFAULT_BATCH_SIZE,
                show_default=True,
                type=click.IntRange(1),
                help="A local judge's requests per forward (a shared prefix is encoded once).",
            ),
            *pool_options("A served judge"),
            click.option(
                "--api-key-env", metavar="NAME", help="Environment variable holding the API key."
            ),
            click.option(
                "--endpoint",
                multiple=True,
                metavar="URL",
                help="Send a served judge's requests here instead of the inventory's URLs (the "
                "model name and the bodies stay as planned); repeatable, one pool each.",
            ),
            *cap_options("A served judge (over the run's ledger)"),
        ],
    )


SERVED_JUDGE_ONLY = (
    "concurrency",
    "starts_per_s",
    "request_timeout",
    "api_key_env",
    "endpoint",
    "max_spend_tokens",
    "max_spend_usd",
    "usd_per_mtok_prompt",
    "usd_per_mtok_completion",
)
"""The execution options only a served judge reads."""
LOCAL_JUDGE_ONLY = ("device", "dtype", "batch_size")
"""The execution options only a local judge reads."""
EXECUTION_OPTIONS = (
    *LOCAL_JUDGE_ONLY,
    *SERVED_JUDGE_ONLY,
    "allow_download",
)
"""The parameters a ``judge.run.JudgeExecution`` is built from."""


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


def local_opener(options: dict[str, Any]) -> Callable[[str], ScoringModel]:
    """How the options open a local judge (or proposer) from its spec, on first need."""

    def open_local(spec: str) -> ScoringModel:
        return ModelChoice(
            spec,
            device=options["device"],
            dtype=options["dtype"],
            allow_download=options["allow_download"],
        ).open()

    return open_local


def execution_settings(options: dict[str, Any]) -> JudgeExecution:
    """The execution options as typed settings."""
    return make_settings(JudgeExecution, **{name: options[name] for name in EXECUTION_OPTIONS})
