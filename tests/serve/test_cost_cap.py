"""The cost cap: reservations before sending, usage after, over the whole ledger."""

from __future__ import annotations

import pytest
from upstream_app import Upstream, sha

from readout_audit.serve import CostCap, Endpoint, RequestRunner, Spend


def run(url, ledger, calls, cap, concurrency=1):
    runner = RequestRunner([Endpoint(url, concurrency=concurrency)], ledger, cap=cap)
    return runner, runner.run(calls)


def test_a_token_cap_sends_what_fits_and_holds_across_reruns(ledger, make_calls):
    # Each call reserves 10 + 20 = 30 tokens; the server reports 10 + 5 = 15.
    # Sent one at a time against a cap of 100: spend before each start 0, 15, 30, 45, 60 and
    # 0+30 … 60+30 = 90 fit; the 6th would make 75 + 30 = 105 > 100.
    calls = make_calls(8, prompt_max=10, completion_max=20)
    cap = CostCap(max_tokens=100)
    with Upstream(usage={"prompt_tokens": 10, "completion_tokens": 5}) as upstream:
        first, results = run(upstream.url, ledger, calls, cap)
        assert [r.state for r in results] == ["completed"] * 5 + ["capped"] * 3
        assert results[5].error == (
            "not sent: the cost cap of 100 tokens would be exceeded "
            "(75 spent or reserved + 30 reserved for this call)"
        )
        assert ledger.spend() == Spend(75, 0.0)
        assert (first.stats.capped, first.stats.tokens) == (3, 75)
        assert ledger.counts()["planned"] == 3  # capped calls were never reserved

        second, again = run(upstream.url, ledger, calls, cap)
        assert [r.state for r in again] == ["completed"] * 5 + ["capped"] * 3
        assert second.stats.sent == 0

        # A larger cap admits exactly what fits: 75 + 30 ≤ 120 → 90; 90 + 30 ≤ 120 → 105.
        third, more = run(upstream.url, ledger, calls, CostCap(max_tokens=120))
        assert [r.state for r in more] == ["completed"] * 7 + ["capped"]
        assert third.stats.sent == 2
        assert ledger.spend() == Spend(105, 0.0)
    assert len(upstream.counts) == 7 and set(upstream.counts.values()) == {1}


def test_with_calls_in_flight_a_call_waits_for_their_usage_before_it_is_capped(ledger, make_calls):
    # Four at a time, same numbers: whatever the timing, reservations never pass 100, and a
    # call refused while others hold reservations waits for their (lower) usage. Calls keep
    # starting while 15·done + 30·(in flight + 1) ≤ 100, and the last check, with nothing in
    # flight, refuses at 15·5 + 30 = 105: exactly 5 complete, as one at a time.
    calls = make_calls(8, prompt_max=10, completion_max=20)
    usage = {"prompt_tokens": 10, "completion_tokens": 5}
    with Upstream(usage=usage, delay_s=0.05) as upstream:
        _, results = run(upstream.url, ledger, calls, CostCap(max_tokens=100), concurrency=4)
    assert sorted(r.state for r in results) == ["capped"] * 3 + ["completed"] * 5
    assert ledger.spend() == Spend(75, 0.0)
    assert upstream.max_active <= 3  # 3 × 30 = 90: a fourth reservation never fit


def test_a_dollar_cap_charges_the_reservation_when_no_usage_is_reported(ledger, make_calls):
    # $2 per million prompt tokens, $10 per million completion tokens: a call with bounds
    # 1000 + 100 reserves $0.002 + $0.001 = $0.003; $0.01 admits three ($0.009).
    calls = make_calls(5, prompt_max=1000, completion_max=100)
    cap = CostCap(max_usd=0.01, usd_per_mtok_prompt=2.0, usd_per_mtok_completion=10.0)
    with Upstream(usage=None, delay_s=0.02) as upstream:
        _, results = run(upstream.url, ledger, calls, cap, concurrency=2)
    assert sorted(r.state for r in results) == ["capped"] * 2 + ["completed"] * 3
    assert ledger.spend().usd == pytest.approx(0.009)
    done = next(ledger.entry(r.key) for r in results if r.state == "completed")
    assert (done.prompt_tokens, done.completion_tokens) == (None, None)
    assert done.used == Spend(1100, pytest.approx(0.003))
    assert "cost cap of $0.01" in next(r.error for r in results if r.state == "capped")
    assert len(upstream.counts) == 3


def test_usage_above_the_bounds_is_recorded_not_hidden(ledger, make_calls):
    [call] = make_calls(1, prompt_max=10, completion_max=5)
    with Upstream(usage={"prompt_tokens": 50, "completion_tokens": 5}) as upstream:
        run(upstream.url, ledger, [call], CostCap(max_tokens=1000))
    entry = ledger.entry(call.key)
    assert (entry.reserved.tokens, entry.used.tokens, entry.over_bound) == (15, 55, True)
    assert ledger.spend() == Spend(55, 0.0)
    assert upstream.counts == {sha(call.body_bytes): 1}
