"""``readout judge``: build a frozen inventory (seed 004), run it on judges, analyse, report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from readout_audit._cli._common import refuse_unused, user_errors
from readout_audit._cli._judge_options import (
    DATASETS,
    load_banks,
    require_sources,
    source_options,
)
from readout_audit._cli._judge_propose import judge_propose_command
from readout_audit._cli._judge_run import judge_analyze_command, judge_run_command
from readout_audit._cli._judge_search import judge_search_command
from readout_audit._cli._registry import register_commands
from readout_audit._cli._report import report_command
from readout_audit._cli._types import SEED
from readout_audit._exceptions import InputError
from readout_audit._util._lock import locked_directory
from readout_audit._util._text import terminal_safe
from readout_audit.judge import (
    INVENTORY_FILE,
    MANIFEST_FILE,
    PAPER_SEED,
    STUDIES,
    Inventory,
    Study,
    build_study_inventory,
    get_study,
    parse_configuration,
    read_inventory,
    write_inventory,
)
from readout_audit.judge.inventory import (
    SWITCH_ITEMS,
    read_planned,
    refuse_shared_sources,
    sibling_inventories,
)
from readout_audit.judge.protocol import PRESENTATIONS, STUDY_PRESENTATION, Presentation
from readout_audit.judge.studies import CONFIRMATION
from readout_audit.log import check_output_path


@click.group("judge")
def judge_group() -> None:
    """LLM-judge robustness: presentation and cue experiments as frozen protocols."""


def _summary(inventory: Inventory) -> str:
    manifest = inventory.manifest
    lines = []
    for bank in manifest.banks:
        skipped = ", ".join(f"{k} {v}" for k, v in bank.skipped.items()) or "none"
        excluded = ", ".join(f"{k} {v}" for k, v in manifest.exclusions[bank.dataset].items() if v)
        lines.append(
            f"{bank.dataset}: {bank.rows} rows, {bank.sources} sources (skipped: {skipped}; "
            f"excluded: {excluded or 'none'})"
        )
    counts = manifest.counts
    for phase, n in counts["sources"].items():
        if not n:
            continue  # a study has no preflight
        lines.append(
            f"{phase}: {n} sources x {counts['per_source'][phase]} calls x "
            f"{len(manifest.configurations)} configurations = {counts['requests'][phase]} requests"
        )
    lines.append(
        "per configuration: " + ", ".join(f"{k} {v}" for k, v in counts["configurations"].items())
    )
    return "\n".join(lines)


def _response_formats(texts: tuple[str, ...], names: list[str]) -> dict[str, str]:
    """``NAME=FORM`` options by configuration name; each names a configuration, once."""
    forms: dict[str, str] = {}
    for text in texts:
        name, eq, form = text.partition("=")
        if not eq or not name or not form:
            raise InputError(f"expected NAME=FORM, got {text!r}", field="response-format")
        if name not in names:
            raise InputError(f"{name!r} names no --configuration", field="response-format")
        if name in forms:
            raise InputError(f"{name!r} is given twice", field="response-format")
        forms[name] = form
    return forms


STUDY_OPTIONS = ("items", "preflight_per_dataset", "presentation")
"""The build options only some studies read (``Study.reads``)."""


def _refuse_study_options(study: Study) -> None:
    """Refuse ``--items``, ``--preflight-per-dataset`` or ``--presentation`` where unread."""
    for option in STUDY_OPTIONS:
        if option not in study.reads:
            readers = ", ".join(s.name for s in STUDIES.values() if option in s.reads)
            refuse_unused((option,), f"by the {study.name} study: only {readers} read it")


def _check_outputs(out: Path, reused: Path | None, excluded: tuple[Path, ...]) -> None:
    """Refuse, even with ``--force``, an ``--out`` whose files are this build's inputs.

    An inventory read by ``--from-inventory`` or ``--exclude``, or an entry that is not a
    regular file (a FIFO, a device), is never replaced; checked before anything is read.
    """
    given = [*([reused] if reused is not None else []), *excluded]
    inputs = [path / INVENTORY_FILE if path.is_dir() else path for path in given]
    for name in (INVENTORY_FILE, MANIFEST_FILE):
        check_output_path(out / name, option="out", inputs=inputs, force=True)


def _refuse_existing(out: Path, force: bool) -> None:
    """Refuse an ``--out`` already holding an inventory, unless ``--force``."""
    if (out / INVENTORY_FILE).exists() and not force:
        raise InputError("holds an inventory; pass --force to overwrite it", source=str(out))


def _panel(texts: tuple[str, ...]) -> dict[str, int] | None:
    """``DATASET=N`` options: the repeat panel's sources per dataset (None: the paper's)."""
    panel: dict[str, int] = {}
    for text in texts:
        dataset, eq, count = text.partition("=")
        if not eq or not dataset or not count.isdigit() or int(count) < 1 or dataset in panel:
            raise InputError(f"expected DATASET=N once per dataset, got {text!r}", field="panel")
        panel[dataset] = int(count)
    return panel or None


@judge_group.command("build")
@click.option(
    "--study",
    type=click.Choice(list(STUDIES)),
    default=CONFIRMATION.name,
    show_default=True,
    help="confirmation: the presentation study; decomposition: six bridges x two earlier "
    "values under HALL, HALL_R and FINAL3; formatting-pilot: colon placements x two earlier "
    "values; repeat: three passes on a decomposition's sources (--from-inventory); "
    "reference-switch: generated items graded in two reference worlds.",
)
@click.option(
    "--items",
    default=SWITCH_ITEMS,
    show_default=True,
    type=click.IntRange(4),
    help="Generated items of the reference switch (a multiple of 4).",
)
@click.option(
    "--from-inventory",
    "reused",
    type=click.Path(path_type=Path, exists=True, file_okay=False),
    help="The repeat panel: the decomposition inventory whose sources it reuses.",
)
@click.option(
    "--panel",
    "panel",
    multiple=True,
    metavar="DATASET=N",
    help="The repeat panel: sources per dataset, the first in the decomposition's sampling "
    "order [default: drop=56, halueval=24] (repeatable).",
)
@source_options
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Directory for inventory.jsonl and inventory.manifest.json.",
)
@click.option("--seed", default=PAPER_SEED, show_default=True, type=SEED)
@click.option(
    "--per-dataset",
    type=click.IntRange(1),
    help="Sources per dataset [default: the paper's: confirmation 100, decomposition 120, "
    "formatting-pilot 8].",
)
@click.option(
    "--preflight-per-dataset",
    default=10,
    show_default=True,
    type=click.IntRange(0),
    help="Preflight sources per dataset (disjoint from the confirmation sources).",
)
@click.option(
    "--configuration",
    "configurations",
    multiple=True,
    required=True,
    metavar="NAME=CONTRACT@JUDGE",
    help="A judge and its contract (FINAL3, FINAL4, HALL, HALL_R), e.g. "
    "local3=FINAL3@smollm2-135m or served=FINAL4@openai:http://127.0.0.1:8080/v1#smollm2 "
    "(repeatable).",
)
@click.option(
    "--response-format",
    "response_formats",
    multiple=True,
    metavar="NAME=FORM",
    help="How configuration NAME's bodies ask for structured output: json_schema (OpenAI, "
    "vLLM, SGLang; the default), json_object (llama-cpp-python) or none (the label read from "
    "the text) (repeatable).",
)
@click.option(
    "--bootstrap-seed",
    type=SEED,
    help="The first configuration's bootstrap seed; the others count up from it [default: --seed].",
)
@click.option(
    "--presentation",
    type=click.Choice(list(PRESENTATIONS)),
    help=f"A robustness study's one presentation: sorted (every dictionary's keys sorted) or "
    f"insertion [default: {STUDY_PRESENTATION}; the repeat panel keeps its decomposition's].",
)
@click.option("--force", is_flag=True, help="Overwrite an inventory already in --out.")
@user_errors
def build_command(
    study: str,
    items: int,
    reused: Path | None,
    panel: tuple[str, ...],
    out: Path,
    seed: int,
    per_dataset: int | None,
    preflight_per_dataset: int,
    configurations: tuple[str, ...],
    response_formats: tuple[str, ...],
    bootstrap_seed: int | None,
    presentation: Presentation | None,
    force: bool,
    **sources: Any,
) -> None:
    """Build a frozen inventory: sources, candidates, presentations, ordered requests.

    The directory is locked while the inventory is built and written, so a second build into it
    is refused rather than mixing two inventories. A study that draws fresh sources is refused
    beside an inventory it shares a source or cluster with, unless that one is excluded.
    """
    chosen = get_study(study)
    _refuse_study_options(chosen)
    if chosen.sourced:
        require_sources(sources)
    else:
        named = [name for name in DATASETS if sources[name] is not None]
        if named:
            raise click.UsageError(f"the {study} study reads no dataset: drop --{named[0]}")
    _check_outputs(out, reused, sources["exclude"])
    _refuse_existing(out, force)
    first_seed = seed if bootstrap_seed is None else bootstrap_seed
    forms = _response_formats(response_formats, [text.partition("=")[0] for text in configurations])
    parsed = [
        parse_configuration(text, first_seed + i, forms.get(text.partition("=")[0], "json_schema"))
        for i, text in enumerate(configurations)
    ]
    chosen.check_configurations(parsed)  # before any dataset is read
    with locked_directory(out):
        _refuse_existing(out, force)  # again: another build may have written it meanwhile
        inventory = build_study_inventory(
            study,
            parsed,
            seed=seed,
            banks=load_banks(sources) if chosen.sourced else (),
            per_dataset=per_dataset,
            preflight_per_dataset=preflight_per_dataset,
            priors=[read_planned(path) for path in sources["exclude"]],
            items=items,
            reused=None if reused is None else read_inventory(reused),
            panel=_panel(panel),
            presentation=presentation,
        )
        if chosen.fresh:
            earlier = sibling_inventories(out, sources["exclude"])
            refuse_shared_sources(study, inventory, earlier)
        write_inventory(out, inventory)
    click.echo(_summary(inventory))
    click.echo(terminal_safe(f"wrote {len(inventory.requests)} requests to {out / INVENTORY_FILE}"))


judge_group.add_command(judge_run_command)
judge_group.add_command(judge_analyze_command)
judge_group.add_command(report_command)
judge_group.add_command(judge_propose_command)
judge_group.add_command(judge_search_command)


@register_commands
def judge_commands(cli: click.Group) -> None:
    """``readout judge``."""
    cli.add_command(judge_group)
