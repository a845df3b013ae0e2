"""Real servers on 127.0.0.1 for the request runner: an upstream JSON app and a fault proxy."""

from __future__ import annotations

import pytest
from fault_proxy import FaultProxy
from upstream_app import Upstream

from readout_audit.serve import LEDGER_FILE, HttpCall, Ledger


@pytest.fixture
def upstream():
    """A JSON echo server answering ``100 Continue``, stopped after the test."""
    with Upstream() as server:
        yield server


@pytest.fixture
def proxy(upstream):
    """A fault proxy in front of ``upstream``; ``slow`` holds answers 2.5 s."""
    with FaultProxy("127.0.0.1", upstream.port, slow_s=2.5) as server:
        yield server


@pytest.fixture
def ledger(tmp_path):
    """A fresh ledger in a run directory, closed after the test."""
    with Ledger(tmp_path / LEDGER_FILE) as opened:
        yield opened


def calls(n: int, prompt_max: int = 10, completion_max: int = 5, tag: str = "p") -> list[HttpCall]:
    """``n`` distinct completion calls with the given token bounds."""
    return [
        HttpCall(
            "/completions",
            {"prompt": f"{tag}{i}", "max_tokens": completion_max},
            prompt_max,
            completion_max,
        )
        for i in range(n)
    ]


@pytest.fixture
def make_calls():
    """Builds ``n`` distinct completion calls: ``make_calls(n, prompt_max, completion_max)``."""
    return calls
