"""uvicorn (vLLM's and SGLang's server) answers 100 Continue: checked where it is installed."""

from __future__ import annotations

import json
import threading
import time

import pytest

from readout_audit.serve import Endpoint, HttpCall
from readout_audit.serve._http import post

uvicorn = pytest.importorskip("uvicorn")


async def app(scope, receive, send):
    """A bare ASGI app: reads the JSON body (which is when uvicorn sends 100) and echoes it."""
    if scope["type"] != "http":
        return
    body, more = b"", True
    while more:
        message = await receive()
        body, more = body + message.get("body", b""), message.get("more_body", False)
    answer = json.dumps({"echo": json.loads(body)}).encode()
    headers = [(b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": answer})


@pytest.mark.parametrize("http", ["h11", "httptools"])
def test_uvicorn_answers_100_continue_so_the_body_follows_it(http):
    if http == "httptools":
        pytest.importorskip("httptools")
    config = uvicorn.Config(app, host="127.0.0.1", port=0, http=http, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        call = HttpCall("/completions", {"prompt": "hi", "max_tokens": 1}, 2, 1)
        endpoint = Endpoint(f"http://127.0.0.1:{port}/v1")
        done = post(endpoint, call.path, call.body_bytes, lambda: None)
    finally:
        server.should_exit = True
        thread.join()
    assert (done.verdict, done.continued) == ("completed", True)
    assert done.response == {"echo": {"prompt": "hi", "max_tokens": 1}}
