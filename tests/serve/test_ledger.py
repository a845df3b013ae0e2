"""The ledger on its own: states, the spend as the cap counts it, release, schema versions."""

from __future__ import annotations

import sqlite3

import pytest

from readout_audit import RunDirectoryError
from readout_audit.serve import LEDGER_FILE, STATES, CostCap, HttpCall, Ledger, Spend
from readout_audit.serve._ledger import MIGRATIONS

CAP = CostCap(max_tokens=100, usd_per_mtok_prompt=1_000.0, usd_per_mtok_completion=2_000.0)
"""$0.001 a prompt token, $0.002 a completion token."""


def test_a_new_ledger_is_empty_and_plans_each_key_once(ledger, make_calls):
    assert ledger.counts() == dict.fromkeys(STATES, 0)
    calls = make_calls(3)
    entries = ledger.plan([*calls, calls[0]])
    assert set(entries) == {call.key for call in calls}
    assert ledger.counts()["planned"] == 3
    entry = ledger.entry(calls[1].key)
    assert (entry.state, entry.path, entry.body, entry.tag, entry.attempts) == (
        "planned",
        "/completions",
        calls[1].body_bytes,
        "",
        0,
    )
    assert ledger.entry("0" * 64) is None


def test_one_body_under_two_tags_is_two_rows_each_holding_its_tag(ledger, make_calls):
    (call,) = make_calls(1)
    tagged = [HttpCall(call.path, call.body, 10, 5, tag=t) for t in ("run:a", "run:a_repeat")]
    entries = ledger.plan([call, *tagged])
    assert len(entries) == 3 and ledger.counts()["planned"] == 3
    assert [entries[c.key].tag for c in (call, *tagged)] == ["", "run:a", "run:a_repeat"]
    assert {entries[c.key].body for c in (call, *tagged)} == {call.body_bytes}


def test_spend_counts_usage_of_completed_and_reservations_of_reserved_sent_and_unknown(
    ledger, make_calls
):
    a, b, c, d, e = make_calls(5, prompt_max=10, completion_max=15)
    ledger.plan([a, b, c, d, e])
    reserve = Spend(25, 10 * 0.001 + 15 * 0.002)  # 25 tokens, $0.04
    for call in (a, b, c, d):
        assert ledger.reserve(call.key, reserve, CAP) is None  # 4 × 25 = 100 ≤ 100
    assert ledger.reserve(e.key, reserve, CAP) is not None  # 125 > 100: stays planned
    assert ledger.entry(e.key).state == "planned"
    assert ledger.spend() == Spend(100, pytest.approx(0.16))  # reservations count
    ledger.start(a.key, "http://x/v1")
    ledger.sent(a.key)
    ledger.complete(a.key, b'{"usage":{}}', (4, 6), Spend(10, 4 * 0.001 + 6 * 0.002))
    ledger.start(b.key, "http://x/v1")
    ledger.sent(b.key)
    ledger.lose(b.key, "lost")
    ledger.start(c.key, "http://x/v1")
    ledger.sent(c.key)
    ledger.fail(d.key, "HTTP 400")
    # a: usage 10 ($0.016); b unknown 25 ($0.04); c sent 25 ($0.04); d failed: nothing
    spend = ledger.spend()
    assert spend.tokens == 60
    assert spend.usd == pytest.approx(0.096)
    assert ledger.counts() == {
        "planned": 1,
        "reserved": 0,
        "sent": 1,
        "completed": 1,
        "failed": 1,
        "unknown": 1,
    }
    done = ledger.entry(a.key)
    assert (done.prompt_tokens, done.completion_tokens, done.used, done.attempts) == (
        4,
        6,
        Spend(10, pytest.approx(0.016)),
        1,
    )
    assert done.response == {"usage": {}}
    assert done.started_at <= done.sent_at <= done.settled_at


def test_the_cap_refuses_exactly_what_would_exceed_it_and_names_it(ledger, make_calls):
    a, b, c = make_calls(3)
    ledger.plan([a, b, c])
    assert ledger.reserve(a.key, Spend(60, 0.0), CAP) is None
    assert ledger.reserve(b.key, Spend(40, 0.0), CAP) is None  # 100 ≤ 100
    refused = ledger.reserve(c.key, Spend(1, 0.0), CAP)
    assert refused == (
        "not sent: the cost cap of 100 tokens would be exceeded "
        "(100 spent or reserved + 1 reserved for this call)"
    )
    # re-reserving a row does not count its own earlier reservation
    assert ledger.reserve(a.key, Spend(60, 0.0), CAP) is None
    usd_cap = CostCap(max_usd=0.01)
    assert "cost cap of $0.01" in ledger.reserve(c.key, Spend(0, 0.011), usd_cap)


def test_release_unknown_replans_them_and_keeps_their_reservation_in_the_spend(
    tmp_path, make_calls
):
    path = tmp_path / LEDGER_FILE
    a, b, c = make_calls(3)
    with Ledger(path) as ledger:
        ledger.plan([a, b, c])
        for call in (a, b, c):
            ledger.reserve(call.key, Spend(15, 0.0), None)
            ledger.start(call.key, "http://x/v1")
            ledger.sent(call.key)
            ledger.lose(call.key, "lost")
        assert [e.key for e in ledger.unknown()] == sorted([a.key, b.key, c.key])
        assert ledger.release_unknown([a.key, "f" * 64]) == 1
    with Ledger(path) as ledger:  # reopened: every change was committed
        assert ledger.entry(a.key).state == "planned"
        assert ledger.entry(a.key).released == Spend(15, 0.0)
        assert ledger.spend() == Spend(45, 0.0)  # the released send may have been charged
        assert ledger.release_unknown() == 2
        assert ledger.counts()["planned"] == 3
        assert ledger.spend() == Spend(45, 0.0)


def test_a_ledger_of_the_first_schema_is_migrated_and_its_rows_keep_their_keys(
    tmp_path, make_calls
):
    path, (call,) = tmp_path / LEDGER_FILE, make_calls(1)
    db = sqlite3.connect(path)
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute(
        "INSERT INTO calls (key, state, path, body, response, created_at, updated_at) "
        "VALUES (?, 'completed', ?, ?, ?, 0, 0)",
        (call.key, call.path, call.body_bytes, b'{"choices":[]}'),
    )
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()
    with Ledger(path) as ledger:
        entry = ledger.plan([call])[call.key]
        assert (entry.state, entry.tag, entry.response) == ("completed", "", {"choices": []})
        assert ledger.counts()["completed"] == 1


def test_the_schema_is_versioned_and_a_newer_ledger_is_refused(tmp_path):
    path = tmp_path / LEDGER_FILE
    Ledger(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()
    with pytest.raises(RunDirectoryError, match="ledger schema 7"):
        Ledger(path)
    with pytest.raises(RunDirectoryError, match="is not a directory"):
        Ledger(tmp_path / "missing" / LEDGER_FILE)
