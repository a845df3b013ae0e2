"""A recovery run's checks: clean candidates, slot mass, collapse, truncation, grid and seeds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from readout_audit.data import LABELS
from readout_audit.log import Check, Verdict
from readout_audit.readout import MASS_FLOOR
from readout_audit.recover._offsets import MAX_CANDIDATES, OffsetGrid
from readout_audit.recover._record import RecoverRecord
from readout_audit.recover._summary import ConfigurationResult
from readout_audit.recover._tables import Table

Share = tuple[float, str, np.ndarray]
"""A configuration's most-predicted label on the fit split: its share, its name, the histogram."""


def recover_checks(
    records: Sequence[RecoverRecord],
    names: Sequence[str],
    threshold: float,
    train_overlap: Mapping[str, int] | None = None,
) -> list[Check]:
    """Label-free checks: clean candidates, their mass at the slot, string-score collapse.

    With ``train_overlap``, a warning names the held-out items the probes were trained on.
    """
    shares = _fit_shares(records, names)
    return [
        _candidate_check(records),
        *_mass_check(records, names),
        *_collapse_check(shares, names, threshold),
        *_truncation_check(records),
        *_overlap_check(train_overlap),
        *_spread_check(shares, threshold),
    ]


def _candidate_check(records: Sequence[RecoverRecord]) -> Check:
    """Every candidate continues the slot cleanly with a first token of its own."""
    broken = [r for r in records if not r.boundary_preserved or r.distinct_first_tokens is False]
    return Check(
        "candidates",
        "fail" if broken else "pass",
        f"{len(broken)} record(s) with a candidate that does not continue the slot "
        "cleanly or shares its first token"
        if broken
        else "every candidate continues the slot with its own first token",
        {"n_broken": len(broken), "examples": [r.item_id for r in broken[:5]]},
        "Change the verbalizer or the slot's last characters." if broken else None,
    )


def _mass_check(records: Sequence[RecoverRecord], names: Sequence[str]) -> list[Check]:
    """The main configuration's median candidate mass at the slot, against the floor."""
    main = [r for r in records if names and r.variant == names[0]]
    masses = [r.option_mass for r in main if r.option_mass is not None]
    if not masses:
        return []
    median = float(np.median(masses))
    return [
        Check(
            "label_mass",
            "fail" if median < MASS_FLOOR else "pass",
            f"{names[0]}: the candidates' first tokens hold a median {median:.3g} of the "
            "slot's next-token probability",
            {"median_mass": median, "floor": MASS_FLOOR},
            "The model is about to write something else: check the slot's rendering."
            if median < MASS_FLOOR
            else None,
        )
    ]


def _fit_shares(records: Sequence[RecoverRecord], names: Sequence[str]) -> dict[str, Share]:
    """Per configuration with fit rows, the full string score's most-predicted label there."""
    shares: dict[str, Share] = {}
    for name in names:
        table = Table.of([r for r in records if r.variant == name and r.role == "fit"])
        if len(table.records):
            hist = np.bincount(np.argmax(table.sums, axis=1), minlength=len(LABELS))
            shares[name] = (float(hist.max() / hist.sum()), LABELS[int(hist.argmax())], hist)
    return shares


def _collapse_check(
    shares: Mapping[str, Share], names: Sequence[str], threshold: float
) -> list[Check]:
    """Whether the main configuration's string score puts the fit split on one label."""
    if not names or names[0] not in shares:
        return []
    share, label, hist = shares[names[0]]
    verdict: Verdict = "fail" if share >= threshold else "warn" if share >= 0.5 else "pass"
    return [
        Check(
            "collapse",
            verdict,
            f"{names[0]}: the full string score predicts {label!r} for {share:.1%} of the "
            "unlabelled fit split",
            {
                "histogram": dict(zip(LABELS, hist.tolist(), strict=True)),
                "share": share,
                "threshold": threshold,
            },
            "Read the held-out recovery: a label-free offset may expose the ranking."
            if verdict != "pass"
            else None,
        )
    ]


def _truncation_check(records: Sequence[RecoverRecord]) -> list[Check]:
    """Records that lost the start of their context to the token limit, per split."""
    cut = [r for r in records if r.truncated_words]
    if not cut:
        return []
    per_split = {
        split: sum(r.split == split for r in cut) for split in dict.fromkeys(r.split for r in cut)
    }
    return [
        Check(
            "truncation",
            "warn",
            f"{len(cut)} record(s) lost the start of their context to fit the token limit "
            f"(at most {max(r.truncated_words for r in cut)} words): "
            + ", ".join(f"{split} {n}" for split, n in per_split.items()),
            {"per_split": per_split, "examples": [r.item_id for r in cut[:5]]},
            "Their readouts read the shortened items: raise --max-tokens to keep them whole.",
        )
    ]


def _overlap_check(train_overlap: Mapping[str, int] | None) -> list[Check]:
    """Held-out items the probes were trained on, per split."""
    if not train_overlap:
        return []
    return [
        Check(
            "probe_overlap",
            "warn",
            "held-out items the probes were trained on: "
            + ", ".join(f"{name} {n}" for name, n in train_overlap.items()),
            dict(train_overlap),
            "Probe accuracy on those splits is not held out: train on a disjoint split.",
        )
    ]


def _spread_check(shares: Mapping[str, Share], threshold: float) -> list[Check]:
    """How many of several configurations collapse: one wording's, or every wording's."""
    if len(shares) <= 1:
        return []
    collapsed = [n for n, (share, _, _) in shares.items() if share >= threshold]
    return [
        Check(
            "collapse_across_configurations",
            "warn" if collapsed else "pass",
            f"{len(collapsed)} of {len(shares)} prompt/verbalizer configurations collapse "
            f"(one label ≥ {threshold:.0%} of the fit split)",
            {"n_collapsed": len(collapsed), "n": len(shares), "threshold": threshold},
            "The collapse is not one wording's: read the per-configuration table."
            if collapsed
            else None,
        )
    ]


def grid_checks(results: Sequence[ConfigurationResult], asked: OffsetGrid) -> list[Check]:
    """Offset fits the grid bound (an edge, a label out of reach): widened, or still bound."""
    wider = [r for r in results if r.offset_grid != (asked.low, asked.high)]
    edge = [r for r in results if r.offsets_pinned]
    if not wider and not edge:
        return []
    where = "; ".join(
        f"{r.configuration}: [{r.offset_grid[0]:g}, {r.offset_grid[1]:g}]"
        + (f" (still bound: {_unwidened(r.offset_grid, asked.step)})" if r.offsets_pinned else "")
        for r in [*wider, *(r for r in edge if r not in wider)]
    )
    return [
        Check(
            "offset_grid",
            "warn",
            f"the offset grid [{asked.low:g}, {asked.high:g}] bound a fit (an offset on its edge, "
            f"or a label that no offsets on it let win a row); searched: {where}",
            {r.configuration: list(r.offset_grid) for r in [*wider, *edge]},
            "The grid was too narrow for the fit: its span was doubled about its centre while "
            "it bound the fit. A fit still bound stopped at the widest grid the search allows; "
            "a coarser --grid step reaches further.",
        )
    ]


def _unwidened(span: tuple[float, float], step: float) -> str:
    """Why a grid that still binds was not doubled again."""
    if OffsetGrid(*span, step).size == 1:
        return "a grid of one value cannot widen"
    return f"doubling it would exceed {MAX_CANDIDATES:,} offset vectors"


def seed_checks(results: Sequence[ConfigurationResult]) -> list[Check]:
    """Probes whose seeds all got the same examples right: their spread is not a spread."""
    agree = sorted(
        {
            f"{split.split}: {r.readout}"
            for c in results
            for split in c.splits
            for r in split.readouts
            if r.seeds_agree
        }
    )
    if not agree:
        return []
    return [
        Check(
            "probe_seeds",
            "warn",
            f"every probe seed got the same examples right on {len(agree)} split/readout(s) "
            f"({'; '.join(agree[:3])}): their sd of 0 measures nothing about seeds",
            {"agree": agree},
            "Give more training rows than the probe takes, or more distinct seeds.",
        )
    ]
