"""A run killed (SIGKILL) or interrupted (Ctrl-C) mid-flight: what the next runs do."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time

from fault_proxy import FaultProxy
from upstream_app import Upstream, sha

from readout_audit.serve import LEDGER_FILE, Endpoint, Ledger, RequestRunner

CHILD = """
import sys
from readout_audit.serve import Endpoint, HttpCall, Ledger, RequestRunner
path, url, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
calls = [HttpCall("/completions", {"prompt": f"p{i}", "max_tokens": 5}, 10, 5) for i in range(n)]
RequestRunner([Endpoint(url, concurrency=3)], Ledger(path)).run(calls)
"""
N = 12


def _interruptible() -> None:
    """Ctrl-C as from a terminal: the test process may have SIGINT blocked or ignored."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_child(path, url):
    command = [sys.executable, "-c", CHILD, str(path), url, str(N)]
    return subprocess.Popen(command, stderr=subprocess.PIPE, preexec_fn=_interruptible)


def wait_until_in_flight(path, child, timeout_s=15.0):
    """Poll the ledger until some calls completed and others are sent (in flight)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and child.poll() is None:
        if path.exists():
            with Ledger(path) as ledger:
                counts = ledger.counts()
            if counts["completed"] >= 3 and counts["sent"] >= 1:
                return
        time.sleep(0.01)
    ended = child.poll()
    why = child.stderr.read().decode(errors="replace")[-2000:] if ended is not None else ""
    raise AssertionError(f"the child never had calls in flight ({ended=}): {why}")


def keys_in(path, state):
    with Ledger(path) as ledger:
        return {entry.key for entry in ledger.entries(state)}


def test_after_a_kill_nothing_completes_twice_and_sent_calls_are_unknown_until_released(
    tmp_path, make_calls
):
    path, calls = tmp_path / LEDGER_FILE, make_calls(N)
    with Upstream(delay_s=0.4) as upstream, FaultProxy("127.0.0.1", upstream.port) as proxy:
        child = start_child(path, proxy.url)
        wait_until_in_flight(path, child)
        child.send_signal(signal.SIGKILL)
        child.wait()
        db = sqlite3.connect(path)
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        db.close()
        completed, in_flight = keys_in(path, "completed"), keys_in(path, "sent")
        assert completed and in_flight

        with Ledger(path) as ledger:
            rerun = RequestRunner([Endpoint(proxy.url, concurrency=3)], ledger)
            results = rerun.run(calls)
            by_key = {r.key: r for r in results}
            assert {k for k, r in by_key.items() if r.state == "unknown"} == in_flight
            assert all(by_key[k].from_ledger for k in completed | in_flight)
            assert {r.state for r in results if r.key not in in_flight} == {"completed"}
            assert rerun.stats.sent == N - len(completed) - len(in_flight)
            assert all("sending process ended" in by_key[k].error for k in in_flight)
            for call in calls:  # nothing was processed twice
                assert upstream.counts[sha(call.body_bytes)] <= 1
                if call.key in completed:
                    assert upstream.counts[sha(call.body_bytes)] == 1
            assert len(proxy.forwarded) == len(set(proxy.forwarded))

            assert ledger.release_unknown() == len(in_flight)
            third = RequestRunner([Endpoint(proxy.url, concurrency=3)], ledger)
            final = third.run(calls)
    assert [r.state for r in final] == ["completed"] * N
    assert {r.key for r in final if not r.from_ledger} == in_flight
    assert third.stats.sent == len(in_flight)


def test_ctrl_c_stops_new_starts_at_once_and_leaves_calls_in_flight_sent(tmp_path, make_calls):
    path, calls = tmp_path / LEDGER_FILE, make_calls(N)
    with Upstream(delay_s=0.4) as upstream:
        child = start_child(path, upstream.url)
        wait_until_in_flight(path, child)
        child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=10)
        assert b"KeyboardInterrupt" in stderr
        with Ledger(path) as ledger:
            counts = ledger.counts()
            # The child ended without waiting for its requests in flight, and took no new ones.
            assert counts["sent"] >= 1 and counts["planned"] + counts["reserved"] >= 1
            in_flight = {entry.key for entry in ledger.entries("sent")}
            results = RequestRunner([Endpoint(upstream.url, concurrency=3)], ledger).run(calls)
    assert {r.key for r in results if r.state == "unknown"} == in_flight
    assert {r.state for r in results if r.key not in in_flight} == {"completed"}
