"""Terminal tables of a yes/no audit: readouts per split, first tokens, closed form, checks."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from readout_audit.report._terminal import checks_table, new_table, wide_console


def readouts_table(summary: dict[str, Any]) -> Table:
    """F1 with its interval, precision, recall, yes-rate and accuracy per split and readout."""
    table = new_table(title="Yes/no readouts (95% cluster-bootstrap intervals)")
    for column in ("split", "readout", "n", "F1", "95% interval", "precision", "recall"):
        table.add_column(column, no_wrap=True)
    table.add_column("yes-rate", no_wrap=True)
    table.add_column("accuracy", no_wrap=True)
    splits = summary.get("splits", {})
    groups = {"all": summary, **splits} if len(splits) > 1 else splits
    for split, group in groups.items():
        for name, r in group["readouts"].items():
            if "f1" not in r:
                table.add_row(split, name, "0", "undecided", "", "", "", "", "")
                continue
            low, high = r["f1_ci"]
            table.add_row(
                split,
                name,
                str(r["n"]),
                f"{r['f1']:.4f}",
                f"[{low:.4f}, {high:.4f}]",
                f"{r['precision']:.4f}",
                f"{r['recall']:.4f}",
                f"{r['yes_rate']:.3f}",
                f"{r['accuracy']:.3f}",
            )
    return table


def first_tokens_table(summary: dict[str, Any]) -> Table:
    """What the model actually writes first after its template, and whether the sets hold it."""
    sets = summary.get("token_sets") or []
    in_sets = {entry["id"] for s in sets for entry in (*s["yes"], *s["no"])}
    table = new_table(title="First generated tokens (the ids the model actually emits)")
    for column in ("token id", "token", "count", "in yes/no sets"):
        table.add_column(column, no_wrap=True)
    strings = summary.get("first_token_strings", {})
    for token, count in summary.get("emitted_first_tokens", {}).items():
        table.add_row(
            token,
            repr(strings.get(token, "")),
            str(count),
            "yes" if int(token) in in_sets else "NO",
        )
    return table


def closed_form_table(summary: dict[str, Any]) -> Table:
    """Seed 002's closed-form F1 of each readout from its transitions off the dynamic readout."""
    table = new_table(title="Closed-form reconstruction (reference: dynamic)")
    for column in ("split", "readout", "T", "G", "rho_N", "phi", "kappa_P", "kappa_N"):
        table.add_column(column, no_wrap=True)
    table.add_column("F1 closed form", no_wrap=True)
    table.add_column("F1 observed", no_wrap=True)
    for split, group in summary.get("splits", {}).items():
        for name, c in group.get("closed_form", {}).items():
            if not c.get("n"):
                continue
            table.add_row(
                split,
                name,
                str(c["T"]),
                str(c["G"]),
                f"{c['rho_n']:.3f}",
                f"{c['phi']:.3f}",
                f"{c['kappa_p']:.3f}",
                f"{c['kappa_n']:.3f}",
                f"{c['f1_closed_form']:.4f}",
                f"{c['f1_observed']:.4f}",
            )
    return table


def print_yesno_audit(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print the diagnostic, the token sets, per-readout metrics, the closed form and checks."""
    console = wide_console(console or Console())
    diagnostic = summary.get("diagnostic")
    if diagnostic:
        outside = ", ".join(
            f"{t} {v['token']!r} ×{v['count']}" for t, v in diagnostic["outside_sets"].items()
        )
        console.print(
            f"Diagnostic (Algorithm 1) on {diagnostic['sample']} questions: argmax outside the "
            f"sets: {outside or 'none'}"
        )
    for entry in summary.get("token_sets", []):
        yes = ", ".join(f"{e['id']} {e['form']!r}" for e in entry["yes"])
        no = ", ".join(f"{e['id']} {e['form']!r}" for e in entry["no"])
        multi = ", ".join(repr(f) for f in entry["multi_token_forms"]) or "none"
        console.print(
            f"Token sets ({entry['n_items']} items): yes {{{yes}}}  no {{{no}}}  "
            f"multi-token forms: {multi}"
        )
    console.print(first_tokens_table(summary))
    console.print(readouts_table(summary))
    console.print(closed_form_table(summary))
    console.print(checks_table(summary["checks"]))
