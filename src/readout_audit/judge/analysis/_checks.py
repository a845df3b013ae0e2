"""Checks of a judge run, with verdicts: control gates, missing outcomes, local label mass."""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.judge.analysis._chronology import Chronology
from readout_audit.judge.analysis._contrasts import StudyGate
from readout_audit.judge.analysis._coverage import Coverage
from readout_audit.judge.analysis._decomposition import DecompositionAnalysis
from readout_audit.judge.analysis._descriptives import LabelMass
from readout_audit.judge.analysis._gates import Gate
from readout_audit.judge.analysis._summary import JudgeSummary
from readout_audit.log import Check


def gate_check(gate: Gate) -> Check:
    """A gate's pass or fail, with each control's right / planned against what it needs."""
    counts = ", ".join(f"{c.cell} {c.right}/{c.planned} (≥ {c.required})" for c in gate.controls)
    if gate.phase == "preflight":
        counts += f"; unparsed {gate.n_unparsed}"
    evidence = {
        "controls": {c.cell: [c.right, c.planned, c.required] for c in gate.controls},
        "unparsed": gate.n_unparsed,
    }
    name = f"gate[{gate.phase}:{gate.configuration}:{gate.presentation}]"
    if gate.passed:
        return Check(name, "pass", counts, evidence)
    consequence = (
        "the configuration is skipped: p = 1 holds its primary and secondary slots"
        if gate.phase == "preflight"
        else "the configuration is not competent: its primary test cannot succeed"
    )
    return Check(
        name,
        "fail",
        f"{counts}; {consequence}",
        evidence,
        repair="a judge that misgrades the unambiguous controls cannot be read on the cue cells",
    )


def study_gate_check(study: str, configuration: str, gates: Sequence[StudyGate]) -> Check:
    """A study configuration's clean controls: every one passed, or its tests are unqualified."""
    counts = ", ".join(f"{g.cell} {g.right}/{g.planned} (≥ {g.required})" for g in gates)
    evidence = {g.cell: [g.right, g.planned, g.required] for g in gates}
    name = f"gate[{study}:{configuration}]"
    failed = [g.cell for g in gates if not g.passed]
    if not failed:
        return Check(name, "pass", counts, evidence)
    return Check(
        name,
        "fail",
        f"{counts}; {len(failed)} of {len(gates)} clean controls failed ({', '.join(failed)}): "
        "the configuration's tests are unqualified, whatever their p-values",
        evidence,
        repair="a judge that misgrades the unambiguous controls cannot be read on the cue cells",
    )


def study_gate_checks(summary: JudgeSummary) -> list[Check]:
    """One check per configuration a study run graded, over its clean-control gates."""
    found = summary.study_result
    if found is None or isinstance(found, DecompositionAnalysis):  # the decomposition has none
        return []
    by_configuration: dict[str, list[StudyGate]] = {}
    for gate in found.gates:
        by_configuration.setdefault(gate.configuration, []).append(gate)
    return [
        study_gate_check(found.study, configuration, gates)
        for configuration, gates in by_configuration.items()
    ]


def outcome_check(summary: JudgeSummary) -> Check:
    """Planned requests without a verdict: counted against gates, bounded, never guessed."""
    missing = {k: n for k, n in summary.outcomes.items() if k != "completed"}
    total = sum(summary.outcomes.values())
    if not sum(missing.values()):
        return Check("outcomes", "pass", f"all {total} planned requests returned a verdict")
    listed = ", ".join(f"{k} {n}" for k, n in missing.items())
    return Check(
        "outcomes",
        "warn",
        f"{sum(missing.values())} of {total} planned requests have no verdict ({listed}): they "
        "count against the gates, leave their sources out of complete-source tests and widen "
        "the missingness bounds",
        missing,
        repair="unknown outcomes are never resent; report the bounds alongside the estimates",
    )


def mass_check(mass: LabelMass) -> Check:
    """A local judge whose labels hold less than the floor of next-token mass is flagged."""
    name = f"label_mass[{mass.configuration}]"
    evidence = {
        "median": mass.median,
        "min": mass.min,
        "below_floor": mass.n_below_floor,
        "measured": mass.n_measured,
        "floor": mass.floor,
    }
    where = f"median {mass.median:.3g}, min {mass.min:.3g} over {mass.n_measured} records"
    if not mass.n_below_floor:
        return Check(name, "pass", f"labels hold ≥ {mass.floor} of the mass: {where}", evidence)
    collapse = " (median below the floor: collapse)" if (mass.median or 0) < mass.floor else ""
    return Check(
        name,
        "warn",
        f"{mass.n_below_floor} of {mass.n_measured} records ({mass.share_below:.1%}) have "
        f"label mass below {mass.floor}{collapse}; {where}",
        evidence,
        repair="the judge's labels are not what it would say next; its verdicts are argmaxes "
        "of a small share of its probability (see the constrained-option audit's checks)",
    )


def coverage_check(coverage: Coverage) -> Check:
    """The records against the plan: any planned request without a record, or the reverse."""
    evidence = coverage.model_dump()
    if not coverage.n_missing and not coverage.n_unplanned and not coverage.short:
        return Check(
            "planned",
            "pass",
            f"every one of {coverage.n_planned} planned requests has a record",
            evidence,
        )
    parts = []
    if coverage.n_missing:
        parts.append(
            f"{coverage.n_missing} of {coverage.n_planned} planned requests have no record "
            f"(e.g. {', '.join(coverage.missing[:3])}): each counts as unknown in every "
            "denominator"
        )
    if coverage.short:
        parts.append(
            f"the kept plan disagrees with the inventory ({'; '.join(coverage.short)}): a "
            "request missing from both the plan and the records is in no denominator"
        )
    if coverage.n_unplanned:
        parts.append(
            f"{coverage.n_unplanned} records of requests the run never planned "
            f"(e.g. {', '.join(coverage.unplanned[:3])})"
        )
    return Check(
        "planned",
        "fail",
        "; ".join(parts),
        evidence,
        repair="rerun the phase to record the missing requests; a record the plan does not "
        "hold, or a plan smaller than the inventory, means the run directory was altered",
    )


def amendment_check(amended: dict[str, str]) -> Check:
    """Requests sent again under a protocol amendment: reported, never counted."""
    reasons = sorted(set(amended.values()))
    return Check(
        "amendment",
        "warn",
        f"{len(amended)} requests were sent again under a protocol amendment "
        f"({'; '.join(reasons)}): their records are reported, and analysed as unknown in the "
        "gates and both families",
        {"amended": amended},
        repair="a call of unknown outcome may have been processed twice; the frozen tests read "
        "first attempts only",
    )


def chronology_check(balance: Chronology) -> Check:
    """Every primary cell in every equal-call quartile of the stream's send order."""
    evidence = {"n_sent": balance.n_sent, "counts": balance.counts, "missing": balance.missing}
    if balance.balanced:
        return Check(
            "chronology",
            "pass",
            f"every primary cue/presentation cell occurs in each of the 4 equal-call quartiles "
            f"of the {balance.n_sent} confirmation requests' send order",
            evidence,
        )
    return Check(
        "chronology",
        "warn",
        f"{len(balance.missing)} quartile cells hold no request of a primary cell "
        f"({', '.join(balance.missing[:3])}): a drift of the service over the run could fall "
        "on one condition",
        evidence,
        repair="send the inventory's interleaved order in one stream (one judge run)",
    )


def judge_checks(summary: JudgeSummary) -> list[Check]:
    """The plan's coverage, amendments, the stream's balance, gates, outcomes, label mass."""
    found = [coverage_check(summary.coverage)] if summary.coverage is not None else []
    if summary.amended:
        found.append(amendment_check(summary.amended))
    if summary.chronology is not None:
        found.append(chronology_check(summary.chronology))
    found += [gate_check(g) for g in summary.gates]
    found += study_gate_checks(summary)
    if summary.outcomes:
        found.append(outcome_check(summary))
    found += [mass_check(m) for m in summary.label_mass if m.n_measured]
    return found
