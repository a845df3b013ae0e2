"""One exchange and the definition of "sent": the body is written only after 100 Continue."""

from __future__ import annotations

import socket
import time

import pytest
from upstream_app import CERTIFICATE, Upstream, sha

from readout_audit.serve import CONTINUE_WAIT_S, Endpoint, HttpCall
from readout_audit.serve._http import ERROR_BODY_CHARS, post, redact

CALL = HttpCall("/completions", {"prompt": "two plus two is", "max_tokens": 1}, 5, 1)


def exchange(url: str, headers=None, ca_file=None):
    """POST ``CALL`` to ``url``; returns the exchange and the moments the body was released."""
    released: list[float] = []
    endpoint = Endpoint(url, timeout_s=5.0, headers=headers or {}, ca_file=ca_file)
    done = post(endpoint, CALL.path, CALL.body_bytes, lambda: released.append(time.time()))
    return done, released


def test_the_body_goes_after_100_continue_and_a_2xx_json_answer_completes(upstream):
    done, released = exchange(upstream.url)
    assert (done.verdict, done.sent, done.continued) == ("completed", True, True)
    assert done.response == {
        "echo": {"prompt": "two plus two is", "max_tokens": 1},
        "path": "/v1/completions",
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }
    assert len(released) == 1 and released[0] <= upstream.starts[0]
    assert upstream.counts == {sha(CALL.body_bytes): 1}
    sent = upstream.headers[0]
    assert (sent["Expect"], sent["Connection"], sent["Content-Type"]) == (
        "100-continue",
        "close",
        "application/json",
    )
    assert sent["Content-Length"] == str(len(CALL.body_bytes))


@pytest.mark.parametrize(("status", "verdict"), [(417, "failed"), (503, "retry"), (429, "retry")])
def test_a_final_status_instead_of_100_is_read_and_the_body_never_sent(status, verdict):
    with Upstream(expect=str(status)) as upstream:
        done, released = exchange(upstream.url)
    assert (done.verdict, done.sent, released) == (verdict, False, [])
    assert done.error.startswith(f"HTTP {status} ")
    assert not upstream.counts


def test_a_server_that_ignores_expect_gets_the_body_after_the_wait():
    with Upstream(expect="ignore") as upstream:
        started = time.time()
        done, released = exchange(upstream.url)
    assert (done.verdict, done.sent, done.continued) == ("completed", True, False)
    assert released[0] - started >= CONTINUE_WAIT_S
    assert upstream.counts == {sha(CALL.body_bytes): 1}


def test_a_refused_connection_was_not_sent():
    with socket.create_server(("127.0.0.1", 0)) as placeholder:
        port = placeholder.getsockname()[1]  # free once closed: nothing listens there
    done, released = exchange(f"http://127.0.0.1:{port}/v1")
    assert (done.verdict, done.sent, released) == ("retry", False, [])
    assert done.error.startswith("not sent: ConnectionRefusedError")


def test_a_4xx_after_the_body_quotes_300_characters_with_the_key_blanked():
    with Upstream(status=400) as upstream:
        done, _ = exchange(upstream.url, {"Authorization": "Bearer sk-SECRET-77"})
    assert (done.verdict, done.sent) == ("failed", True)
    prefix = 'HTTP 400 Bad Request: {"error": {"message": "invalid request for key [redacted]; xxx'
    assert done.error.startswith(prefix)
    assert len(done.error) == len("HTTP 400 Bad Request: ") + ERROR_BODY_CHARS
    assert "SECRET" not in done.error
    assert upstream.headers[0]["Authorization"] == "Bearer sk-SECRET-77"


def test_over_tls_the_same_exchange_and_an_untrusted_certificate_is_not_retried():
    with Upstream(tls=True) as upstream:
        done, released = exchange(upstream.url, ca_file=str(CERTIFICATE))
        assert (done.verdict, done.sent, done.continued) == ("completed", True, True)
        assert done.response["echo"] == dict(CALL.body) and len(released) == 1
        untrusted, never = exchange(upstream.url)  # the system's authorities only
    assert (untrusted.verdict, untrusted.sent, never) == ("failed", False, [])
    assert untrusted.error.startswith("not sent: SSLCertVerificationError")
    assert upstream.counts == {sha(CALL.body_bytes): 1}


def test_a_key_echoed_without_its_scheme_word_is_blanked_too():
    header = "Bearer sk-SECRET-77"
    echoed = "key sk-SECRET-77 is not valid (sent as Bearer sk-SECRET-77)"
    assert redact(echoed, [header]) == "key [redacted] is not valid (sent as [redacted])"
    assert redact("a Bearer token", ["Bearer"]) == "a [redacted] token"
    assert redact("the key is abc", ["Token abc"]) == "the key is abc"  # too short to stand alone
