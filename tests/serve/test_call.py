"""Calls, endpoints and policies: the key of a call, what an endpoint accepts, the backoff."""

from __future__ import annotations

import hashlib

import pytest

from readout_audit import InputError
from readout_audit.serve import CostCap, Endpoint, HttpCall, RetryPolicy


def test_body_bytes_are_compact_utf8_json_in_the_given_key_order_and_the_key_hashes_them():
    call = HttpCall("/completions", {"prompt": "café", "max_tokens": 3, "model": "m"}, 4, 3)
    body = b'{"prompt":"caf\xc3\xa9","max_tokens":3,"model":"m"}'
    assert call.body_bytes == body
    assert call.key == hashlib.sha256(b"POST /completions\n" + body).hexdigest()
    reordered = HttpCall("/completions", {"max_tokens": 3, "prompt": "café", "model": "m"}, 4, 3)
    assert reordered.key != call.key  # key order is part of what is sent
    other_path = HttpCall("/chat/completions", call.body, 4, 3)
    assert other_path.key != call.key
    assert HttpCall("/completions", dict(call.body), 99, 99).key == call.key  # bounds are not sent


def test_a_tag_is_part_of_the_key_never_of_the_body_and_an_untagged_key_is_unchanged():
    body = {"prompt": "p0", "max_tokens": 5}
    plain = HttpCall("/completions", body, 10, 5)
    # The key an untagged call always had: ledgers written before tags existed stay valid.
    assert plain.key == "da965892bc943b9a54afee0d2b8d4cf9b11be202b759b0135839bda240e55ce8"
    assert HttpCall("/completions", body, 10, 5, tag="").key == plain.key
    tag, repeat = (
        "confirmation:j:gsm8k:1:random:sorted",
        "confirmation:j:gsm8k:1:random_repeat:sorted",
    )
    first = HttpCall("/completions", body, 10, 5, tag=tag)
    again = HttpCall("/completions", body, 10, 5, tag=repeat)
    sent = b'{"prompt":"p0","max_tokens":5}'
    assert first.body_bytes == again.body_bytes == plain.body_bytes == sent
    assert (
        first.key
        == hashlib.sha256(b"POST /completions\n" + sent + b"\ntag " + tag.encode()).hexdigest()
    )
    assert len({plain.key, first.key, again.key}) == 3
    with pytest.raises(InputError, match="field 'tag': must be printable text"):
        HttpCall("/completions", body, 10, 5, tag="a\nb")


def test_endpoint_target_appends_the_call_path_to_the_base_path():
    assert Endpoint("http://127.0.0.1:8080/v1").target("/completions") == "/v1/completions"
    assert Endpoint("http://127.0.0.1:8080/v1/").target("/completions") == "/v1/completions"
    assert Endpoint("https://api.example.org").target("/completions") == "/completions"
    assert (Endpoint("https://api.example.org").port, Endpoint("http://h/v1").port) == (443, 80)
    keyed = Endpoint("http://h/v1", headers={"Authorization": "Bearer k"})
    assert len({keyed, Endpoint("http://h/v1", headers={"Authorization": "Bearer k"})}) == 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"base_url": "ftp://127.0.0.1/v1"}, "base_url"),
        ({"base_url": "http://user:pw@127.0.0.1/v1"}, "base_url"),
        ({"base_url": "http://127.0.0.1/v1?key=1"}, "base_url"),
        ({"base_url": "http://127.0.0.1/v1", "concurrency": 0}, "concurrency"),
        ({"base_url": "http://127.0.0.1/v1", "starts_per_s": 0}, "starts_per_s"),
        ({"base_url": "http://127.0.0.1/v1", "timeout_s": -1}, "timeout_s"),
        ({"base_url": "http://127.0.0.1/v1", "headers": {"Expect": "x"}}, "headers.Expect"),
    ],
)
def test_a_bad_endpoint_names_its_field(kwargs, field):
    with pytest.raises(InputError) as raised:
        Endpoint(**kwargs)
    assert raised.value.field == field


def test_a_header_value_is_never_shown_not_even_in_its_own_error_or_the_repr():
    secret = "Bearer sk-live-\nSECRET"  # a line break would split the request's headers
    with pytest.raises(InputError) as raised:
        Endpoint("http://127.0.0.1/v1", headers={"Authorization": secret})
    assert raised.value.field == "headers.Authorization"
    assert "SECRET" not in str(raised.value)
    endpoint = Endpoint("http://127.0.0.1/v1", headers={"Authorization": "Bearer SECRET"})
    assert "SECRET" not in repr(endpoint)


def test_a_bad_call_or_policy_names_its_field():
    with pytest.raises(InputError, match="'body': is not JSON"):
        HttpCall("/completions", {"temperature": float("nan")}, 1, 1)
    with pytest.raises(InputError, match="'body': is not JSON"):
        HttpCall("/completions", {"stop": {"a", "b"}}, 1, 1)
    with pytest.raises(InputError, match="'path': must start with '/'"):
        HttpCall("completions", {}, 1, 1)
    with pytest.raises(InputError, match="'completion_tokens_max': must be an integer"):
        HttpCall("/completions", {}, 1, -1)
    with pytest.raises(InputError, match="'max_usd'"):
        CostCap(max_usd=-1.0)
    with pytest.raises(InputError, match="'max_attempts'"):
        RetryPolicy(max_attempts=0)


def test_backoff_doubles_up_to_its_ceiling_and_a_longer_retry_after_wins_up_to_it_too():
    policy = RetryPolicy(backoff_s=0.5, max_backoff_s=3.0)
    assert [policy.delay(n) for n in (1, 2, 3, 4, 5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert policy.delay(1, retry_after=2.5) == 2.5
    assert policy.delay(1, retry_after=5.0) == 3.0  # a server never holds a call past the ceiling
    assert policy.delay(3, retry_after=1.0) == 2.0
    assert policy.delay(5000) == 3.0  # 2.0**4999 would overflow
