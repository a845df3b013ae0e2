"""Pacing and concurrency per endpoint, and several endpoints sharing one run."""

from __future__ import annotations

from upstream_app import Upstream, sha

from readout_audit.serve import Endpoint, RequestRunner


def test_starts_keep_to_the_bucket_and_requests_in_flight_to_the_concurrency(ledger, make_calls):
    # 20 starts a second from a bucket of one token: the k-th start comes at least k/20 s after
    # the first, so 40 starts span at least 39/20 = 1.95 s (a lower bound, whatever the speed).
    calls = make_calls(40)
    with Upstream(delay_s=0.1) as upstream:  # 4 in flight could start 40 a second
        endpoint = Endpoint(upstream.url, concurrency=4, starts_per_s=20)
        results = RequestRunner([endpoint], ledger).run(calls)
    assert {r.state for r in results} == {"completed"}
    started = sorted(ledger.entry(call.key).started_at for call in calls)
    # a start's time is written just after its token is taken: on a loaded machine a thread can
    # be descheduled in between, so starts are compared four apart (unpaced, the four in flight
    # would start together), with room for that delay
    slack = 0.05
    assert all(started[i + 4] - started[i] >= 4 / 20 - slack for i in range(len(started) - 4))
    assert started[-1] - started[0] >= 39 / 20 - slack
    sent = sorted(ledger.entry(call.key).sent_at for call in calls)
    assert sent[-1] - sent[0] >= 1.9  # each body follows its start within milliseconds here
    assert upstream.max_active <= 4


def test_concurrency_bounds_requests_in_flight_without_pacing(ledger, make_calls):
    with Upstream(delay_s=0.1) as upstream:
        runner = RequestRunner([Endpoint(upstream.url, concurrency=3)], ledger)
        results = runner.run(make_calls(12))
    assert [r.state for r in results] == ["completed"] * 12
    assert 1 < upstream.max_active <= 3


def test_two_endpoints_share_the_calls_and_results_keep_the_call_order(ledger, make_calls):
    calls = make_calls(24)
    with Upstream(delay_s=0.01) as fast, Upstream(delay_s=0.2) as slow:
        endpoints = [Endpoint(fast.url, concurrency=1), Endpoint(slow.url, concurrency=1)]
        results = RequestRunner(endpoints, ledger).run([*calls, calls[0]])  # a duplicate
    assert [r.key for r in results] == [c.key for c in calls] + [calls[0].key]
    assert [r.response["echo"] for r in results[:-1]] == [c.body for c in calls]
    assert results[-1] == results[0]
    served = {fast.url: set(fast.counts), slow.url: set(slow.counts)}
    assert all(
        served[r.endpoint] >= {sha(c.body_bytes)} for r, c in zip(results, calls, strict=False)
    )
    assert sum(fast.counts.values()) + sum(slow.counts.values()) == 24  # each call once
    assert 0 < len(slow.counts) < len(fast.counts)  # both serve; the faster takes more
