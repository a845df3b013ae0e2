"""Report sections of the yes/no audit: sets, first tokens, metrics, transitions, closed form."""

from __future__ import annotations

from typing import TYPE_CHECKING

from readout_audit.log._record import YesNoRecord
from readout_audit.log._run import Run
from readout_audit.report._blocks import (
    Block,
    FigureBlock,
    Section,
    TableBlock,
    TextBlock,
    estimate,
    fmt,
    interval,
    plot,
)
from readout_audit.report._common import browser, mass_figure

if TYPE_CHECKING:
    from readout_audit.audit._yesno_summary import YesNoSummary

MARGIN_TITLE = "max ℓ over yes − max ℓ over no"


def _tokens_section(summary: YesNoSummary) -> Section:
    blocks: list[Block] = []
    diagnostic = summary.diagnostic
    if diagnostic:
        outside = ", ".join(
            f"{t} {v['token']!r} ×{v['count']}" for t, v in diagnostic["outside_sets"].items()
        )
        blocks.append(
            TextBlock(
                f"Diagnostic (Algorithm 1) on {diagnostic['sample']} questions (seed "
                f"{diagnostic['seed']}): argmax outside the sets: {outside or 'none'}"
            )
        )
    sets = [
        [
            ", ".join(f"{e['id']} {e['form']!r}" for e in s["yes"]),
            ", ".join(f"{e['id']} {e['form']!r}" for e in s["no"]),
            ", ".join(repr(f) for f in s["multi_token_forms"]) or "none",
            str(s["n_items"]),
        ]
        for s in summary.token_sets
    ]
    in_sets = {e["id"] for s in summary.token_sets for e in (*s["yes"], *s["no"])}
    first = [
        [
            t,
            repr(summary.first_token_strings.get(t, "")),
            str(c),
            "yes" if int(t) in in_sets else "NO",
        ]
        for t, c in summary.emitted_first_tokens.items()
    ]
    blocks += [
        TableBlock(
            "Tokenizer-derived sets",
            ["yes ids", "no ids", "multi-token forms", "items"],
            sets,
            wrap=("yes ids", "no ids", "multi-token forms"),
        ),
        TableBlock(
            "First generated tokens (the ids the model actually emits)",
            ["token id", "token", "count", "in the sets"],
            first,
        ),
    ]
    return Section("Token sets and first generated tokens", blocks)


def _metrics_section(summary: YesNoSummary) -> Section:
    groups = (
        {"all": summary.overall, **summary.splits} if len(summary.splits) > 1 else summary.splits
    )
    rows = []
    forest: dict[str, tuple[float, float, float]] = {}
    for split, group in groups.items():
        for name, r in group.readouts.items():
            if r.f1 is None:
                rows.append([split, name, "0", "undecided", "–", "–", "–", "–", "–"])
                continue
            rows.append(
                [
                    split,
                    name,
                    str(r.n),
                    estimate(r.f1),
                    interval(r.f1),
                    estimate(r.precision),
                    estimate(r.recall),
                    estimate(r.yes_rate, 3),
                    estimate(r.accuracy, 3),
                ]
            )
            forest[f"{split} · {name}"] = (r.f1.estimate, r.f1.low, r.f1.high)
    columns = ["split", "readout", "n", "F1", "95% interval", "precision", "recall"]
    blocks: list[Block] = [
        TableBlock(
            "Readouts (95% cluster-bootstrap intervals)",
            [*columns, "yes-rate", "accuracy"],
            rows,
            "legacy_pair/legacy_set: fixed token ids; dynamic: max-logit over the sets derived "
            "from the tokenizer; string_parse: the first yes/no word of the greedy text (none "
            "reads yes).",
        )
    ]
    if forest:
        blocks.append(
            FigureBlock(
                "F1 by readout", plot("intervals", forest, "F1 with 95% intervals", zero=False)
            )
        )
    margins = summary.margins
    if margins is not None and 0 < sum(margins.labels) < len(margins.labels):
        blocks.append(
            FigureBlock(
                "ROC of the logit margins",
                plot(
                    "roc_curves", margins.scores, margins.labels, "max ℓ over yes − max ℓ over no"
                ),
                "Each logit readout's margin as a score against the label; the decision is "
                "its sign.",
            )
        )
    for name, r in summary.overall.readouts.items():
        if r.tp is not None:
            blocks.append(
                TableBlock(
                    f"Confusion matrix: {name}",
                    ["", "label yes", "label no"],
                    [["read yes", str(r.tp), str(r.fp)], ["read no", str(r.fn), str(r.tn)]],
                )
            )
    return Section("Metrics", blocks)


def _paired_section(summary: YesNoSummary) -> Section:
    transitions = [
        [pair, label, *(str(cells[k]) for k in ("yy", "yn", "ny", "nn"))]
        for pair, table in summary.overall.transitions.items()
        for label, cells in table.items()
    ]
    closed = [
        [split, name, str(c.T), str(c.G)]
        + [fmt(rate, 3) for rate in (c.rho_n, c.phi, c.kappa_p, c.kappa_n)]
        + [fmt(c.f1_closed_form), fmt(c.f1_observed)]
        for split, group in summary.splits.items()
        for name, c in group.closed_form.items()
        if c.n
    ]
    columns = ["split", "readout", "T", "G", "ρ_N", "φ", "κ_P", "κ_N"]
    return Section(
        "Transitions and the closed form",
        [
            TableBlock(
                "Paired transitions (first readout's answer, then the second's)",
                ["readouts", "label", "yy", "yn", "ny", "nn"],
                transitions,
            ),
            TableBlock(
                "Closed-form F1 from the transitions off the dynamic readout",
                [*columns, "F1 closed form", "F1 observed"],
                closed,
                "T: label-yes items the dynamic readout reads yes; G: label-no items it reads no; "
                "ρ_N, φ, κ_P, κ_N: the shares the other readout flips (seed 002's closed form).",
            ),
        ],
    )


def yesno_sections(run: Run, summary: YesNoSummary) -> list[Section]:
    """The yes/no audit's sections, in the order a reader checks them."""
    typed = [r for r in run.records if isinstance(r, YesNoRecord)]
    return [
        _tokens_section(summary),
        _metrics_section(summary),
        _paired_section(summary),
        Section("Forms' mass", [mass_figure(typed, lambda r: r.split, "split")]),
        browser(typed),
    ]
