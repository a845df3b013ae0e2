"""Section builders every kind can use: manifest, option-mass and argmax figures, item browser."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from readout_audit.log import Interval, Manifest, Run, ScoreRecord, Summary
from readout_audit.readout import MASS_FLOOR
from readout_audit.report._blocks import (
    Block,
    ChecksBlock,
    FigureBlock,
    ItemsBlock,
    Section,
    TableBlock,
    TextBlock,
    plot,
    worst_items,
)


def served_rows(served: Mapping[str, Any] | None) -> list[list[str]]:
    """A served model's server, endpoints, readout methods and conformance verdicts."""
    if not served:
        return []
    rows = []
    for key, value in served.items():
        if key == "conformance":
            for endpoint, verdicts in value.items():
                failed = [name for name, v in verdicts.items() if v == "fail"]
                rows.append(
                    [f"conformance {endpoint}", "fail: " + ", ".join(failed) if failed else "pass"]
                )
        else:
            rows.append(
                [key, ", ".join(map(str, value)) if isinstance(value, list) else str(value)]
            )
    return rows


def served_section(run: Run[Any]) -> Section | None:
    """A served run's server, readout methods and conformance verdicts (None for a local run).

    The short terminal report keeps them: they say how exact the run's readouts are.
    """
    served = served_rows(run.manifest.model.get("served"))
    if not served:
        return None
    return Section(
        "Served model", [TableBlock("Served", ["field", "value"], served, wrap=("value",))]
    )


def manifest_section(m: Manifest) -> Section:
    """Model, file hashes, versions, seeds and the commands that wrote a run or a stage."""
    model_rows = [
        ["spec", str(m.model.get("spec"))],
        ["name", str(m.model.get("name"))],
        ["dtype", str(m.model.get("dtype"))],
        ["context window", str(m.model.get("context_window"))],
        ["tokenizer", str(m.model.get("tokenizer"))],
        ["chat template sha256", str(m.model.get("chat_template_sha256"))],
    ]
    files = [[f["path"], f["sha256"], str(f["size"])] for f in m.model.get("files", [])]
    commands = [[" ".join(i.command), i.started, i.finished or "unfinished"] for i in m.invocations]
    config = [[k, str(v)] for k, v in sorted(m.config.items())]
    config += [[f"seed {k}", str(v)] for k, v in sorted(m.seeds.items())]
    versions = [[k, v] for k, v in sorted(m.versions.items())] + [["platform", m.platform]]
    served = served_rows(m.model.get("served"))
    return Section(
        "Manifest",
        [
            TableBlock("Model", ["field", "value"], model_rows),
            *(
                [TableBlock("Served", ["field", "value"], served, wrap=("value",))]
                if served
                else []
            ),
            TableBlock("Model files", ["file", "sha256", "bytes"], files),
            TableBlock("Commands", ["command", "started", "finished"], commands, wrap=("command",)),
            TableBlock("Configuration", ["key", "value"], config, wrap=("value",)),
            TableBlock("Versions", ["package", "version"], versions),
        ],
    )


def checks_section(summary: Summary) -> Section | None:
    """The run's checks, if its kind has any."""
    return Section("Checks", [ChecksBlock(summary.checks)]) if summary.checks else None


def mass_figure(records: Sequence[ScoreRecord], key: Callable[[Any], str], what: str) -> Block:
    """Every record's option mass, grouped by ``key``, against the floor."""
    groups: dict[str, list[float]] = {}
    for r in records:
        masses = groups.setdefault(key(r), [])
        if r.option_mass is not None:
            masses.append(r.option_mass)
    if not any(groups.values()):
        return TextBlock(f"No option mass was measurable for any {what}.")
    return FigureBlock(
        f"Option mass by {what}",
        plot("mass_distribution", groups, f"Option mass per {what}"),
        f"Each point is one item; the dashed line is the {MASS_FLOOR} floor below which the "
        "declared options do not hold the scored position.",
    )


def class_figure(classes: Mapping[str, Mapping[str, int]], what: str) -> Block:
    """The summary's argmax class counts per group as bars."""
    return FigureBlock(
        "Unrestricted argmax classes",
        plot("class_bars", classes, f"Argmax token class per {what}"),
        "What the most probable next token is: a declared option's first token, an answer "
        "letter of a quoted item, whitespace, a digit, prose or other.",
    )


def browser(records: Sequence[ScoreRecord]) -> Section:
    """The item browser: every variant of the items whose worst variant has the least mass."""
    title = "Items with the least option mass, each in every variant"
    return Section("Item browser", [ItemsBlock(title, worst_items(list(records)))])


def forest(differences: Mapping[str, Interval], title: str) -> Block:
    """Paired differences with their intervals, against zero."""
    rows = {k: (v.estimate, v.low, v.high) for k, v in differences.items()}
    return FigureBlock(
        title, plot("intervals", rows, title, zero=True), "95% paired bootstrap intervals."
    )
