"""A lift run's summary, checks and report, checked against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from lift_cuts import equation_cut

from readout_audit import InputError
from readout_audit.lift import score_lift
from readout_audit.lift._checks import lift_checks
from readout_audit.lift._kind import LIFT
from readout_audit.lift._score import forecast_settings, setting_contrasts
from readout_audit.lift._summary import empty_forecasts
from readout_audit.log._run import read_run
from readout_audit.report import render_html

pytestmark = pytest.mark.cost(30)

TARGETS = [
    r"\hbar \omega \left(n + \frac{1}{2}\right), \qquad n = 0, 1, 2, \dots",
    r"\frac{1}{2} \hbar \omega + n \hbar \omega \quad \text{for every integer } n \ge 0",
    r"\left(n + \tfrac12\right) \hbar\omega, \qquad n \in \mathbb{N}_0 \text{ (the spectrum)}",
]
FORECASTS = {
    "good": [
        r"\hbar\omega(n+\tfrac12)",
        r"\frac12\hbar\omega + n\hbar\omega",
        r"(n+\tfrac12)\hbar\omega",
    ],
    "bad": [r"x^2 + y^2", r"\sin\theta", r"0"],
}


TOKENS = {  # the predictor's token use per forecast (Table 7), as a forecast file reports it
    f"paper{i % 3}:eq{i}": {
        "good": {"output": 20 + i, "reasoning": 100 * (i + 1)},
        "bad": {"output": 5, "reasoning": None if i == 0 else 0},
    }
    for i in range(6)
}


@pytest.fixture(scope="module")
def run_dir(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("lift") / "run"
    cuts = [equation_cut(TARGETS[i % 3], paper=f"paper{i % 3}", key=f"eq{i}") for i in range(6)]
    forecasts = {c.id: {s: zs[i % 3] for s, zs in FORECASTS.items()} for i, c in enumerate(cuts)}
    score_lift(model, cuts, out, forecasts=forecasts, seed=3, token_counts=TOKENS)
    return out


def _clip2(values):
    return float(np.mean(np.maximum(np.asarray(values), -2.0)))


def _cr1(d, clusters):
    """The CR1 sandwich SE of a mean, written out (G/(G-1) · Σ_g (Σ e)² / n²)."""
    d, clusters = np.asarray(d), np.asarray(clusters)
    e = d - d.mean()
    groups = sorted(set(clusters))
    meat = sum(e[clusters == g].sum() ** 2 for g in groups)
    return float(np.sqrt(len(groups) / (len(groups) - 1) * meat) / d.size)


def test_the_lift_table_is_the_mean_of_per_cut_differences(run_dir):
    run = read_run(run_dir)
    summary = LIFT.summary(run)
    by = {(r.item_id, r.variant): r for r in run.records}
    cuts = sorted({r.item_id for r in run.records})
    papers = [by[(c, "empty")].cluster for c in cuts]
    for table in summary.settings:
        d = [
            _clip2(by[(c, f"forecast/{table.setting}")].target_logprobs)
            - _clip2(by[(c, "context")].target_logprobs)
            for c in cuts
        ]
        assert table.lift.mean == pytest.approx(np.mean(d), abs=1e-12)
        assert table.lift.se == pytest.approx(_cr1(d, papers), abs=1e-12)
        assert table.lift.positive == pytest.approx(np.mean(np.asarray(d) > 0))
        assert table.lift.n_cuts == 6 and table.lift.n_papers == 3
    assert [r.condition for r in summary.ladder] == [
        "empty",
        "context",
        "context3",
        "forecast/bad",
        "forecast/good",
        "oracle",
    ]
    good = next(t for t in summary.settings if t.setting == "good")
    bad = next(t for t in summary.settings if t.setting == "bad")
    # the settings keep the order their forecasts were given in (good, then bad), not a-z
    assert run.manifest.config["forecast_settings"] == ["good", "bad"]
    adjacent = summary.adjacent[0]
    assert (adjacent.a, adjacent.b) == ("forecast/good", "forecast/bad")
    assert adjacent.contrast.mean == pytest.approx(good.lift.mean - bad.lift.mean, abs=1e-12)
    assert [w.window for w in good.windows] == [50, 100, 200, 400]
    # every target here is shorter than 50 tokens, so each window scores it whole
    assert all(w.lift.mean == pytest.approx(good.lift.mean) for w in good.windows)
    assert [r.rule for r in good.rules] == ["raw", "clip2", "clip3", "clip5", "sqrt", "log1p"]


def test_checks_and_the_toy_cases(run_dir):
    summary = LIFT.summary(read_run(run_dir))
    checks = {c.name: c for c in summary.checks}
    assert checks["oracle_copies"].verdict == "pass"
    assert checks["forecast_beats_context[good]"].verdict == "pass"
    # the 135M scorer copies the toy equation, but weakly (clipLL_2 about −0.3 to −0.6)
    assert checks["toy_scaffold"].verdict == "warn"
    toy = {(r.case, r.condition): r for r in summary.toy}
    for case in ("Z=X+A+B", "Z=X+B+A"):
        exact, reordered = toy[(case, "exact")], toy[(case, "reordered")]
        assert exact.clip2 > reordered.clip2 > toy[(case, "empty")].clip2
        assert exact.clip2 > toy[(case, "context")].clip2
        assert exact.clip2 >= exact.raw  # clipping only raises a score


def test_examples_are_a_seeded_sample_and_the_report_draws_every_section(run_dir):
    run = read_run(run_dir)
    summary = LIFT.summary(run)
    assert len(summary.examples) == 5
    assert summary.examples == LIFT.summary(run).examples
    titles = [s.title for s in LIFT.sections(run, summary)]
    assert titles[:4] == ["Toy check", "Control ladder", "Forecast lift", "Scoring rules"]
    html = render_html(run)
    for title in ("Control ladder (clip2", "Paired forecast advantages", "first N target tokens"):
        assert title in html
    # the ladder, the window curve, Figure 2's CDFs and lift against reasoning tokens
    assert html.count("<svg") == 4
    for title in ("(Figure 2)", "Predictor token use (Table 7)", "where bad lifts least"):
        assert title in html
    assert "\\frac{1}{2}" in html  # TeX escaped as text, not interpreted


def test_each_condition_over_each_control_and_compare_of_two_runs(run_dir, tmp_path):
    from readout_audit.report._compare import compare_runs

    run = read_run(run_dir)
    summary = LIFT.summary(run)
    pairs = {(c.a, c.b) for c in summary.over_controls}
    assert ("oracle", "context3") in pairs and ("context3", "context") in pairs
    assert ("context", "context3") not in pairs and ("empty", "context") not in pairs
    assert len(pairs) == 1 + 2 + 3 * 3  # context, context3, two forecasts and the oracle
    ladder = {r.condition: r for r in summary.ladder}
    oracle_context = next(c for c in summary.over_controls if (c.a, c.b) == ("oracle", "context"))
    # paired means are linear on shared cuts: (oracle − empty) − (context − empty)
    expected = ladder["oracle"].vs_reference.mean - ladder["context"].vs_reference.mean
    assert oracle_context.contrast.mean == pytest.approx(expected, abs=1e-12)
    same = compare_runs(run, run, n_boot=200)
    oracle = same.differences["oracle"]
    assert [d.metric for d in oracle] == ["clip2 (mean over cuts)", "raw (mean over cuts)"]
    assert all(d.difference.estimate == 0 for d in oracle)


def test_setting_contrasts_keep_the_given_order_or_the_given_pairs():
    settings = forecast_settings(
        {"c1": {"high": "z", "low": "z"}, "c2": {"medium": "z", "none": "z"}}
    )
    assert settings == ["high", "low", "medium", "none"]  # first given, not alphabetical
    assert setting_contrasts(["high", "medium", "low", "none"], None) == [
        ("high", "medium"),
        ("medium", "low"),
        ("low", "none"),
    ]
    families = [("qwen-high", "qwen-low"), ("kimi-high", "kimi-low")]
    named = ["qwen-high", "qwen-low", "kimi-high", "kimi-low"]
    assert setting_contrasts(named, families) == families
    with pytest.raises(InputError, match="without forecasts"):
        setting_contrasts(named, [("qwen-high", "gpt")])
    with pytest.raises(InputError, match="to itself"):
        setting_contrasts(named, [("kimi-low", "kimi-low")])


def test_empty_forecasts_are_counted_per_setting_and_warned(run_dir):
    records = read_run(run_dir).records
    first = records[0].item_id
    emptied = [
        r.model_copy(update={"forecast_chars": 0})
        if r.item_id == first and r.variant == "forecast/bad"
        else r
        for r in records
    ]
    assert empty_forecasts(records) == {} and empty_forecasts(emptied) == {"bad": 1}
    summary = LIFT.summary(read_run(run_dir)).model_copy(update={"empty_forecasts": {"bad": 1}})
    check = next(c for c in lift_checks(summary) if c.name == "empty_forecasts")
    assert check.verdict == "warn" and "bad: 1" in check.finding


def _lifts(run, setting):
    """Per-cut clipLL_2 lift of a setting over the same-budget context, from the records."""
    by = {(r.item_id, r.variant): r for r in run.records}
    cuts = sorted({r.item_id for r in run.records})
    return {
        c: _clip2(by[(c, f"forecast/{setting}")].target_logprobs)
        - _clip2(by[(c, "context")].target_logprobs)
        for c in cuts
    }


def test_distributions_hardest_cuts_and_token_use_from_the_stored_records(run_dir):
    run = read_run(run_dir)
    summary = LIFT.summary(run)
    by = {(r.item_id, r.variant): r for r in run.records}
    for table in summary.settings:  # Figure 2: the per-cut lifts, their median and quantiles
        d = _lifts(run, table.setting)
        shown = table.distribution
        assert shown.values == pytest.approx(sorted(d.values()), abs=1e-12)
        assert shown.median == pytest.approx(np.median(list(d.values())), abs=1e-12)
        assert table.lift.median == pytest.approx(shown.median, abs=1e-12)
        assert shown.quantiles["q25"] == pytest.approx(np.quantile(list(d.values()), 0.25))
    empty = next(x for x in summary.distributions if x.name == "empty")
    scores = [_clip2(r.target_logprobs) for r in run.records if r.variant == "empty"]
    assert empty.mean == pytest.approx(np.mean(scores), abs=1e-12) and empty.n_cuts == 6

    # section 9: ⌈0.2 · 6⌉ = 2 cuts where the last setting (bad) lifts least; good − bad there
    hardest = summary.hardest
    bad = _lifts(run, "bad")
    kept = sorted(sorted(bad, key=lambda c: (bad[c], c))[:2])
    assert hardest.selector == "forecast/bad" and hardest.cuts == kept and hardest.n_cuts == 2
    assert hardest.threshold == pytest.approx(max(bad[c] for c in kept), abs=1e-12)
    (contrast,) = hardest.contrasts
    good = _lifts(run, "good")
    assert contrast.selected_on and (contrast.a, contrast.b) == ("forecast/good", "forecast/bad")
    on_slice = [good[c] - bad[c] for c in kept]  # the context cancels in good − bad
    assert contrast.hardest.mean == pytest.approx(np.mean(on_slice), abs=1e-12)
    assert contrast.full.mean == pytest.approx(np.mean([good[c] - bad[c] for c in good]))

    # Table 7: mean tokens over the cuts each lift uses (bad's first cut reports none)
    effort = {t.setting: t.effort for t in summary.settings}
    assert effort["good"].reasoning_tokens == pytest.approx(350.0)  # 100 · (1 + … + 6) / 6
    assert effort["good"].output_tokens == pytest.approx(22.5)
    assert effort["bad"].reasoning_tokens == 0.0 and effort["bad"].reported == 5
    # appendix C's score table of each shown example: every condition's clipLL_2 on its cut
    for example in summary.examples:
        for condition, value in example.scores.items():
            stored = by[(example.cut_id, condition)].target_logprobs
            assert value == pytest.approx(_clip2(stored), abs=1e-12)


def test_the_recovery_point_reads_the_true_token_after_the_mismatch(run_dir, model):
    import torch

    from readout_audit.lift._conditions import conditions
    from readout_audit.lift._score import encode_scored, leading_ids
    from readout_audit.lift._toy import TOY_CASES, TOY_SETUP, toy_cut
    from readout_audit.lift.sft import target_logprobs

    toy = {(r.case, r.condition): r for r in LIFT.summary(read_run(run_dir)).toy}
    case = TOY_CASES[0]  # target X + A + B, reordered X + B + A: P(B) after "X + A +"
    cut = toy_cut(case)
    forecasts = {"exact": case.target, "reordered": case.reordered, "wrong-symbol": case.wrong}
    lead = leading_ids(model.codec, TOY_SETUP)
    for condition in conditions(cut, forecasts, TOY_SETUP):
        ids, start = encode_scored(model.codec, lead, condition.prompt, case.target)
        pieces = [model.codec.decode(ids[start : i + 1]) for i in range(start, len(ids))]
        (at,) = [k for k, text in enumerate(pieces) if text.endswith(" B")]
        assert pieces[at - 1] == " X + A +"  # the token after "X + A +" is " B"
        with torch.no_grad():  # one plain forward, not the run's cached scoring
            expected = float(target_logprobs(model.module, ids, start)[at].exp())
        name = condition.name.removeprefix("forecast/")
        assert toy[("Z=X+A+B", name)].recovery == pytest.approx(expected, abs=1e-4)


def test_an_example_expanded_as_in_appendix_c(run_dir):
    import json

    from click.testing import CliRunner

    from readout_audit._cli import main
    from readout_audit.lift._cut import sha256_text

    run = read_run(run_dir)
    by = {(r.item_id, r.variant): r for r in run.records}
    cut = sorted({r.item_id for r in run.records})[0]
    command = ["lift", "example", str(run_dir), "--cut", cut]
    detail = json.loads(CliRunner().invoke(main, [*command, "--json"]).output)
    names = [c["condition"] for c in detail["conditions"]]
    assert names == ["empty", "context", "context3", "forecast/bad", "forecast/good", "oracle"]
    for row in detail["conditions"]:  # the prompts shown are the prompts scored
        record = by[(cut, row["condition"])]
        assert sha256_text(row["prompt"]) == record.prompt_sha256
        assert row["clip2"] == pytest.approx(_clip2(record.target_logprobs), abs=1e-12)
    context = detail["conditions"][1]["clip2"]
    assert detail["conditions"][4]["vs_context"] == pytest.approx(
        detail["conditions"][4]["clip2"] - context, abs=1e-12
    )
    assert detail["scored_target"] == detail["target"] + "\n\\end{align}"
    assert detail["forecasts"] == {"good": FORECASTS["good"][0], "bad": FORECASTS["bad"][0]}
    text = CliRunner().invoke(main, command).output
    for part in ("Predictor prompt.", "True suffix.", "Scoring prompt: forecast/good.", "vs. C_B"):
        assert part in text
    first = read_run(run_dir).artifacts["cuts"][0]["id"]  # no --cut: the run's first cut
    assert f"Cut {first} " in CliRunner().invoke(main, ["lift", "example", str(run_dir)]).output
    missing = CliRunner().invoke(main, ["lift", "example", str(run_dir), "--cut", "nope"])
    assert missing.exit_code != 0 and "is not a cut of this run" in missing.output
