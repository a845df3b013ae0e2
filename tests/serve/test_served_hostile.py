"""Hostile served endpoints, each made here by a FaultProxy answering by itself: impossible
log-probs, an answer dripped a byte at a time, Retry-After values of every kind, no log-probs."""

from __future__ import annotations

import json
import math
import time
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from click.testing import CliRunner
from fault_proxy import FaultProxy
from hostile import refused

from readout_audit import ModelNotAvailableError, read_run
from readout_audit._cli import main
from readout_audit.model import EMBEDDED_SPEC
from readout_audit.model._backend import PositionRequest, PositionScores
from readout_audit.model._load import load_codec
from readout_audit.model._served import ServedSettings, detect_server, load_served
from readout_audit.model._served_plan import PositionPlan, Unsettled
from readout_audit.serve import (
    LEDGER_FILE,
    Endpoint,
    HttpCall,
    Ledger,
    RequestRunner,
    RetryPolicy,
    retry_after_s,
)

PROMPT = "The capital of France is"
OPTIONS = {" Paris": -0.4, " Rome": -2.0}
"""The fake server's log-prob of each option after the prompt; every other echoed token's is
``CONTEXT_LOGPROB``, and its greedy top-k holds the options and `` a``."""
CONTEXT_LOGPROB = -1e-4
TOP = {**OPTIONS, " a": -2.5}
USAGE = {"prompt_tokens": 6, "completion_tokens": 1}


@pytest.fixture(scope="module")
def codec():
    return load_codec(EMBEDDED_SPEC)[0]


def fake_openai(codec, logprobs: bool = True, usage: dict[str, int] = USAGE):
    """An OpenAI-compatible server's answers (``/models``, completions, chat completions), each
    reporting ``usage`` as it stands when the answer is made."""

    def answer(method: str, path: str, body: bytes) -> bytes:
        if method == "GET":
            return json.dumps({"data": [{"id": "m", "owned_by": "someone"}]}).encode()
        request = json.loads(body)
        if path.endswith("/chat/completions"):
            choice = {"message": {"role": "assistant", "content": " Paris"}}
        elif request["echo"]:
            prompt = request["prompt"]
            tokens = [codec.token_surface(i) for i in codec.encode(prompt)] + [" the"]
            values = [None] + [OPTIONS.get(t, CONTEXT_LOGPROB) for t in tokens[1:-1]] + [-1.0]
            choice = {"text": prompt + " the", "logprobs": {"tokens": tokens,
                      "token_logprobs": values, "top_logprobs": [None] * len(tokens)}}  # fmt: skip
        else:
            choice = {"text": " Paris", "logprobs": {"tokens": [" Paris"],
                      "token_logprobs": [OPTIONS[" Paris"]], "top_logprobs": [TOP]}}  # fmt: skip
        if not logprobs:
            choice.pop("logprobs", None)
        return json.dumps({"choices": [choice | {"index": 0}], "usage": usage}).encode()

    return answer


def served(url: str):
    settings = ServedSettings(concurrency=1, server="openai", echo=True)
    return load_served(f"openai:{url}#m", tokenizer=EMBEDDED_SPEC, settings=settings)


IMPOSSIBLE = [
    # (faults of the greedy call and the two echoes, in the order sent; the refusal's words;
    # which of the three calls are refused)
    (["pass", "echo_late", "echo_late"], "the options' first tokens has a probability mass of "
     f"{2 * math.exp(CONTEXT_LOGPROB):.6g}, above 1", [1, 2]),
    (["above_zero"], f"the top-k holds a log-probability of {OPTIONS[' Paris'] + 3:.6g}, above 0",
     [0]),
    (["not_argmax"], "the greedy token ' Rome' is not the top-k's argmax ' Paris'", [0]),
    (["pass", "above_zero"], f"the echo of ' Paris' holds a log-probability of "
     f"{OPTIONS[' Paris'] + 3:.6g}, above 0", [1]),
]  # fmt: skip


@pytest.mark.parametrize(("faults", "reason", "refused_calls"), IMPOSSIBLE)
def test_impossible_log_probs_are_refused_as_failed_requests_and_a_rerun_sends_them_again(
    codec, tmp_path, faults, reason, refused_calls
):
    options = [codec.encode(o) for o in OPTIONS]
    request = PositionRequest(context=codec.encode(PROMPT), continuations=options, greedy_tokens=1)
    with FaultProxy(None, None, answer=fake_openai(codec)) as proxy:
        model = served(proxy.url)
        proxy.schedule(faults)
        # three calls, in the order sent: the greedy one, then each option's echo
        calls = PositionPlan.make(model, request).calls()
        with model.ledger(tmp_path / LEDGER_FILE) as runner:
            (first,) = model.settle([request])
            entries = [runner.ledger.entry(call.key) for call in calls]
            spend = runner.ledger.spend()
            (again,) = model.settle([request])  # the server behaves now
            rerun = [runner.ledger.entry(call.key) for call in calls]
    assert isinstance(first, Unsettled)
    assert reason in first.reason and "a rerun sends them again" in first.reason
    assert [e.state for e in entries] == [
        "failed" if n in refused_calls else "completed" for n in range(3)
    ]
    for n in refused_calls:
        assert entries[n].error.startswith("impossible answer: ") and reason in entries[n].error
    assert spend.tokens == 3 * sum(USAGE.values())  # what the server charged still counts
    # the rerun resent exactly the refused calls, and reads the server's own numbers
    assert isinstance(again, PositionScores)
    assert [e.state for e in rerun] == ["completed"] * 3
    assert [e.attempts for e in rerun] == [2 if n in refused_calls else 1 for n in range(3)]
    assert [list(c) for c in again.continuations] == [
        [pytest.approx(v, abs=1e-7)] for v in OPTIONS.values()
    ]
    assert again.distribution.logprob(codec.encode(" Paris")[0]) == pytest.approx(-0.4, abs=1e-7)
    assert again.greedy == codec.encode(" Paris")


def test_a_shifted_echo_is_never_recorded_and_the_rerun_records_the_true_numbers(codec, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "q", "prompt": PROMPT, "options": list(OPTIONS)}) + "\n")
    out = tmp_path / "run"
    with FaultProxy(None, None, answer=fake_openai(codec)) as proxy:
        args = ["score", "--items", items, "--out", out, "--tokenizer", "smollm2-135m",
                "--model", f"openai:{proxy.url}#m", "--server", "openai", "--echo",
                "--allow-nonconforming", "--concurrency", "1", "--plain"]  # fmt: skip
        proxy.schedule(["pass", "echo_late", "echo_late"])
        error = refused(args, "1 of 1 scored positions have no record", "probability mass")
        assert "impossible log-probs" in error
        assert read_run(out).records == []
        result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    (record,) = read_run(out).records
    assert record.option_logprobs == pytest.approx(list(OPTIONS.values()), abs=1e-6)
    mass = sum(math.exp(v) for v in OPTIONS.values())
    assert record.option_mass == pytest.approx(mass, abs=1e-6)


def test_an_impossible_usage_count_fails_its_request_by_name_and_a_rerun_sends_it_again(
    codec, tmp_path
):
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "q", "prompt": PROMPT, "options": list(OPTIONS)}) + "\n")
    out = tmp_path / "run"
    usage = {**USAGE, "prompt_tokens": 10**30}
    with FaultProxy(None, None, answer=fake_openai(codec, usage=usage)) as proxy:
        args = ["score", "--items", items, "--out", out, "--tokenizer", "smollm2-135m",
                "--model", f"openai:{proxy.url}#m", "--server", "openai", "--echo",
                "--allow-nonconforming", "--concurrency", "1", "--plain"]  # fmt: skip
        error = refused(args, "1 of 1 scored positions have no record", "q/production")
        assert "impossible answer: an integer of 31 digits is out of range" in error
        assert "not JSON" not in error
        with Ledger(out / LEDGER_FILE) as ledger:
            entries = ledger.entries()
            spend = ledger.spend()
        # answered, so failed (never unknown), and each reservation stays charged
        assert [e.state for e in entries] == ["failed"] * 3 and spend.tokens > 0
        assert read_run(out).records == []
        usage.update(USAGE)  # the server reports its usage again: the rerun sends all three
        result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    (record,) = read_run(out).records
    assert record.option_logprobs == pytest.approx(list(OPTIONS.values()), abs=1e-6)


DRIP = 0.1
"""Seconds between two bytes of a dripped answer: each read waits far less than the timeout."""


def test_a_dripping_answer_ends_by_the_request_deadline_post_and_get_alike(tmp_path):
    padded = b'{"pad": "' + b"x" * 300 + b'"}'  # 300+ bytes at 0.1 s: 30 s without a deadline
    with FaultProxy(None, None, answer=lambda *_: padded, drip_s=DRIP) as proxy:
        proxy.schedule(["drip", "drip"])
        call = HttpCall("/completions", {"prompt": "x"}, 3, 1)
        with Ledger(tmp_path / LEDGER_FILE) as ledger:
            endpoint = Endpoint(proxy.url, concurrency=1, timeout_s=1.0)
            started = time.monotonic()
            (result,) = RequestRunner([endpoint], ledger).run([call])
            posted = time.monotonic() - started
        started = time.monotonic()
        with pytest.raises(ModelNotAvailableError) as listing:
            detect_server(proxy.url, {}, timeout=1.0)
        got = time.monotonic() - started
    assert result.state == "unknown"  # sent, and no complete answer came
    assert "no complete answer within the request's 1 s" in result.error
    assert str(listing.value) == (
        f"{proxy.url}/models did not answer: TimeoutError: no complete answer within the "
        "request's 1 s"
    )
    assert posted < 15 and got < 15  # a 1 s deadline, on a loaded machine; not 30 s


NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 2.5 ", 2.5),
        ("-5", 0.0),
        ("1e308", 1e308),
        ("inf", math.inf),
        ("nan", None),
        ("soon", None),
        ("", None),
        (None, None),
        (format_datetime(datetime.fromtimestamp(NOW + 90, UTC), usegmt=True), 90.0),
        (format_datetime(datetime.fromtimestamp(NOW - 90, UTC), usegmt=True), 0.0),
        ("Tue, 14 Nov 2023 22:14:20 -0000", 60.0),  # NOW + 60, its zone unsaid
        ("Fri, 31 Dec 99999 23:59:59 GMT", None),
    ],
)
def test_retry_after_is_read_as_seconds_or_an_http_date_and_capped_by_the_policy(value, seconds):
    assert retry_after_s(value, now=NOW) == seconds
    policy = RetryPolicy(backoff_s=0.5, max_backoff_s=30.0)
    expected = 0.5 if seconds is None else min(max(seconds, 0.5), 30.0)
    assert policy.delay(1, retry_after_s(value, now=NOW)) == expected


@pytest.mark.parametrize("value", ["86400", "1e308", "inf", "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_a_huge_retry_after_waits_the_policys_ceiling_and_leaves_nothing_reserved(tmp_path, value):
    ceiling = 0.5
    with FaultProxy(None, None, answer=lambda *_: b'{"ok": 1}', retry_after=value) as proxy:
        proxy.schedule(["http429", "http429"])
        calls = [HttpCall("/completions", {"prompt": f"p{i}"}, 3, 1) for i in range(2)]
        with Ledger(tmp_path / LEDGER_FILE) as ledger:
            retry = RetryPolicy(max_attempts=2, backoff_s=0.01, max_backoff_s=ceiling)
            endpoint = Endpoint(proxy.url, concurrency=1)
            started = time.monotonic()
            results = RequestRunner([endpoint], ledger, retry=retry).run(calls)
            took = time.monotonic() - started
            entries = ledger.entries()
            counts = ledger.counts()
    assert [r.state for r in results] == ["completed", "completed"]
    assert [e.attempts for e in entries] == [2, 2]
    assert all(e.started_at - e.created_at >= ceiling for e in entries)  # it did wait
    assert took < 15  # not a day, and no OverflowError
    assert counts["reserved"] == 0


def test_a_run_stopped_by_an_error_leaves_no_call_reserved(tmp_path):
    # six calls in flight at once: five are refused with 429 and wait to retry (reserved)
    # when the sixth's result stops the run with an error
    with FaultProxy(None, None, answer=lambda *_: b'{"ok": 1}', retry_after="1") as proxy:
        proxy.schedule(["http429"] * 5)
        calls = [HttpCall("/completions", {"prompt": f"p{i}"}, 3, 1) for i in range(6)]

        def stop(result):
            if result.state == "completed":
                raise RuntimeError("the caller failed to keep a result")

        with Ledger(tmp_path / LEDGER_FILE) as ledger:
            retry = RetryPolicy(max_attempts=3, backoff_s=5.0, max_backoff_s=5.0)
            runner = RequestRunner([Endpoint(proxy.url, concurrency=6)], ledger, retry=retry)
            with pytest.raises(RuntimeError, match="failed to keep a result"):
                runner.run(calls, on_result=stop)
            counts, spend = ledger.counts(), ledger.spend()
    assert counts["reserved"] == 0 and counts["sent"] == 0
    assert counts["completed"] == 1 and counts["planned"] == 5
    assert spend.tokens == 3 + 1  # the completed call's reservation (no usage reported)


def test_conformance_of_an_endpoint_without_log_probs_is_one_error_line(codec, tmp_path):
    out = tmp_path / "conformance"
    with FaultProxy(None, None, answer=fake_openai(codec, logprobs=False)) as proxy:
        model = ["--model", f"openai:{proxy.url}#m", "--server", "openai"]
        args = ["conformance", *model, "--out", out, "--limit", "2"]
        error = refused(args, proxy.url, "returned no log-probabilities")
    assert "completion replies carry no 'logprobs'" in error
    assert not (out / "conformance.json").exists()
