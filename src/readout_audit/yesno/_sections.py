"""Report sections of the yes/no audit: sets, first tokens, metrics, transitions, closed form."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from readout_audit.log import Run
from readout_audit.report import (
    Block,
    FigureBlock,
    Section,
    TableBlock,
    TextBlock,
    browser,
    estimate,
    fmt,
    interval,
    mass_figure,
    plot,
)
from readout_audit.yesno._record import YesNoRecord

if TYPE_CHECKING:
    from readout_audit.yesno._summary import SetComparison, YesNoSummary

MARGIN_TITLE = "max ℓ over yes − max ℓ over no"


def _listed(entries: dict[str, dict[str, Any]]) -> str:
    return ", ".join(f"{t} {v['token']!r} ×{v['count']}" for t, v in entries.items()) or "none"


def _ids(entries: list[dict[str, Any]]) -> str:
    """Ids with their tokens (records written before tokens were logged give only the id)."""
    return ", ".join(
        f"{e['id']} {e['token']!r}" if e["token"] is not None else str(e["id"]) for e in entries
    )


def _diagnostic_text(diagnostic: dict[str, Any]) -> str:
    """Algorithm 1's diagnostic in one paragraph: what it read, what was missing, what it added."""
    head = (
        f"Diagnostic (Algorithm 1) on {diagnostic['sample']} questions (seed {diagnostic['seed']})"
    )
    if diagnostic.get("Y") is None:
        return f"{head}: first tokens {_listed(diagnostic['emitted'])}; no legacy Y, N to check."
    proposed = f"yes {diagnostic['proposed_yes']}, no {diagnostic['proposed_no']}"
    action = "added to Y and N (algorithm1)" if diagnostic.get("extended") else "not added"
    return (
        f"{head}: first tokens outside Y ∪ N: {_listed(diagnostic['missing'])}; yes/no forms "
        f"among them: {proposed}, {action}."
    )


def _tokens_section(summary: YesNoSummary) -> Section:
    blocks: list[Block] = []
    if summary.diagnostic:
        blocks.append(TextBlock(_diagnostic_text(summary.diagnostic)))
    sets = [
        [
            s["readout"],
            _ids(s["yes"]),
            _ids(s["no"]),
            ", ".join(repr(f) for f in s["multi_token_forms"]) or "none",
            str(s["n_items"]),
        ]
        for s in summary.token_sets
    ]
    in_sets = {
        e["id"]
        for s in summary.token_sets
        if s["readout"] == "dynamic"
        for e in (*s["yes"], *s["no"])
    }
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
            "Token sets by readout (each id with its token in this vocabulary)",
            ["readout", "yes ids", "no ids", "multi-token forms", "items"],
            sets,
            "dynamic: Listing 1's forms encoded alone; dynamic_in_context: the forms and their "
            "upper-case variants encoded after the rendered prompt; multi-token forms are left "
            "out of the set.",
            wrap=("yes ids", "no ids", "multi-token forms"),
        ),
        TableBlock(
            "First generated tokens (the ids the model actually emits)",
            ["token id", "token", "count", "in the dynamic sets"],
            first,
        ),
    ]
    return Section("Token sets and first generated tokens", blocks)


def _comparison_section(comparison: SetComparison) -> Section:
    ids = [[str(d.id), repr(d.token), d.answer, d.only_in, str(d.n_items)] for d in comparison.ids]
    metrics = [[name, fmt(d.estimate), interval(d)] for name, d in comparison.differences.items()]
    return Section(
        f"{comparison.b} against {comparison.a}",
        [
            TableBlock(
                "Ids in one readout's sets only",
                ["token id", "token", "answer", "only in", "items"],
                ids,
                detail=True,
            ),
            TableBlock(
                f"{comparison.b} − {comparison.a} ({comparison.n_differ} questions answered "
                "differently)",
                ["metric", "difference", "95% paired interval"],
                metrics,
            ),
        ],
    )


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
            "legacy_pair/legacy_set: fixed token ids; algorithm1: the legacy set with the "
            "diagnostic's additions; dynamic: max-logit over Listing 1's sets from the "
            "tokenizer; dynamic_in_context: the in-context extension; string_parse: the first "
            "yes/no word of the greedy text (none reads yes).",
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
                detail=True,
            ),
            TableBlock(
                "Closed-form F1 from the transitions off the dynamic readout",
                [*columns, "F1 closed form", "F1 observed"],
                closed,
                "T: label-yes items the dynamic readout reads yes; G: label-no items it reads no; "
                "ρ_N, φ, κ_P, κ_N: the shares the other readout flips (seed 002's closed form).",
                detail=True,
            ),
        ],
    )


def yesno_sections(run: Run[YesNoRecord], summary: YesNoSummary) -> list[Section]:
    """The yes/no audit's sections: the readouts first, then why they differ.

    The transition tables are detail: the short terminal report names them rather than draws.
    """
    typed = run.records
    comparison = [_comparison_section(summary.in_context)] if summary.in_context else []
    return [
        _metrics_section(summary),
        _tokens_section(summary),
        *comparison,
        _paired_section(summary),
        Section("Forms' mass", [mass_figure(typed, lambda r: r.split, "split")]),
        browser(typed),
    ]
