"""Reading a chat judge's reply by hand: the verdict, and each label's probability as returned."""

from __future__ import annotations

import math

import pytest

from readout_audit.judge.protocol import FINAL3, FINAL4, HALL
from readout_audit.judge.run import read_chat_verdict

LABELS = FINAL3.labels


def entry(token, logprob, top=None):
    """One token of ``logprobs.content``; ``top`` is a list of (token, logprob)."""
    out = {"token": token, "logprob": logprob, "bytes": None}
    if top is not None:
        out["top_logprobs"] = [{"token": t, "logprob": lp, "bytes": None} for t, lp in top]
    return out


def reply(content, tokens=None, *, model="smollm2", finish_reason="stop"):
    """A chat completion reply; ``tokens`` is ``logprobs.content`` (None: no log-probs)."""
    choice = {
        "index": 0,
        "message": {"role": "assistant", "content": content},
        "finish_reason": finish_reason,
        "logprobs": None if tokens is None else {"content": tokens},
    }
    return {"object": "chat.completion", "model": model, "choices": [choice]}


def test_a_label_split_across_tokens_takes_each_labels_longest_own_prefix():
    # {"verdict":"incorrect"} as {" verdict ":" in correct "}: the value starts at "in".
    top = [
        ("in", -0.105),
        ("correct", -2.5),
        ("no", -3.0),
        ("c", -4.0),  # shorter than "correct": not the one read
        ("", -6.0),  # empty: a prefix of every label
        ("In", -7.0),  # not a prefix (case)
        ("i", -8.0),
    ]
    tokens = [
        entry('{"', -0.01, [('{"', -0.01)]),
        entry("verdict", -0.02, [("verdict", -0.02)]),
        entry('":"', -0.03, [('":"', -0.03)]),
        entry("in", -0.105, top),
        entry("correct", -0.001, [("correct", -0.001), ("cor", -7.0)]),
        entry('"}', -0.001, [('"}', -0.001)]),
    ]
    verdict, probs, error = read_chat_verdict(reply('{"verdict":"incorrect"}', tokens), LABELS)
    assert (verdict, error) == ("incorrect", None)
    assert probs == {
        "correct": pytest.approx(math.exp(-2.5)),
        "incorrect": pytest.approx(math.exp(-0.105)),
        "no_answer": pytest.approx(math.exp(-3.0)),
    }


def test_a_token_that_starts_before_the_value_is_read_past_its_lead():
    # { "verdict": "correct" } where one token ` "c` holds the quote and the first letter.
    top = [(' "c', -0.2), (' "in', -1.9), (' "n', -3.1), ("c", -9.0), (' "', -5.0)]
    tokens = [
        entry('{ "', -0.1),
        entry("verdict", -0.1),
        entry('":', -0.1),
        entry(' "c', -0.2, top),
        entry("orrect", -0.01, [("orrect", -0.01)]),
        entry('" }', -0.1),
    ]
    verdict, probs, error = read_chat_verdict(reply('{ "verdict": "correct" }', tokens), LABELS)
    assert (verdict, error) == ("correct", None)
    assert probs == {
        "correct": pytest.approx(math.exp(-0.2)),
        "incorrect": pytest.approx(math.exp(-1.9)),
        "no_answer": pytest.approx(math.exp(-3.1)),
    }


def test_a_label_no_entry_spells_has_none_and_nothing_is_renormalised():
    top = [("correct", -0.5), ("The", -1.2)]
    tokens = [entry('{"verdict":"', -0.1), entry("correct", -0.5, top), entry('"}', 0.0)]
    verdict, probs, _ = read_chat_verdict(reply('{"verdict":"correct"}', tokens), LABELS)
    assert verdict == "correct"
    assert probs == {"correct": pytest.approx(0.6065306597), "incorrect": None, "no_answer": None}


def test_missing_top_logprobs_or_log_probs_leave_the_verdict_and_no_probabilities():
    content = '{"verdict":"no_answer"}'
    no_top = [entry('{"verdict":"', -0.1), entry("no", -0.3), entry('_answer"}', -0.1)]
    assert read_chat_verdict(reply(content, no_top), LABELS) == (
        "no_answer",
        None,
        "the reply shows no top_logprobs at the verdict's token",
    )
    assert read_chat_verdict(reply(content), LABELS) == (
        "no_answer",
        None,
        "the reply shows no log-probs",
    )
    misspelt = [entry('{"verdict":"', -0.1), entry("no_answer", -0.3, [("no", -0.3)])]
    assert read_chat_verdict(reply(content, misspelt), LABELS) == (
        "no_answer",
        None,
        "the log-probs' tokens do not spell the reply's content",
    )


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (
            "The answer is correct.",
            "the reply is neither JSON nor a label: 'The answer is correct.'",
        ),
        ('{"verdict":"maybe"}', "the verdict 'maybe' is not one of the labels"),
        ('{"verdict":1}', "the verdict 1 is not one of the labels"),
        ('{"answer":"correct"}', "the reply's JSON has no verdict"),
        ('["correct"]', "the reply's JSON has no verdict"),
        ('"correct"', "the reply's JSON has no verdict"),
        ('{"verdict":"corr', "the reply is neither JSON nor a label"),  # cut at max_tokens
        ("", "the reply is neither JSON nor a label: ''"),
    ],
)
def test_a_reply_that_names_no_label_has_no_verdict(content, error):
    verdict, probs, message = read_chat_verdict(reply(content), LABELS)
    assert (verdict, probs) == (None, None)
    assert message.startswith(error)


def test_no_message_content_has_no_verdict():
    for broken in ({}, {"choices": []}, reply(None), {"choices": [{"message": "correct"}]}):
        assert read_chat_verdict(broken, LABELS) == (None, None, "the reply has no message content")


def test_plain_text_that_is_exactly_one_label_counts():
    tokens = [entry(" ", -0.5), entry("correct", -0.01, [("correct", -0.01), ("in", -4.6)])]
    tokens.append(entry("\n", -0.2))
    verdict, probs, error = read_chat_verdict(reply(" correct\n", tokens), LABELS)
    assert (verdict, error) == ("correct", None)
    assert probs == {
        "correct": pytest.approx(math.exp(-0.01)),
        "incorrect": pytest.approx(math.exp(-4.6)),
        "no_answer": None,
    }
    assert read_chat_verdict(reply("correct answer"), LABELS)[0] is None


def test_duplicate_spellings_with_different_logprobs_and_malformed_entries_are_not_read():
    top = [
        ("correct", -1.0),
        ("correct", -2.0),  # another token id with the same text: which one is unknown
        ("in", -0.5),
        ("in", -0.5),  # the same entry twice: one value
        ("no", float("nan")),
        ("n", 0.5),  # a probability above one
        ("no_", True),  # not a number
    ]
    tokens = [entry('{"verdict":"', -0.1), entry("in", -0.5, top), entry('correct"}', -0.1)]
    _, probs, _ = read_chat_verdict(reply('{"verdict":"incorrect"}', tokens), LABELS)
    assert probs == {"correct": None, "incorrect": pytest.approx(math.exp(-0.5)), "no_answer": None}


def test_minus_infinity_is_probability_zero():
    top = [("correct", float("-inf")), ("in", -0.01)]
    tokens = [entry('{"verdict":"', -0.1), entry("in", -0.01, top), entry('correct"}', -0.1)]
    _, probs, _ = read_chat_verdict(reply('{"verdict":"incorrect"}', tokens), LABELS)
    assert probs["correct"] == 0.0


def test_the_last_of_repeated_verdict_keys_is_read_as_json_reads_it():
    content = '{"verdict":"correct","verdict":"incorrect"}'
    tokens = [
        entry('{"verdict":"correct","verdict":"', -0.1, [("x", -1.0)]),
        entry("incorrect", -0.2, [("incorrect", -0.2), ("correct", -1.8)]),
        entry('"}', -0.1),
    ]
    verdict, probs, _ = read_chat_verdict(reply(content, tokens), LABELS)
    assert verdict == "incorrect"
    assert probs["correct"] == pytest.approx(math.exp(-1.8))


def test_other_contracts_labels():
    top = [("amb", -1.1), ("a", -0.1), ("c", -0.9), ("inc", -2.0), ("n", -3.0)]
    tokens = [entry('{"verdict":"', -0.1), entry("a", -0.1, top), entry('mbiguous"}', -0.1)]
    verdict, probs, _ = read_chat_verdict(reply('{"verdict":"ambiguous"}', tokens), FINAL4.labels)
    assert verdict == "ambiguous"
    assert probs == {
        "correct": pytest.approx(math.exp(-0.9)),
        "incorrect": pytest.approx(math.exp(-2.0)),
        "no_answer": pytest.approx(math.exp(-3.0)),
        "ambiguous": pytest.approx(math.exp(-1.1)),  # "amb" is longer than "a"
    }
    top = [("support", -0.3), ("halluc", -1.4), ("s", -0.2)]
    tokens = [entry('{"verdict":"', -0.1), entry("support", -0.3, top), entry('ed"}', -0.1)]
    _, probs, _ = read_chat_verdict(reply('{"verdict":"supported"}', tokens), HALL.labels)
    assert probs == {
        "supported": pytest.approx(math.exp(-0.3)),
        "hallucinated": pytest.approx(math.exp(-1.4)),
    }


def test_a_verdict_written_with_escapes_has_no_probabilities():
    content = '{"verdict":"\\u0063orrect"}'
    tokens = [entry(content, -0.1, [("x", -0.1)])]
    assert read_chat_verdict(reply(content, tokens), LABELS) == (
        "correct",
        None,
        "the verdict's value is not written plainly: no probabilities",
    )
