"""A chat judge against a real llama.cpp server: records, repeats, reruns, faults, kill -9.

The inventory is FINAL3 on one GSM8K fixture source (16 requests, 4 repeat pairs) with
llama-cpp-python's response format (``json_object``), sent to the session's llama-cpp-python
server on the embedded GGUF (tests/conftest.py). The sent requests are its sorted
presentation's eight (2 repeat pairs): each costs a few seconds on this server.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections import Counter

import pytest
from chat_inventory import CHAT, FIXTURES, SERVED_NAME, chat_inventory
from click.testing import CliRunner
from fault_proxy import FaultProxy

from readout_audit._cli import main
from readout_audit.judge import (
    PAPER_SEED,
    build_inventory,
    load_gsm8k_jsonl,
    parse_configuration,
    run_chat_judge,
    write_inventory,
)
from readout_audit.judge.protocol import REPEAT_CELLS
from readout_audit.judge.run import judge_call
from readout_audit.log._run import read_run
from readout_audit.serve import LEDGER_FILE, Endpoint, Ledger, RetryPolicy

pytestmark = [pytest.mark.model, pytest.mark.cost(120)]
INVENTORY = chat_inventory(drop=False)  # one source
REQUESTS = [r for r in INVENTORY.requests if r.request_id.endswith(":sorted")]
LABELS = CHAT.grading.labels


def _port(url: str) -> int:
    return int(url.split(":")[-1].split("/")[0])


def _endpoint(url: str) -> list[Endpoint]:
    """One request at a time: the n-th fault meets the n-th connection."""
    return [Endpoint(url, concurrency=1)]


@pytest.fixture(scope="module")
def chat_server(llama_server):
    """The session's server: one llama.cpp server for the whole suite."""
    return llama_server


@pytest.fixture(scope="module")
def straight(chat_server, tmp_path_factory):
    """Every request of the inventory sent once, straight to the server: records and ledger."""
    path = tmp_path_factory.mktemp("chat-judge") / LEDGER_FILE
    with Ledger(path) as ledger:
        records = run_chat_judge(REQUESTS, CHAT, _endpoint(chat_server), ledger)
    return records, path


def _verdict_token(reply, verdict):
    """The reply's token holding the verdict's first letter, and the text it has before it."""
    content = reply["choices"][0]["message"]["content"]
    start = content.index(f'"{verdict}"') + 1
    offset = 0
    for token in reply["choices"][0]["logprobs"]["content"]:
        if offset + len(token["token"]) > start:
            return token, content[offset:start]
        offset += len(token["token"])
    raise AssertionError(f"no token holds offset {start} of {content!r}")


def test_every_request_gets_a_record_in_planned_order_with_probabilities_as_returned(straight):
    records, path = straight
    assert [r.item_id for r in records] == [r.request_id for r in REQUESTS]
    assert {r.outcome for r in records} == {"completed"}
    with Ledger(path) as ledger:
        rows = {entry.key: entry for entry in ledger.entries()}
    assert len(rows) == 8 and {row.state for row in rows.values()} == {"completed"}
    for request, record in zip(REQUESTS, records, strict=True):
        assert record.verdict in LABELS and record.error is None
        assert record.metadata["served_model"] == SERVED_NAME
        assert record.metadata["finish_reason"] == "stop"
        row = rows[record.metadata["call_key"]]
        assert (row.tag, row.attempts) == (request.request_id, 1)
        token, lead = _verdict_token(row.response, record.verdict)
        entries = [(e["token"], e["logprob"]) for e in token["top_logprobs"]]
        for label, prob in record.label_probs.items():
            # entries spelling the token's lead and then a prefix of this label and no other
            own = [
                (text[len(lead) :], logprob)
                for text, logprob in entries
                if text.startswith(lead)
                and text[len(lead) :]
                and label.startswith(text[len(lead) :])
                and not any(o.startswith(text[len(lead) :]) for o in LABELS if o != label)
            ]
            if prob is None:
                assert not own, (label, own)
                continue
            assert 0.0 <= prob <= 1.0
            longest = max(len(text) for text, _ in own)
            assert prob in [math.exp(lp) for text, lp in own if len(text) == longest]
        # the verdict's own token was generated: the reply shows it among the entries
        assert token["token"] in [text for text, _ in entries]
    # The chosen label's displayed probability is read; this model's top-20 shows it each time.
    assert all(r.label_probs[r.verdict] is not None for r in records)


def test_identical_body_repeats_are_separate_rows_with_the_same_reply(straight):
    records, path = straight
    by_id = {r.item_id: r for r in records}
    with Ledger(path) as ledger:
        pairs = 0
        for record in records:
            if record.cell not in REPEAT_CELLS:
                continue
            original = by_id[record.item_id.replace(record.cell, REPEAT_CELLS[record.cell])]
            assert record.wire_sha256 == original.wire_sha256
            first, again = (ledger.entry(r.metadata["call_key"]) for r in (original, record))
            assert first.key != again.key and first.body == again.body
            assert (first.attempts, again.attempts) == (1, 1)
            texts = [e.response["choices"][0]["message"]["content"] for e in (first, again)]
            assert texts[0] == texts[1] and record.verdict == original.verdict
            for label in LABELS:
                assert (record.label_probs[label] is None) == (original.label_probs[label] is None)
                if record.label_probs[label] is not None:
                    assert record.label_probs[label] == pytest.approx(
                        original.label_probs[label], abs=1e-3
                    )
            pairs += 1
    assert pairs == 2


def test_a_rerun_sends_nothing_and_gives_the_same_records(straight, chat_server):
    records, path = straight
    with FaultProxy("127.0.0.1", _port(chat_server)) as proxy, Ledger(path) as ledger:
        again = run_chat_judge(REQUESTS, CHAT, _endpoint(proxy.url), ledger)
    assert proxy.applied == [] and proxy.forwarded == []
    assert again == records


def _distinct(n: int):
    """The first ``n`` requests whose bodies differ from every other's (no repeat pair)."""
    counts = Counter(r.wire_sha256 for r in REQUESTS)
    return [r for r in REQUESTS if counts[r.wire_sha256] == 1][:n]


def test_faults_end_as_the_ledger_rules_say_and_unknown_calls_are_never_resent(
    chat_server, tmp_path
):
    chosen = _distinct(4)
    hashes = [r.wire_sha256 for r in chosen]
    retry = RetryPolicy(max_attempts=2, backoff_s=0.01)
    with FaultProxy("127.0.0.1", _port(chat_server)) as proxy:
        # connections in order: calls 1-4, then the retries of calls 2 and 4
        proxy.schedule(["drop_after", "http500", "truncated", "http500", "http500", "pass"])
        with Ledger(tmp_path / LEDGER_FILE) as ledger:
            records = run_chat_judge(chosen, CHAT, _endpoint(proxy.url), ledger, retry=retry)
            assert [r.outcome for r in records] == [
                "unknown",  # the answer was swallowed after the body was sent
                "failed",  # 500 twice: retried, then no attempt left
                "unknown",  # half the answer
                "completed",  # 500, then retried and answered
            ]
            attempts = [ledger.entry(r.metadata["call_key"]).attempts for r in records]
            assert attempts == [1, 2, 1, 2]
            assert records[0].error.startswith("sent once with no known outcome (")
            assert "IncompleteRead" in records[2].error
            assert records[1].error.startswith("HTTP 500")
            assert records[1].error.endswith("(attempt 2 of 2 in this run)")
            assert all(r.verdict is None and r.label_probs is None for r in records[:3])
            assert records[3].verdict in LABELS
            # The server saw each call at most once; the 500s never reached it.
            sent = Counter(proxy.forwarded)
            assert sent == Counter([hashes[0], hashes[2], hashes[3]])

            rerun = run_chat_judge(chosen, CHAT, _endpoint(proxy.url), ledger, retry=retry)
            # unknown calls stay unknown and unsent; the failed one is tried again
            assert [r.outcome for r in rerun] == ["unknown", "completed", "unknown", "completed"]
            assert Counter(proxy.forwarded) - sent == Counter([hashes[1]])
            assert [rerun[0].error, rerun[2].error, rerun[3]] == [
                records[0].error,
                records[2].error,
                records[3],
            ]


CHILD = """
import sys
from readout_audit.judge import read_inventory, run_chat_judge
from readout_audit.serve import Endpoint, Ledger
folder, path, url, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
inventory = read_inventory(folder)
chosen = [r for r in inventory.requests if r.request_id in ids]
with Ledger(path) as ledger:
    endpoints = [Endpoint(url, concurrency=1)]
    run_chat_judge(chosen, inventory.settings.configurations[0], endpoints, ledger)
"""


def _wait_until_in_flight(path, child, timeout_s=600.0):
    """Poll the ledger until two calls completed and another is sent (in flight)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and child.poll() is None:
        if path.exists():
            with Ledger(path) as ledger:
                counts = ledger.counts()
            if counts["completed"] >= 2 and counts["sent"] >= 1:
                return
        time.sleep(0.05)
    raise AssertionError(f"the child never had a call in flight ({child.poll()=})")


def test_kill_9_mid_run_then_a_rerun_attempts_every_id_once(chat_server, tmp_path):
    chosen = _distinct(4)
    write_inventory(tmp_path / "inventory", INVENTORY)
    path = tmp_path / LEDGER_FILE
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    with FaultProxy("127.0.0.1", _port(chat_server)) as proxy:
        ids = ",".join(r.request_id for r in chosen)
        command = [sys.executable, "-c", CHILD, str(tmp_path / "inventory"), str(path)]
        child = subprocess.Popen([*command, proxy.url, ids], env=env, stderr=subprocess.DEVNULL)
        _wait_until_in_flight(path, child)
        child.send_signal(signal.SIGKILL)
        child.wait()
        with Ledger(path) as ledger:
            done = {e.tag for e in ledger.entries("completed")}
            in_flight = {e.tag for e in ledger.entries("sent")}
            records = run_chat_judge(chosen, CHAT, _endpoint(proxy.url), ledger)
            rows = {e.tag: e for e in ledger.entries()}
    assert len(done) >= 2 and len(in_flight) == 1
    assert {r.item_id for r in records if r.outcome == "unknown"} == in_flight
    assert {r.outcome for r in records if r.item_id not in in_flight} == {"completed"}
    assert all("the sending process ended" in r.error for r in records if r.outcome == "unknown")
    # Every planned id reached the server exactly once: before the kill or after it.
    assert Counter(proxy.forwarded) == Counter(r.wire_sha256 for r in chosen)
    assert set(rows) == {r.request_id for r in chosen}
    assert all(rows[tag].attempts == 1 for tag in done | in_flight)
    assert [judge_call(r, CHAT).key for r in chosen] == [r.metadata["call_key"] for r in records]


def test_judge_run_drives_a_served_judge_through_the_run_ledger(chat_server, tmp_path):
    """Records are appended as requests settle: a kill -9 mid-run keeps them; reruns finish
    the phase, withdraw the unknown request's record once it is released, send nothing twice."""
    bank = load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl")
    run = tmp_path / "run"
    held: list[bytes] = []

    def third(body: bytes) -> bool:
        if body not in held:
            held.append(body)
        return held.index(body) == 2

    with FaultProxy("127.0.0.1", _port(chat_server), hold=third) as proxy:
        served = parse_configuration(
            f"s3=FINAL3@openai:{proxy.url}#{SERVED_NAME}", PAPER_SEED, "json_object"
        )
        built = build_inventory(
            [bank], [served], seed=PAPER_SEED, per_dataset=1, preflight_per_dataset=1
        )
        write_inventory(tmp_path / "inventory", built)
        args = ["judge", "run", str(tmp_path / "inventory"), "--phase", "preflight"]
        args += ["--out", str(run), "--no-progress"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        child = subprocess.Popen(
            [sys.executable, "-m", "readout_audit", *args, "--concurrency", "1"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        records_file = run / "records.jsonl"
        deadline = time.monotonic() + 300
        while not (proxy.holding.is_set() and _lines(records_file) >= 2):
            assert child.poll() is None and time.monotonic() < deadline, "never mid-run"
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait()
        # the settled requests' records were on disk before the run ended
        kept = read_run(run).records
        assert len(kept) >= 2 and {r.outcome for r in kept} == {"completed"}

        proxy.hold = None
        resumed = CliRunner().invoke(main, [*args, "--plain"])
        assert resumed.exit_code == 0, resumed.output
        records = read_run(run).records
        assert len(records) == 12 and {r.phase for r in records} == {"preflight"}
        assert [r.model_dump() for r in records[: len(kept)]] == [r.model_dump() for r in kept]
        unknown = [r for r in records if r.outcome == "unknown"]
        assert len(unknown) == 1 and unknown[0].wire_sha256 not in proxy.forwarded

        # sending an unknown request again amends the frozen protocol: refused without a reason
        release = ["ledger", str(run), "--release-unknown"]
        refused = CliRunner().invoke(main, release)
        assert refused.exit_code != 0 and "--amend-protocol" in refused.output
        amended = CliRunner().invoke(main, [*release, "--amend-protocol", "the test killed it"])
        assert amended.exit_code == 0 and "released 1 unknown calls" in amended.output
        finished = CliRunner().invoke(main, [*args, "--plain"])
        assert finished.exit_code == 0, finished.output
    records = read_run(run).records
    assert len({r.item_id for r in records}) == 12 and {r.outcome for r in records} == {"completed"}
    assert all(r.verdict in LABELS for r in records)
    # the withdrawn record's request answered last, marked; every request reached the server once
    assert records[-1].item_id == unknown[0].item_id
    assert records[-1].metadata["amendment"] == "the test killed it"
    summary = read_run(run).summary
    assert summary.amended == {unknown[0].item_id: "the test killed it"}
    assert summary.outcomes == {"completed": 11, "unknown": 1}  # the replay is set apart
    verdicts = {c.name: c.verdict for c in summary.checks}
    assert verdicts["amendment"] == "warn" and verdicts["planned"] == "pass"
    assert Counter(proxy.forwarded) == Counter(r.wire_sha256 for r in records)
    with Ledger(run / LEDGER_FILE) as ledger:
        before = ledger.counts()
    money = ["--max-spend-usd", "5", "--usd-per-mtok-prompt", "0.1"]
    again = CliRunner().invoke(main, [*args, "--plain", *money])
    assert again.exit_code == 0, again.output
    with Ledger(run / LEDGER_FILE) as ledger:
        assert ledger.counts() == before  # nothing sent twice
    # each invocation's pools, retries and cap are in the manifest, the URL without secrets
    invocations = read_run(run).manifest.invocations
    assert invocations[0].execution["endpoints"][0]["concurrency"] == 1  # the killed run's
    assert invocations[-2].execution["endpoints"][0]["concurrency"] == 4
    assert invocations[-2].execution["cap"] is None
    assert invocations[-1].execution["cap"]["max_usd"] == 5.0
    assert invocations[-1].execution["retry"]["max_attempts"] >= 1
    assert [r.model_dump() for r in read_run(run).records] == [r.model_dump() for r in records]
    manifest = read_run(run).manifest
    assert manifest.model["served"]["response_format"] == {"s3": "json_object"}


def _lines(path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_a_cue_search_runs_its_stages_on_a_served_judge(chat_server, tmp_path):
    proposals = tmp_path / "proposals.json"
    retained = [
        {"text": "Actually", "token_ids": [39772], "logprob": -1.0, "context": 0},
        {"text": "However", "token_ids": [4460], "logprob": -2.0, "context": 0},
    ]
    proposals.write_text(json.dumps({"retained": retained, "archive": retained}))
    out = tmp_path / "search"
    args = [
        *("judge", "search", str(out), "--programme", "screen", "--proposals", str(proposals)),
        *("--configuration", f"s3=FINAL3@openai:{chat_server}#{SERVED_NAME}"),
        *("--response-format", "json_object", "--concurrency", "1", "--no-progress"),
        *("--gsm8k", str(FIXTURES / "gsm8k_test_head.jsonl")),
        *("--development", "1", "--confirmation", "1", "--keep", "1"),
    ]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    counts = {}
    for stage, planned in (("development-0", 2), ("confirmation", 2 + 2)):
        with Ledger(out / f"{stage}.run" / LEDGER_FILE) as ledger:
            counts[stage] = ledger.counts()
        assert sum(counts[stage].values()) == planned
        assert len(read_run(out / f"{stage}.run").records) == planned
    selection = json.loads((out / "selection.json").read_text())
    assert len(selection["frozen"]) == 2 and selection["frozen"][-1]["text"] == ""
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0, again.output
    for stage in counts:
        with Ledger(out / f"{stage}.run" / LEDGER_FILE) as ledger:
            assert ledger.counts() == counts[stage]  # nothing sent twice
