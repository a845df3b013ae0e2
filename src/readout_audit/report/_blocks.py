"""What a report section is made of: tables, figures, checks and an item browser.

Sections are plain data built once per run; the terminal renderer (rich) and the HTML renderer
(jinja2) draw the same sections, so both show the same numbers, rows and missing-value marks.
Tables, checks and text appear in both; figures and the item browser only in HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, Protocol, runtime_checkable

from readout_audit.log import Check, Interval, ScoreRecord
from readout_audit.readout import TopToken

MISSING = "–"
"""The mark of a value that does not exist (not measurable, undefined, not run)."""


@dataclass(frozen=True)
class TableBlock:
    """A table of text cells (escaped when rendered)."""

    title: str
    columns: list[str]
    rows: list[list[str]]
    note: str | None = None
    wrap: tuple[str, ...] = ()
    """Columns whose long text may wrap in the terminal (the others stay on one line)."""
    detail: bool = False
    """A table the terminal's short report names rather than draws (the HTML has every one)."""
    kind: Literal["table"] = "table"


@dataclass(frozen=True)
class FigureBlock:
    """An inline SVG plot drawn by this package, with its caption.

    Drawn only when a renderer asks for ``svg`` (the HTML report), so a terminal report never
    imports matplotlib.
    """

    title: str
    draw: Callable[[], str]
    caption: str = ""
    kind: Literal["figure"] = "figure"

    @cached_property
    def svg(self) -> str:
        """The plot as inline SVG text."""
        return self.draw()


def plot(name: str, *args: Any, **kwargs: Any) -> Callable[[], str]:
    """A deferred call of one of ``_plots``' drawing functions."""

    def draw() -> str:
        from readout_audit.report import _plots

        svg: str = getattr(_plots, name)(*args, **kwargs)
        return svg

    return draw


@dataclass(frozen=True)
class ChecksBlock:
    """The checks with verdicts, findings, evidence and repairs."""

    checks: list[Check]
    kind: Literal["checks"] = "checks"


@dataclass(frozen=True)
class ItemView:
    """One record as the item browser shows it."""

    title: str
    tail: str
    """The rendered prompt's last characters; the scored position follows them."""
    prompt: str | None
    """The whole rendered prompt (None in records written before it was kept)."""
    mass: str
    top: list[TopToken]
    options: list[tuple[str, str, str]]
    """(option, its tokens in context, its renormalised probability)."""
    greedy: str
    gold: list[str] = field(default_factory=list)
    """The options that are the item's answer (its target, or lm-eval's gold); none if unknown."""
    choice: str | None = None
    """The option of highest log-likelihood: lm-eval's ``acc`` choice (None if one is unscored)."""
    metrics: str = ""
    """lm-eval's per-document metrics from this record (``acc 1, acc_norm 0``), if any."""


@dataclass(frozen=True)
class ItemsBlock:
    """The worst items by option mass, one expandable entry per variant, and a search box."""

    title: str
    items: list[ItemView]
    kind: Literal["items"] = "items"


@dataclass(frozen=True)
class TextBlock:
    """A paragraph of plain text."""

    text: str
    kind: Literal["text"] = "text"


Block = TableBlock | FigureBlock | ChecksBlock | ItemsBlock | TextBlock


@dataclass
class Section:
    """A titled part of the report."""

    title: str
    blocks: list[Block] = field(default_factory=list)


def fmt(value: float | None, digits: int = 4) -> str:
    """A number for a table cell; tiny values (masses of 1e-15) in scientific notation."""
    if value is None:
        return MISSING
    if value != 0 and abs(value) < 1e-3:
        return f"{value:.2e}"
    return f"{value:.{digits}f}"


def estimate(value: Interval | None, digits: int = 4) -> str:
    """An interval's estimate for a table cell."""
    return MISSING if value is None else fmt(value.estimate, digits)


def interval(value: Interval | None, digits: int = 4, signed: bool = False) -> str:
    """An interval's [low, high] for a table cell."""
    if value is None:
        return MISSING
    spec = f"+.{digits}f" if signed else f".{digits}f"
    caution = f" ({value.caution})" if value.caution else ""
    return f"[{value.low:{spec}}, {value.high:{spec}}]{caution}"


def evidence_text(value: Any, depth: int = 0) -> str:
    """A check's evidence as short text: ``key: value; ...``, numbers to 4 significant digits.

    The evidence stays whole in the run's ``summary.json``; this is how the reports show it.
    """
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return MISSING
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        if not value:
            return "none"
        if depth == 0:
            return "; ".join(f"{k}: {evidence_text(v, 1)}" for k, v in value.items())
        listed = ", ".join(f"{k} {evidence_text(v, depth + 1)}" for k, v in value.items())
        return listed if depth == 1 else f"({listed})"
    if isinstance(value, list | tuple):
        return ", ".join(evidence_text(v, depth + 1) for v in value) or "none"
    return str(value)


def counts(classes: dict[str, int]) -> str:
    """Class counts as ``name n, ...`` in name order."""
    return ", ".join(f"{k} {n}" for k, n in sorted(classes.items())) or MISSING


def clip(text: str, width: int) -> str:
    """Text on one line (newlines as ⏎), cut to ``width`` characters with an ellipsis."""
    flat = text.replace("\n", "⏎")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


@runtime_checkable
class _LMEvalDoc(Protocol):
    """A record of an lm-eval document: its gold indices and lm-eval's metrics of it."""

    gold: list[int]
    lm_eval_metrics: dict[str, float]


def gold_options(record: ScoreRecord) -> list[str]:
    """The options that are the record's answer: lm-eval's gold indices, else its target."""
    if isinstance(record, _LMEvalDoc):
        return [record.options[i] for i in record.gold if 0 <= i < len(record.options)]
    return [option for option in record.options if record.matches_target(option)]


def item_view(record: ScoreRecord, label: str = "") -> ItemView:
    """A record's prompt tail, top tokens, options, greedy text, gold answer and choice."""
    probs: list[float | None] = (
        list(record.option_probs) if record.option_probs else [None] * len(record.options)
    )
    options = [
        (option, "–" if tokens is None else " ".join(str(t) for t in tokens), fmt(p))
        for option, tokens, p in zip(record.options, record.option_token_ids, probs, strict=True)
    ]
    return ItemView(
        title=f"{record.item_id} · {record.variant}{label}",
        tail=record.rendered_tail,
        prompt=record.rendered_text,
        mass=fmt(record.option_mass),
        top=record.top,
        options=options,
        greedy=record.greedy.text,
        gold=gold_options(record),
        choice=record.predicted_option(),
        metrics=(
            evidence_text(record.lm_eval_metrics, 1) if isinstance(record, _LMEvalDoc) else ""
        ),
    )


def worst_items(records: list[ScoreRecord], n: int = 12) -> list[ItemView]:
    """Every variant of the ``n`` items whose worst variant has the least option mass.

    Unmeasured mass counts as least. An item's variants follow the order in which the records
    first show each variant.
    """
    order = {variant: i for i, variant in enumerate(dict.fromkeys(r.variant for r in records))}
    items: dict[str, list[ScoreRecord]] = {}
    for r in records:
        items.setdefault(r.item_id, []).append(r)

    def least(record: ScoreRecord) -> tuple[bool, float]:
        return (record.option_mass is not None, record.option_mass or 0.0)

    ranked = sorted(items.items(), key=lambda item: (min(map(least, item[1])), item[0]))
    return [
        item_view(r)
        for _, group in ranked[:n]
        for r in sorted(group, key=lambda r: order[r.variant])
    ]
