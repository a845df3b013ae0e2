"""Label-free checks of a constrained-option readout, each with a verdict, evidence and repair."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from readout_audit.log import Check, Verdict
from readout_audit.options._record import OptionsRecord
from readout_audit.readout import MASS_FLOOR


def _rate(flags: Sequence[bool]) -> float:
    return float(np.mean(flags)) if flags else 0.0


def variant_summary(records: Sequence[OptionsRecord]) -> dict[str, Any]:
    """Mass, letter and option-argmax rates and classes of one variant's records."""
    masses = np.array([r.option_mass for r in records if r.option_mass is not None])
    isolated = [r.isolated_mass for r in records if r.isolated_mass is not None]
    return {
        "n": len(records),
        "median_mass": float(np.median(masses)) if masses.size else None,
        "min_mass": float(masses.min()) if masses.size else None,
        "below_floor": int((masses < MASS_FLOOR).sum()),
        "n_mass_measured": int(masses.size),
        "letter_rate": _rate([r.letter_pull for r in records]),
        "option_argmax_rate": _rate([r.argmax_class == "option" for r in records]),
        "n_argmax_off_options": sum(
            r.boundary_preserved and not r.argmax_is_option for r in records
        ),
        "median_isolated_mass": float(np.median(isolated)) if isolated else None,
        "argmax_classes": dict(Counter(r.argmax_class for r in records)),
        "continuation_classes": dict(Counter(r.continuation_class for r in records)),
        "n_answer_then_option": sum(r.answer_then_option for r in records),
        "n_option_anywhere": sum(r.option_anywhere for r in records),
        "n_letter_anywhere": sum(r.letter_anywhere for r in records),
        "n_shared_first_tokens": sum(r.distinct_first_tokens is False for r in records),
        "n_boundary_not_preserved": sum(not r.boundary_preserved for r in records),
        "endings": dict(Counter(r.ending for r in records)),
        "n_mass_argmax_disagree": sum(bool(r.mass_argmax_disagree) for r in records),
        "n_readout_disagreements": sum(not r.readouts_agree for r in records),
        "readout_disagreements": [r.item_id for r in records if not r.readouts_agree],
    }


def check_mass(records: Sequence[OptionsRecord], where: str) -> Check:
    """Check 1: do the declared options hold the scored position's probability?"""
    s = variant_summary(records)
    evidence = {k: s[k] for k in ("median_mass", "min_mass", "below_floor", "n_mass_measured")}
    evidence["floor"] = MASS_FLOOR
    if s["median_mass"] is None:
        return Check(
            "option_mass",
            "fail",
            f"{where}: no option mass is measurable (every boundary is broken)",
            evidence,
            "Fix the boundary (check 5).",
        )
    measured = [r for r in records if r.option_mass is not None]
    if measured and all(r.distinct_first_tokens is False for r in measured):
        return Check(
            "option_mass",
            "fail",
            f"{where}: the options share their first token on every item, so the mass "
            f"(median {s['median_mass']:.3g}) is that token's and separates no option",
            evidence,
            "Read where the options' first tokens differ (check 4).",
        )
    if s["median_mass"] < MASS_FLOOR:
        return Check(
            "option_mass",
            "fail",
            f"{where}: collapse, the options hold a median "
            f"{s['median_mass']:.3g} of the next-token probability over the "
            f"{s['n_mass_measured']} items with a measured mass",
            evidence,
            "Prefill an answer stem (check 6) or remove what pulls the position away.",
        )
    if s["below_floor"]:
        return Check(
            "option_mass",
            "warn",
            f"{where}: median {s['median_mass']:.3g}, but {s['below_floor']} of the "
            f"{s['n_mass_measured']} items with a measured mass fall below the floor",
            evidence,
            "Inspect the items below the floor.",
        )
    return Check(
        "option_mass",
        "pass",
        f"{where}: every item's options hold at least half of the probability",
        evidence,
    )


def check_argmax(records: Sequence[OptionsRecord], where: str) -> Check:
    """Check 2: is the unrestricted argmax one of the options' first tokens?"""
    s = variant_summary(records)
    evidence = {k: s[k] for k in ("option_argmax_rate", "letter_rate", "argmax_classes")}
    if s["letter_rate"] >= 0.5:
        return Check(
            "argmax",
            "fail",
            f"{where}: letter pull, an answer letter of the quoted item "
            f"is the argmax on {s['letter_rate']:.0%} of items",
            evidence,
            "Delete or fence the quoted item's own instruction, or prefill a stem.",
        )
    if s["option_argmax_rate"] < 0.5:
        top = max(s["argmax_classes"], key=s["argmax_classes"].get)
        return Check(
            "argmax",
            "fail",
            f"{where}: an option is the argmax on only "
            f"{s['option_argmax_rate']:.0%} of items; most often it is {top}",
            evidence,
            "Prefill an answer stem that leads into the options.",
        )
    if s["option_argmax_rate"] < 1:
        return Check(
            "argmax",
            "warn",
            f"{where}: an option is the argmax on {s['option_argmax_rate']:.0%} of items",
            evidence,
        )
    return Check("argmax", "pass", f"{where}: an option is the argmax on every item", evidence)


def check_continuation(records: Sequence[OptionsRecord], where: str) -> Check:
    """Check 3: what does the model write first when left unconstrained?"""
    classes = Counter(r.continuation_class for r in records)
    evidence: dict[str, Any] = {
        "continuation_classes": dict(classes),
        "examples": {r.item_id: r.greedy.text[:80] for r in records[:3]},
    }
    share = classes["gives_option"] / len(records)
    quoted = classes["answers_item"] + classes["recites_options"]
    if quoted / len(records) >= 0.5:
        return Check(
            "continuation",
            "fail",
            f"{where}: the model turns to the quoted item first on {quoted} of {len(records)} "
            f"items (answers it on {classes['answers_item']}, recites its options on "
            f"{classes['recites_options']})",
            evidence,
            "Delete or fence the quoted item's instruction, or prefill a stem.",
        )
    if share < 0.5:
        return Check(
            "continuation",
            "warn",
            f"{where}: the continuation opens with a declared option on only {share:.0%} of items",
            evidence,
            "Read the continuations; prefill a stem that leads into the options.",
        )
    return Check(
        "continuation",
        "pass",
        f"{where}: the continuation opens with a declared option on {share:.0%} of items",
        evidence,
    )


def check_first_tokens(records: Sequence[OptionsRecord], where: str) -> Check:
    """Check 4: are the options separable by their first tokens in context?"""
    shared = [r for r in records if r.distinct_first_tokens is False]
    evidence = {"n_shared": len(shared), "items": [r.item_id for r in shared[:10]]}
    if shared:
        return Check(
            "first_tokens",
            "fail",
            f"{where}: options share a first token on "
            f"{len(shared)} of {len(records)} items, so first-token readouts cannot "
            "separate them, even at high mass",
            evidence,
            "Change the option strings so their first tokens differ in context, or "
            "score full options.",
        )
    return Check(
        "first_tokens", "pass", f"{where}: the options' first tokens are distinct", evidence
    )


SEPARATOR_LIFT = 0.1
"""Smallest rise of the median mass, on top of doubling it, that marks an omitted separator."""


def separator_lift(base: float, spaced: float) -> bool:
    """Whether appending a space lifts the median mass materially.

    Across the floor, or by at least ``SEPARATOR_LIFT`` while at least doubling it: the paper's
    falcon case rises from 0.03 to 0.38 without reaching the floor and still omits a separator.
    """
    crosses = spaced >= MASS_FLOOR > base
    return crosses or (spaced - base >= SEPARATOR_LIFT and spaced >= 2 * base)


def check_ending(
    records: Sequence[OptionsRecord], spaced: Sequence[OptionsRecord] | None, where: str
) -> Check:
    """Check 5: does the rendered ending supply the separator the options need?"""
    s = variant_summary(records)
    evidence: dict[str, Any] = {
        "endings": s["endings"],
        "median_mass": s["median_mass"],
        "n_boundary_not_preserved": s["n_boundary_not_preserved"],
    }
    if s["n_boundary_not_preserved"]:
        return Check(
            "ending",
            "fail",
            f"{where}: the options merge with the rendered ending on "
            f"{s['n_boundary_not_preserved']} items (no mass is measurable there)",
            evidence,
            "Remove the trailing whitespace or move it into the options.",
        )
    if spaced:
        spaced_median = variant_summary(spaced)["median_mass"]
        evidence["space_appended_median_mass"] = spaced_median
        base = s["median_mass"] or 0.0
        if separator_lift(base, spaced_median or 0.0):
            return Check(
                "ending",
                "fail",
                f"{where}: the ending omits the separator: appending "
                f"a space lifts the median mass from {base:.3g} to {spaced_median:.3g}",
                evidence,
                "Append the separator the chat template omits.",
            )
    # an option that opens with whitespace brings its own separator (lm-eval's " A")
    unseparated = [
        r for r in records if r.ending == "none" and not all(o[:1].isspace() for o in r.options)
    ]
    if len(unseparated) > len(records) / 2:
        tested = spaced is not None and len(spaced) > 0
        return Check(
            "ending",
            "warn",
            f"{where}: the rendered context ends without a separator"
            + (
                ", and appending a space does not lift the mass materially"
                if tested
                else "; run the space_appended rung to test whether it omits one"
            ),
            evidence,
        )
    return Check(
        "ending", "pass", f"{where}: the rendered ending does not limit the options", evidence
    )


def _checks_at(
    records: Sequence[OptionsRecord], spaced: Sequence[OptionsRecord] | None, where: str
) -> list[Check]:
    return [
        check_mass(records, where),
        check_argmax(records, where),
        check_continuation(records, where),
        check_first_tokens(records, where),
        check_ending(records, spaced, where),
    ]


VERDICT_RUNGS = ("production", "stem", "space_appended")
"""The rungs the checks read (the quick ladder): the original position, the answer stem, and
the space that tests whether the rendering omits a separator."""


def options_checks(
    by_variant: Mapping[str, Sequence[OptionsRecord]], label: str | None = None
) -> list[Check]:
    """Checks 1–5 at the original position, and check 6: what the answer stem repairs.

    ``label`` names what the records are (a task) in every finding.
    """
    base = by_variant.get("production")
    if not base:
        return []
    lead = f"{label}, " if label else ""
    checks = _checks_at(base, by_variant.get("space_appended"), f"{lead}original position")
    stemmed = by_variant.get("stem")
    if stemmed:
        after = _checks_at(stemmed, None, f"{lead}with the answer stem")
        repaired = [
            b.name
            for b, a in zip(checks, after, strict=True)
            if b.verdict != "pass" and a.verdict == "pass"
        ]
        still = [a.name for a in after if a.verdict == "fail"]
        evidence = {
            "repaired": repaired,
            "still_failing": still,
            "after_stem": {a.name: a.verdict for a in after},
            "median_mass_after_stem": variant_summary(stemmed)["median_mass"],
        }
        verdict: Verdict = "pass" if not still else ("warn" if repaired else "fail")
        finding = f"{lead}the answer stem repairs {', '.join(repaired) or 'nothing'}" + (
            f"; still failing: {', '.join(still)}" if still else ""
        )
        checks.append(
            Check(
                "stem",
                verdict,
                finding,
                evidence,
                None if not still else "Try another stem, or fix the failing checks.",
            )
        )
    return checks
