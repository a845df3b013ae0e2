"""Reading served replies: echoed continuations, greedy top-k, spec parsing (hand-built replies)."""

from __future__ import annotations

import pytest

from readout_audit._exceptions import InputError
from readout_audit.model._served import api_headers
from readout_audit.model._served_calls import (
    GreedyReply,
    ReplyError,
    continuation_count,
    greedy_call,
    read_echo,
    read_greedy,
    top_ids,
)
from readout_audit.model._served_spec import parse_served_spec


def _echo(tokens, values, text, generated):
    return {
        "choices": [{"text": text, "logprobs": {"tokens": tokens, "token_logprobs": values}}],
        "usage": {"prompt_tokens": len(tokens), "completion_tokens": generated},
    }


def test_echo_reads_the_continuation_before_the_generated_token():
    reply = _echo(["The", " capital", " is", " Paris", "."], [None, -9.0, -1.0, -0.5, -2.0],
                  "The capital is Paris.", 1)  # fmt: skip
    assert read_echo(reply, "The capital is Paris", " Paris", 1) == [-0.5]
    assert read_echo(reply, "The capital is Paris", " is Paris", 2) == [-1.0, -0.5]


def test_echo_without_the_generated_token_is_read_at_the_prompt_end():
    # llama-cpp-python leaves the generated token out when the prompt has no BOS
    reply = _echo(["The", " capital", " is", " Paris"], [None, -9.0, -1.0, -0.5],
                  "The capital is Paris.", 1)  # fmt: skip
    assert read_echo(reply, "The capital is Paris", " Paris", 1) == [-0.5]


def test_echo_that_does_not_spell_the_continuation_is_refused():
    reply = _echo(["The", " capital", " is", " Par", "is"], [None, -9.0, -1.0, -0.5, -0.1],
                  "The capital is Paris", 0)  # fmt: skip
    with pytest.raises(ReplyError, match="spell ' Paris'"):
        read_echo(reply, "The capital is Paris", " Paris", 1)
    with pytest.raises(ReplyError, match="no log-probability"):
        read_echo(_echo(["A"], [None], "A", 0), "A", "A", 1)
    with pytest.raises(ReplyError, match="does not start with the prompt"):
        read_echo(_echo(["B"], [-1.0], "B", 0), "A", "A", 1)


def test_greedy_reply_gives_text_and_first_step_top():
    reply = {
        "choices": [
            {"text": " Paris", "logprobs": {"top_logprobs": [{" Paris": -0.2, " the": -2.5}]}}
        ]
    }
    greedy = read_greedy(reply)
    assert greedy.text == " Paris" and greedy.top == {" Paris": -0.2, " the": -2.5}
    with pytest.raises(ReplyError, match="no logprobs"):
        read_greedy({"choices": [{"text": "x"}]})
    # llama-cpp-python's reply when the first greedy token is the end of turn (seen on SmolLM2
    # after a zero-shot MMLU prompt): the stop token and its log-probs are left out
    empty = {"tokens": [], "text_offset": [], "token_logprobs": [], "top_logprobs": []}
    stopped = {"choices": [{"text": "", "logprobs": empty, "finish_reason": "stop"}]}
    assert read_greedy(stopped) == GreedyReply("", {})
    for reason in ("length", None):  # cut short or unexplained: still an error
        with pytest.raises(ReplyError, match="no text or no top_logprobs"):
            read_greedy({"choices": [{"text": "", "logprobs": empty, "finish_reason": reason}]})


def test_top_k_keys_become_ids_by_vllm_token_ids_or_unique_surfaces():
    surfaces = {" Paris": 7, "A": 3}
    top = {"token_id:12": -0.1, " Paris": -1.0, " unknown": -2.0, "token_id:x": -3.0}
    assert top_ids(top, surfaces) == {12: -0.1, 7: -1.0}
    assert greedy_call("m", "p", 2, 5, token_ids=True).body["return_tokens_as_token_ids"] is True
    assert "return_tokens_as_token_ids" not in greedy_call("m", "p", 2, 5).body


def test_continuation_count_needs_the_context_tokens_unchanged():
    assert continuation_count([1, 2, 3], [1, 2, 3, 4, 5]) == 2
    assert continuation_count([1, 2, 3], [1, 2, 7, 4]) is None


def test_served_spec_forms_and_errors(tmp_path):
    spec = parse_served_spec("openai:http://a:1/v1/,https://b/v1#m")
    assert spec.base_urls == ("http://a:1/v1", "https://b/v1") and spec.model == "m"
    listing = tmp_path / "urls.txt"
    listing.write_text("# replicas\nhttp://a:1/v1\n\nhttp://b:2/v1\n")
    assert parse_served_spec(f"openai:{listing}#m").base_urls == ("http://a:1/v1", "http://b:2/v1")
    for bad, message in [
        ("openai:http://a/v1", "malformed"),
        ("openai:ftp://a#m", "no such file"),
        ("openai:http://a/v1,http://a/v1#m", "listed twice"),
        (f"openai:{tmp_path / 'none.txt'}#m", "no such file"),
    ]:
        with pytest.raises(InputError, match=message):
            parse_served_spec(bad)


def test_api_key_comes_from_the_named_variable_and_errors_never_show_it(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-secret")
    assert api_headers("MY_KEY") == {"Authorization": "Bearer sk-secret"}
    assert api_headers(None) == {}
    monkeypatch.delenv("MY_KEY")
    with pytest.raises(InputError, match="MY_KEY is not set"):
        api_headers("MY_KEY")


def test_conformance_table_prints_a_servers_hostile_strings_as_text(capsys):
    from readout_audit.model._conformance import Check, Conformance, EndpointConformance
    from readout_audit.report import print_conformance

    detail = "first token '[/bold]\x1b[31mRED' maps to no single local id"
    check = Check(name="chat_template", verdict="fail", detail=detail)
    conformance = Conformance(
        model="m[/bold]",
        reference="r",
        reference_sha256=[],
        quantisation=None,
        tolerance=0.1,
        endpoints=[EndpointConformance(endpoint="http://x/v1", server="openai", checks=[check])],
    )
    print_conformance(conformance, plain=True)  # rich markup here would raise a MarkupError
    out = capsys.readouterr().out
    assert "'[/bold]RED'" in out and "\x1b" not in out
    assert "m[/bold] does NOT conform" in out


def test_an_endpoint_that_answered_no_check_does_not_conform():
    from readout_audit.model._conformance import Check, EndpointConformance

    def endpoint(*verdicts: str) -> EndpointConformance:
        checks = [Check(name=f"c{i}", verdict=v, detail="") for i, v in enumerate(verdicts)]
        return EndpointConformance(endpoint="http://x/v1", server="openai", checks=checks)

    assert endpoint("pass", "unavailable").conforms
    assert not endpoint("pass", "fail").conforms
    assert not endpoint("unavailable", "unavailable").conforms  # a server crashing on each call
