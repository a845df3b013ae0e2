"""Appendix A's toy cases: a built-in check that the scorer and scaffold behave as the paper says.

The true target ``Z = X + A + B`` is scored after an exact, a reordered and a wrong-symbol
forecast, after a one-sentence context with no forecast, and after the empty scaffold; the
scored targets omit the closing delimiter. The exact forecast should score near the maximum
and beat the empty scaffold and the context-only condition.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from readout_audit.lift._conditions import CONTEXT, EMPTY, FORECAST, LiftSetup
from readout_audit.lift._cut import Cut, sha256_text
from readout_audit.lift._record import LiftRecord
from readout_audit.lift._rules import score_tokens
from readout_audit.lift._score import cut_jobs
from readout_audit.log import Check
from readout_audit.model import ScoringModel, TextCodec

TOY_CONTEXT = "Here are some equations involving some sums."
TOY_SETUP = LiftSetup(multipliers=(1,), oracle=False, closing=False)
EXACT_FLOOR = -0.10
"""An exact forecast below this clipLL_2 means a weakly copying scorer (the paper's 8B scorers
reach about −0.01; −0.10 is its section 6 threshold for a forecast near the maximum)."""
ORDER = ("context", "exact", "reordered", "wrong-symbol", "empty")
"""Table 1's conditions, in its order."""


@dataclass(frozen=True)
class ToyCase:
    """One target with its three forecasts."""

    target: str
    reordered: str
    wrong: str = " X + Y"
    lhs: str = "Z ="


TOY_CASES = (
    ToyCase(" X + A + B", " X + B + A"),
    ToyCase(" X + B + A", " X + A + B"),
    ToyCase(" X + A B", " X + B A"),
    ToyCase(" X + B A", " X + A B"),
)
"""The addition cases of Table 1 and the juxtaposed-product cases the paper ran and omitted."""


class ToyRow(BaseModel):
    """One case under one condition (Table 1's row)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    case: str
    condition: str
    raw: float
    clip2: float
    vs_empty: float
    """clipLL_2 minus the empty scaffold's."""
    recovery: float | None = None
    """The scorer's probability of the true token at the recovery point (Table 2): where the
    target shows the symbol the reordered forecast put first, e.g. B after ``X + A +``."""


def toy_cut(case: ToyCase) -> Cut:
    """The case as an equation cut: an ``equation`` display with prefix ``Z =``."""
    name = f"Z ={case.target}".replace(" ", "")
    return Cut(
        id=f"toy:{name}",
        kind="equation",
        paper="toy",
        key=name,
        source="appendix A",
        paper_sha256=sha256_text(TOY_CONTEXT),
        env="equation",
        opening="\\begin{equation}",
        closing="\\end{equation}",
        operator="=",
        display_start=len(TOY_CONTEXT),
        cut_offset=len(TOY_CONTEXT),
        target_end=len(TOY_CONTEXT),
        context=TOY_CONTEXT,
        prefix=case.lhs,
        target=case.target,
        target_sha256=sha256_text(case.target),
    )


def recovery_token(target: str, reordered: str, ends: Sequence[int]) -> int | None:
    """The target token at the recovery point, from each target token's end in characters.

    The reordered forecast first differs from the target at some symbol s (B in ``X + B + A``
    against ``X + A + B``); the recovery point is where the target itself reaches s, after the
    mismatch. None when the two never differ or s never follows.
    """
    first = next(
        (i for i, (a, b) in enumerate(zip(target, reordered, strict=False)) if a != b), None
    )
    if first is None:
        return None
    at = target.find(reordered[first], first + 1)
    if at < 0:
        return None
    return next((k for k, end in enumerate(ends) if at < end), None)


def recovery_probability(record: LiftRecord, case: ToyCase, codec: TextCodec) -> float | None:
    """Exp of the record's log-probability at the case's recovery token (Table 2)."""
    ids = record.target_token_ids
    ends = [len(codec.decode(ids[: k + 1])) for k in range(len(ids))]
    k = recovery_token(case.target, case.reordered, ends)
    return None if k is None else math.exp(record.target_logprobs[k])


def _condition(variant: str) -> str:
    if variant == CONTEXT:
        return "context"
    return variant.removeprefix(FORECAST)


def toy_rows(
    model: ScoringModel, cases: tuple[ToyCase, ...] = TOY_CASES, *, bos: bool = False
) -> list[ToyRow]:
    """Every case under the five conditions, scored by ``model`` (prompts opened with BOS)."""
    setup = dataclasses.replace(TOY_SETUP, bos=bos)
    rows = []
    for case in cases:
        cut = toy_cut(case)
        forecasts = {"exact": case.target, "reordered": case.reordered, "wrong-symbol": case.wrong}
        jobs = cut_jobs(cut, forecasts, setup, model.codec)
        answers = model.score_positions([job.request for job in jobs])
        records: list[LiftRecord] = [
            job.payload(model, scores=s) for job, s in zip(jobs, answers, strict=True)
        ]
        scores = {
            _condition(r.variant): (
                score_tokens(r.target_logprobs, "raw").score,
                score_tokens(r.target_logprobs, "clip2").score,
                recovery_probability(r, case, model.codec),
            )
            for r in records
        }
        empty = scores[EMPTY][1]
        rows += [
            ToyRow(
                case=cut.key,
                condition=name,
                raw=scores[name][0],
                clip2=scores[name][1],
                vs_empty=scores[name][1] - empty,
                recovery=scores[name][2],
            )
            for name in ORDER
        ]
    return rows


def toy_check(rows: list[ToyRow]) -> Check:
    """Does the scaffold make the scorer copy? Appendix A's expectations, under clipLL_2.

    Fail when an exact forecast does not beat both the empty scaffold and the context-only
    condition; warn when it beats them but stays below ``EXACT_FLOOR`` (a scorer that copies
    weakly, so every lift it reports is compressed); pass otherwise.
    """
    beaten, weak = [], []
    for case in dict.fromkeys(r.case for r in rows):
        by = {r.condition: r.clip2 for r in rows if r.case == case}
        top = by["exact"]
        if not (top > by["empty"] and top > by["context"]):
            beaten.append(
                f"{case} (exact {top:.3f}, empty {by['empty']:.3f}, context {by['context']:.3f})"
            )
        elif top < EXACT_FLOOR:
            weak.append(f"{case} ({top:.3f})")
    exact = [r.clip2 for r in rows if r.condition == "exact"]
    ordered = sum(
        r.clip2 > w.clip2
        for r in rows
        if r.condition == "reordered"
        for w in rows
        if w.case == r.case and w.condition == "wrong-symbol"
    )
    evidence = {
        "exact_clip2_min": min(exact),
        "cases": len(exact),
        "reordered_above_wrong_symbol": int(ordered),
        "beaten": beaten,
        "weak": weak,
    }
    if beaten:
        return Check(
            "toy_scaffold",
            "fail",
            f"the exact forecast does not beat the controls in {len(beaten)} case(s): "
            + "; ".join(beaten),
            evidence,
            repair="a scorer that does not copy the first equation cannot reward forecasts; "
            "check the scaffold's rendering and the scorer's tokenisation of TeX",
        )
    if weak:
        return Check(
            "toy_scaffold",
            "warn",
            f"the exact forecast beats the controls in all {len(exact)} cases but scores only "
            f"{min(exact):.3f} to {max(exact):.3f} (clipLL_2; the paper's 8B scorers about "
            "−0.01): this scorer copies weakly, so lifts are compressed",
            evidence,
            repair="prefer a stronger scorer for comparisons between predictors",
        )
    return Check(
        "toy_scaffold",
        "pass",
        f"the exact forecast scores ≥ {min(exact):.3f} (clipLL_2) and beats the empty scaffold "
        f"and the context-only condition in all {len(exact)} cases",
        evidence,
    )


def toy_table(rows: list[ToyRow]) -> str:
    """The rows as ``readout lift toy`` prints them, then the check's verdict and finding."""
    lines = [
        f"{'case':<9} {'condition':<13} {'raw':>7} {'clipLL_2':>9} {'vs. empty':>10} "
        f"{'P(recovery)':>12}"
    ]
    for r in rows:
        recovery = "–" if r.recovery is None else f"{r.recovery:.3f}"
        lines.append(
            f"{r.case:<9} {r.condition:<13} {r.raw:>7.3f} {r.clip2:>9.3f} {r.vs_empty:>+10.3f} "
            f"{recovery:>12}"
        )
    check = toy_check(rows)
    return "\n".join([*lines, f"{check.verdict.upper()}: {check.finding}"])
