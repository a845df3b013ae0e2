"""Run summaries recomputed independently from the records."""

from __future__ import annotations

import statistics

import pytest

from readout_audit import demo_items, read_run, score, summarise


@pytest.fixture(scope="module")
def demo_run(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "run"
    score(model, demo_items(), out, greedy_tokens=16)
    return read_run(out)


def test_summary_matches_an_independent_recount(demo_run):
    records, summary = demo_run.records, demo_run.summary
    assert summarise(records).variants == summary.variants
    for variant, block in summary.variants.items():
        group = [r for r in records if r.variant == variant]
        masses = [r.option_mass for r in group if r.option_mass is not None]
        assert block.n == len(group)
        assert block.option_mass.median == pytest.approx(statistics.median(masses))
        assert block.option_mass.min == min(masses)
        assert block.option_mass.n_below_floor == sum(m < 0.5 for m in masses)
        assert block.option_mass.collapse == (statistics.median(masses) < 0.5)
        assert block.n_boundary_not_preserved == sum(not r.boundary_preserved for r in group)
        assert block.argmax_is_option_rate == pytest.approx(
            sum(r.argmax_is_option for r in group) / len(group)
        )


def test_demo_shows_the_documented_failures_on_the_real_model(demo_run):
    by_id = {r.item_id: r for r in demo_run.records}
    production, stemmed = by_id["forecast-production"], by_id["forecast-stem"]
    # The quoted item's own letter instruction takes the scored position; the stem repairs it.
    assert production.argmax_token.strip() in {"A", "B", "C", "D"}
    assert production.option_mass < 0.5 and not production.argmax_is_option
    assert stemmed.option_mass > 0.5 and stemmed.option_mass > 10 * production.option_mass
    assert production.ending == "newline" and stemmed.ending == "space"
    # A context ending in a space merges with the option: no mass is recorded, not zero.
    assert by_id["raw-trailing-space"].option_mass is None
    assert by_id["raw-trailing-space"].boundary_preserved is False
    # "10" and "12" start with the same token in context.
    assert by_id["shared-first-token"].distinct_first_tokens is False
    assert by_id["letters-capital-stem"].ending == "none"
