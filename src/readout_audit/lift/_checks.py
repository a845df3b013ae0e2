"""Checks of a lift run, with verdicts: does the scaffold copy, do forecasts carry information?"""

from __future__ import annotations

from readout_audit.lift._conditions import CONTEXT, EMPTY, ORACLE, SFT
from readout_audit.lift._lift_stats import Contrast
from readout_audit.lift._summary import LiftSummary
from readout_audit.lift._toy import toy_check
from readout_audit.log import Check


def _interval(c: Contrast) -> str:
    spread = "no SE from one paper" if c.se is None else f"± {2 * c.se:.3f} (2 SE)"
    return f"{c.mean:+.3f} {spread}, {c.n_cuts} cuts, {c.n_papers} papers"


def _above_zero(c: Contrast) -> bool:
    """The ±2 SE interval lies above 0 (a single paper's mean must simply be positive)."""
    return c.mean > 0 if c.low is None else c.low > 0


def oracle_check(summary: LiftSummary) -> Check | None:
    """The true suffix in the first equation must make the target likelier (copying works)."""
    row = next((r for r in summary.ladder if r.condition == ORACLE), None)
    if row is None:
        return None
    c = row.vs_reference
    evidence = {"oracle_minus_empty": c.mean, "se": c.se, "n_cuts": c.n_cuts}
    if _above_zero(c):
        return Check("oracle_copies", "pass", f"oracle − empty {_interval(c)}", evidence)
    return Check(
        "oracle_copies",
        "fail",
        f"the true suffix in the scaffold does not lift the target: oracle − empty {_interval(c)}",
        evidence,
        repair="a scorer that does not copy the first equation cannot reward any forecast; use "
        "a stronger scorer or check the scaffold's rendering",
    )


def sft_check(setting: str, c: Contrast) -> Check:
    """Does the forecast beat the context-only fine-tuned scorer on held-out papers?"""
    name = f"forecast_beats_sft[{setting}]"
    evidence = {"lift": c.mean, "se": c.se, "p": c.p_value, "n_cuts": c.n_cuts}
    if _above_zero(c):
        return Check(name, "pass", f"forecast − {SFT} {_interval(c)} (held-out papers)", evidence)
    return Check(
        name,
        "warn",
        f"the forecast does not beat the context-only fine-tuned scorer: {_interval(c)}",
        evidence,
        repair="its lift over recent context may be priming a fine-tuning reproduces; the "
        "paper's weaker predictor fails this control too (Table 9)",
    )


def forecast_checks(summary: LiftSummary) -> list[Check]:
    """Per setting: lift over the same-budget control and the SFT rung, raw against clipped."""
    found = []
    for table in summary.settings:
        c = table.lift
        evidence = {"lift": c.mean, "se": c.se, "p": c.p_value, "positive": c.positive}
        name = f"forecast_beats_context[{table.setting}]"
        if _above_zero(c):
            found.append(Check(name, "pass", f"forecast − {CONTEXT} {_interval(c)}", evidence))
        else:
            found.append(
                Check(
                    name,
                    "warn",
                    f"no lift over the same budget of recent context: {_interval(c)}",
                    evidence,
                    repair="the forecasts carry no information about the target beyond nearby "
                    "text; compare predictors only above this control",
                )
            )
        sft = next((a.contrast for a in table.advantages if a.b == SFT), None)
        if sft is not None:
            found.append(sft_check(table.setting, sft))
        raw = next((r.lift for r in table.rules if r.rule == "raw"), None)
        if raw is not None and (raw.mean > 0) != (c.mean > 0):
            found.append(
                Check(
                    f"catastrophic_tokens[{table.setting}]",
                    "warn",
                    f"raw log-likelihood lift {raw.mean:+.3f} and clipLL_2 lift {c.mean:+.3f} "
                    "disagree in sign: a few very unlikely tokens dominate the raw score",
                    {"raw": raw.mean, "clip2": c.mean},
                    repair="read the bounded rules (appendix B), not raw log-likelihood",
                )
            )
    return found


def lift_checks(summary: LiftSummary) -> list[Check]:
    """Every check of the summary, the toy scaffold check first."""
    found: list[Check] = []
    if summary.toy:
        found.append(toy_check(summary.toy))
    oracle = oracle_check(summary)
    if oracle is not None:
        found.append(oracle)
    found += forecast_checks(summary)
    if summary.incomplete:
        missing = ", ".join(f"{c}: {n}" for c, n in summary.incomplete.items())
        found.append(
            Check(
                "complete",
                "warn",
                f"conditions lack cuts ({missing}); tables use the cuts each pair shares",
                {"incomplete": summary.incomplete},
                repair="rerun the same command to finish the run",
            )
        )
    if summary.empty_forecasts:
        counts = ", ".join(f"{s}: {n}" for s, n in summary.empty_forecasts.items())
        found.append(
            Check(
                "empty_forecasts",
                "warn",
                f"empty forecasts ({counts}): those cuts score the bare scaffold as the forecast",
                {"empty": summary.empty_forecasts},
                repair="a reasoning model may spend the token limit before it answers: raise "
                "--max-new-tokens for `lift predict`, or read these settings' lift as a floor",
            )
        )
    if EMPTY not in summary.conditions and summary.n_records:
        found.append(Check("complete", "warn", "no empty-scaffold records: no control ladder"))
    return found
