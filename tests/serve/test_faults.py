"""Every fault between the runner and a real server, and what reruns do with each outcome."""

from __future__ import annotations

import socket

from upstream_app import Upstream, sha

from readout_audit.serve import Endpoint, HttpCall, RequestRunner, RetryPolicy

FAULTS = ["refuse", "hangup", "http500", "http429", "slow", "drop_after", "truncated", "bad_json"]
RETRY = RetryPolicy(max_attempts=3, backoff_s=0.01)


def runner(url, ledger, **kwargs):
    """One connection at a time, so the n-th fault meets the n-th call's first attempt."""
    return RequestRunner(
        [Endpoint(url, concurrency=1, timeout_s=1.0)], ledger, retry=RETRY, **kwargs
    )


def test_each_fault_ends_in_its_state_and_reruns_never_resend_completed_or_unknown(
    upstream, proxy, ledger, make_calls, capsys
):
    calls = make_calls(len(FAULTS) + 1)  # the last one meets no fault
    proxy.schedule(FAULTS)
    first = runner(proxy.url, ledger, progress="lines")
    results = first.run(calls)
    states = {fault: result.state for fault, result in zip([*FAULTS, "pass"], results, strict=True)}
    assert states == {
        "refuse": "completed",  # reset before 100 Continue: not sent, retried
        "hangup": "completed",  # closed before 100 Continue: not sent, retried
        "http500": "completed",  # definite refusal after the body: retried
        "http429": "completed",  # the same, after its Retry-After
        "slow": "unknown",  # processed; the answer came after the client's timeout
        "drop_after": "unknown",  # processed; the answer was swallowed
        "truncated": "unknown",  # processed; half the answer
        "bad_json": "unknown",  # processed; the answer is not JSON
        "pass": "completed",
    }
    attempts = [ledger.entry(call.key).attempts for call in calls]
    assert attempts == [2, 2, 2, 2, 1, 1, 1, 1, 1]
    # The upstream processed every call once: never the refused, hung-up or refused-by-status
    # attempts, which the proxy answered itself.
    assert upstream.counts == {sha(call.body_bytes): 1 for call in calls}
    assert sorted(proxy.forwarded) == sorted(sha(call.body_bytes) for call in calls)
    # Retry-After: 1 held the 429's second attempt back at least a second.
    retried_429 = ledger.entry(calls[3].key)
    assert retried_429.started_at - retried_429.created_at >= 1.0
    for result in results[4:8]:
        assert result.error.startswith("sent once with no known outcome (")
        assert f"readout ledger {ledger.path.parent} --release-unknown" in result.error
    assert "IncompleteRead" in results[6].error and "not JSON" in results[7].error
    progress = capsys.readouterr().err.splitlines()[-1]
    # 11 bodies: 9 calls, plus the 500 and the 429 sent before their retry; the 4 unknown
    # calls hold their reservations of 15 tokens, 5 completed ones their usage of 5.
    assert progress.startswith("requests: 9/9 (100%)")
    assert "; 11 sent (" in progress
    assert progress.endswith("4 retried, 0 failed, 4 unknown; spend 85 tokens, $0.0000")
    stats = first.stats
    assert (stats.sent, stats.retried, stats.completed, stats.unknown, stats.tokens) == (
        11,
        4,
        5,
        4,
        85,
    )

    again = runner(proxy.url, ledger)
    rerun = again.run(calls)
    assert [r.state for r in rerun] == [r.state for r in results]
    assert all(r.from_ledger for r in rerun)
    assert (again.stats.sent, again.stats.from_ledger, again.stats.unknown) == (0, 9, 4)
    assert upstream.counts == {sha(call.body_bytes): 1 for call in calls}
    assert rerun[0].response == results[0].response

    assert ledger.release_unknown() == 4
    third = runner(proxy.url, ledger)
    released = third.run(calls)
    assert [r.state for r in released] == ["completed"] * 9
    assert [r.from_ledger for r in released] == [True] * 4 + [False] * 4 + [True]
    assert third.stats.sent == 4
    # released calls were processed a second time: that is what releasing them allows
    assert [upstream.counts[sha(c.body_bytes)] for c in calls] == [1, 1, 1, 1, 2, 2, 2, 2, 1]


def test_retries_exhausted_fail_and_a_rerun_tries_failed_calls_again(
    upstream, proxy, ledger, make_calls
):
    never_sent, refused = make_calls(2)
    proxy.schedule(["refuse"] * 3)
    first = runner(proxy.url, ledger)
    [a] = first.run([never_sent])
    assert a.state == "failed"
    assert a.error.startswith("not sent: ConnectionResetError")
    assert a.error.endswith("(attempt 3 of 3 in this run)")
    assert (first.stats.sent, first.stats.retried, first.stats.failed) == (0, 2, 1)
    proxy.schedule(["http500"] * 3)
    [b] = first.run([refused])
    assert b.error.startswith('HTTP 500 Internal Server Error: {"error":"injected"}')
    assert (first.stats.sent, first.stats.retried, first.stats.failed) == (3, 2, 1)
    assert not upstream.counts and ledger.entry(never_sent.key).sent_at is None
    assert ledger.spend().tokens == 0  # failed calls hold no reservation

    second = runner(proxy.url, ledger)
    assert [r.state for r in second.run([never_sent, refused])] == ["completed", "completed"]
    assert ledger.entry(never_sent.key).attempts == 4
    assert upstream.counts == {sha(never_sent.body_bytes): 1, sha(refused.body_bytes): 1}


def test_a_4xx_is_not_retried(ledger, make_calls):
    with Upstream(status=404) as upstream:
        [result] = runner(upstream.url, ledger).run(make_calls(1))
    assert result.state == "failed"
    assert result.error.startswith('HTTP 404 Not Found: {"error": {"message": "invalid request')
    assert ledger.entry(result.key).attempts == 1


def test_a_dead_endpoint_fails_its_calls_as_never_sent(ledger, make_calls):
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        port = placeholder.getsockname()[1]
    dead = runner(f"http://127.0.0.1:{port}/v1", ledger)
    results = dead.run(make_calls(2))
    assert [r.state for r in results] == ["failed", "failed"]
    assert all("ConnectionRefusedError" in r.error for r in results)
    assert (dead.stats.sent, dead.stats.retried) == (0, 4)
    assert ledger.counts()["failed"] == 2


def test_one_body_under_two_tags_is_sent_once_each_and_a_rerun_sends_neither(
    upstream, ledger, make_calls
):
    (call,) = make_calls(1)
    tagged = [HttpCall(call.path, call.body, 10, 5, tag=t) for t in ("id:random", "id:repeat")]
    first = runner(upstream.url, ledger)
    results = first.run(tagged)
    assert [r.state for r in results] == ["completed", "completed"]
    assert results[0].key != results[1].key and first.stats.sent == 2
    assert upstream.counts == {sha(call.body_bytes): 2}
    again = runner(upstream.url, ledger)
    assert [r.from_ledger for r in again.run(tagged)] == [True, True]
    assert again.stats.sent == 0 and upstream.counts == {sha(call.body_bytes): 2}


def test_an_answer_nested_too_deeply_is_failed_one_too_large_unknown_each_named(
    upstream, proxy, ledger, make_calls, monkeypatch
):
    deep, large = make_calls(2)
    proxy.schedule(["deep_json"])
    (nested,) = runner(proxy.url, ledger).run([deep])
    # whole and JSON, so answered (a rerun resends it); one cut at the bound may be anything
    assert nested.state == "failed" and "impossible answer: nested deeper than 100" in nested.error
    # the bound on an answer's size, lowered below the echo server's answer
    monkeypatch.setattr("readout_audit.serve._http.MAX_REPLY_BYTES", 64)
    (big,) = runner(proxy.url, ledger).run([large])
    assert big.state == "unknown" and "an answer of more than 64 bytes: not read" in big.error
    assert sha(large.body_bytes) in proxy.forwarded and sha(deep.body_bytes) not in proxy.forwarded
