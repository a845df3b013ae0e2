"""A redirect never takes the API key to another origin: GET /models and the POSTs alike."""

from __future__ import annotations

import pytest
from upstream_app import Upstream

from readout_audit import ModelNotAvailableError
from readout_audit.model._served import detect_server
from readout_audit.serve import LEDGER_FILE, Endpoint, Ledger, RequestRunner, RetryPolicy

SECRET = "sk-live-SECRET-4242"
HEADERS = {"Authorization": f"Bearer {SECRET}"}


@pytest.mark.parametrize("status", [302, 307])
def test_models_follows_a_redirect_on_its_origin_only(status):
    with Upstream() as elsewhere:
        moved = f"http://127.0.0.1:{elsewhere.port}/v1/models?token=abc"
        with (
            Upstream(redirects={"/v1/models": (status, moved)}) as endpoint,
            pytest.raises(ModelNotAvailableError) as refused,
        ):
            detect_server(endpoint.url, HEADERS, timeout=5)
        with Upstream(redirects={"/v1/models": (status, "/v2/models")}) as same_origin:
            assert detect_server(same_origin.url, HEADERS, timeout=5) == "vllm"
    assert elsewhere.headers == []  # the other origin was never asked, key or not
    assert str(refused.value) == (
        f"{endpoint.url}/models redirected ({status}) to "
        f"http://127.0.0.1:{elsewhere.port}/v1/models?token=[redacted], another origin: not "
        "followed (cross-origin redirects are refused, since the request may carry an API key)"
    )
    assert [h["Authorization"] for h in endpoint.headers] == [f"Bearer {SECRET}"]
    assert [h["Authorization"] for h in same_origin.headers] == [f"Bearer {SECRET}"] * 2


def test_a_completion_answered_by_a_redirect_fails_and_is_not_followed(tmp_path, make_calls):
    with Upstream() as elsewhere:
        moved = f"http://{SECRET}@127.0.0.1:{elsewhere.port}/v1/completions?api_key={SECRET}"
        with (
            Upstream(redirects={"/v1/completions": (307, moved)}) as endpoint,
            Ledger(tmp_path / LEDGER_FILE) as ledger,
        ):
            to_endpoint = Endpoint(endpoint.url, concurrency=1, timeout_s=5, headers=HEADERS)
            runner = RequestRunner([to_endpoint], ledger, retry=RetryPolicy(max_attempts=3))
            [result] = runner.run(make_calls(1))
    assert (result.state, result.endpoint) == ("failed", endpoint.url)
    assert result.error == (
        f"HTTP 307 Temporary Redirect: redirected to http://[redacted]@127.0.0.1:{elsewhere.port}"
        "/v1/completions?api_key=[redacted], not followed (redirects are refused: the request may "
        "carry an API key) (attempt 1 of 3 in this run)"
    )
    assert len(endpoint.headers) == 1 and elsewhere.headers == []  # not retried, not followed
    assert all(SECRET.encode() not in p.read_bytes() for p in tmp_path.iterdir())
