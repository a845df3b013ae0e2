"""A chat judge's calls and records without a server: bytes, tags, refusals, each outcome."""

from __future__ import annotations

import hashlib
import json
import math

import pytest
from chat_inventory import CHAT, chat_inventory

from readout_audit import InputError
from readout_audit.judge import parse_configuration, run_chat_judge
from readout_audit.judge.run import chat_record, judge_call
from readout_audit.serve import LEDGER_FILE, CallResult, Endpoint, Ledger

INVENTORY = chat_inventory()
REQUESTS = {r.request_id: r for r in INVENTORY.requests}
RANDOM = REQUESTS["confirmation:chat3:gsm8k:5:random:sorted"]
REPEAT = REQUESTS["confirmation:chat3:gsm8k:5:random_repeat:sorted"]


def test_a_call_sends_the_planned_bytes_tagged_with_the_request_id():
    call = judge_call(RANDOM, CHAT)
    assert (call.path, call.tag, call.completion_tokens_max) == (
        "/chat/completions",
        RANDOM.request_id,
        16,
    )
    assert hashlib.sha256(call.body_bytes).hexdigest() == RANDOM.wire_sha256
    assert call.prompt_tokens_max == len(call.body_bytes) + 2  # one per byte, plus two
    body = json.loads(call.body_bytes)
    assert body["response_format"]["type"] == "json_object"
    assert body["model"] == "smollm2"
    assert json.loads(body["messages"][1]["content"])["state"]["model_reply"] == (
        "64\nGrosmo\nFinal answer: 65."
    )


def test_identical_body_repeats_are_two_calls_with_one_body():
    random, repeat = judge_call(RANDOM, CHAT), judge_call(REPEAT, CHAT)
    assert random.body_bytes == repeat.body_bytes
    assert random.key != repeat.key
    keys = {judge_call(r, CHAT).key for r in INVENTORY.requests}
    assert len(keys) == len(INVENTORY.requests) == 32
    assert len({r.wire_sha256 for r in INVENTORY.requests}) == 24  # 8 repeat pairs


def test_a_body_that_does_not_hash_to_the_plan_is_refused():
    tampered = RANDOM.model_copy(update={"wire_sha256": "0" * 64})
    with pytest.raises(InputError, match="field 'wire_sha256': the body to be sent does not"):
        judge_call(tampered, CHAT)
    # The same name with another response format builds other bytes than were planned.
    other_form = CHAT.model_copy(update={"response_format": "json_schema"})
    with pytest.raises(InputError, match=r"item 'confirmation:chat3:gsm8k:5:random:sorted'"):
        judge_call(RANDOM, other_form)
    other = parse_configuration("other=FINAL3@openai:http://h/v1#smollm2", 1, "json_object")
    with pytest.raises(InputError, match="field 'configuration': belongs to configuration 'chat3'"):
        judge_call(RANDOM, other)


def test_a_repeated_request_id_is_refused_before_anything_is_sent(tmp_path):
    with Ledger(tmp_path / LEDGER_FILE) as ledger:
        with pytest.raises(InputError, match="field 'request_id': is given twice"):
            run_chat_judge([RANDOM, RANDOM], CHAT, [Endpoint("http://127.0.0.1:9/v1")], ledger)
        assert sum(ledger.counts().values()) == 0


def test_each_call_outcome_becomes_its_record():
    key, url = judge_call(RANDOM, CHAT).key, "http://127.0.0.1:9/v1"
    lost = chat_record(RANDOM, CallResult(key, "unknown", None, "sent once ...", url, True))
    assert (lost.outcome, lost.verdict, lost.label_probs, lost.error) == (
        "unknown",
        None,
        None,
        "sent once ...",
    )
    assert lost.metadata == {"call_key": key, "call_state": "unknown", "endpoint": url}
    refused = chat_record(RANDOM, CallResult(key, "failed", None, "HTTP 400", url, False))
    assert (refused.outcome, refused.error) == ("failed", "HTTP 400")
    capped = chat_record(RANDOM, CallResult(key, "capped", None, "not sent: cap", None, False))
    assert (capped.outcome, capped.metadata["call_state"]) == ("failed", "capped")

    content = '{"verdict":"correct"}'
    top = [{"token": "correct", "logprob": -0.7}, {"token": "in", "logprob": -0.9}]
    tokens = [
        {"token": '{"verdict":"', "logprob": -0.1},
        {"token": "correct", "logprob": -0.7, "top_logprobs": top},
        {"token": '"}', "logprob": -0.1},
    ]
    reply = {
        "model": "smollm2",
        "choices": [
            {
                "message": {"role": "assistant", "content": content},
                "logprobs": {"content": tokens},
                "finish_reason": "stop",
            }
        ],
    }
    done = chat_record(RANDOM, CallResult(key, "completed", reply, None, url, False))
    assert (done.outcome, done.verdict, done.error) == ("completed", "correct", None)
    assert done.label_probs == {
        "correct": pytest.approx(math.exp(-0.7)),
        "incorrect": pytest.approx(math.exp(-0.9)),
        "no_answer": None,
    }
    assert (done.accepted, done.right) == (True, False)  # random's target is incorrect
    assert done.metadata == {
        "call_key": key,
        "call_state": "completed",
        "endpoint": url,
        "served_model": "smollm2",
        "finish_reason": "stop",
    }
    assert (done.item_id, done.variant, done.source_id, done.dataset, done.distance) == (
        RANDOM.request_id,
        "random/sorted",
        "gsm8k:5",
        "gsm8k",
        RANDOM.distance,
    )
    assert (done.wire_sha256, done.content_sha256) == (RANDOM.wire_sha256, RANDOM.content_sha256)
    cut = {**reply, "choices": [{**reply["choices"][0], "finish_reason": "length"}]}
    cut["choices"][0]["message"] = {"role": "assistant", "content": '{"verdict":"corr'}
    unparsed = chat_record(RANDOM, CallResult(key, "completed", cut, None, url, False))
    assert (unparsed.outcome, unparsed.verdict, unparsed.metadata["finish_reason"]) == (
        "unparsed",
        None,
        "length",
    )
