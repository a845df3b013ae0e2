"""Faults between `readout` and a real llama.cpp server, through a real proxy.

Kill -9 and resume on a served run: tests/served (the P(True) answer step).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from fault_proxy import FaultProxy
from llama_state import SERVER_ROUNDING

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit.serve import LEDGER_FILE, Ledger

pytestmark = pytest.mark.cost(35)

QUESTIONS = [f"Which number is larger?\nA. {a}\nB. {b}\nAnswer A or B."
             for a, b in [(17, 71), (40, 4), (8, 80)]]  # fmt: skip


def _items(tmp_path: Path, n: int) -> Path:
    path = tmp_path / f"items{n}.jsonl"
    lines = [
        {"id": f"q{i}", "messages": [{"role": "user", "content": q}], "options": ["A", "B"]}
        for i, q in enumerate(QUESTIONS[:n])
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


SHORT = [{"role": "system", "content": ""}, {"role": "user", "content": "A or B?"}]
"""The fault test's chat turns: 18 tokens rendered (the question above under the template's
default system prompt makes 53). llama-cpp-python sorts the whole vocabulary for every echoed
token, ~0.1-0.2 s each, so an echo call takes ~2-5 s instead of ~6-9 s."""


def _short_item(tmp_path: Path) -> Path:
    path = tmp_path / "short.jsonl"
    line = {"id": "q0", "messages": SHORT, "options": ["A", "B"]}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def _port(url: str) -> int:
    return int(url.split(":")[-1].split("/")[0])


def _score(items: Path, out: Path, url: str, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        main,
        ["score", "--items", str(items), "--out", str(out), "--plain", "--concurrency", "1",
         "--model", f"openai:{url}#smollm2", "--tokenizer", "smollm2-135m",
         "--allow-nonconforming", "--server", "llama-cpp-python", *extra],
    )  # fmt: skip
    return result.exit_code, result.output


def _bodies(out: Path, *states: str) -> dict[str, str]:
    """Key → SHA-256 of the body, for the ledger's calls in ``states``."""
    with Ledger(out / LEDGER_FILE) as ledger:
        return {e.key: hashlib.sha256(e.body).hexdigest() for e in ledger.entries(*states)}


def _same_logprobs(one: Path, two: Path) -> bool:
    """The two runs' records hold the same items and option log-probs within the budget."""
    a, b = ({r.item_id: r.option_logprobs for r in read_run(d).records} for d in (one, two))
    return a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], abs=SERVER_ROUNDING) for k in a)


TIMEOUT_S = 10
"""The client's timeout in the fault test: above any real call, below the slow fault's hold."""

FAST = ("--greedy-tokens", "1")
"""The fault test's greedy call: one token, not 16 (each one's top-k sorts the vocabulary too)."""


def test_each_fault_is_retried_or_left_unknown_and_never_replayed(llama_server, tmp_path):
    items = _short_item(tmp_path)
    straight, out = tmp_path / "straight", tmp_path / "faulty"
    assert _score(items, straight, llama_server, *FAST)[0] == 0
    # an echo call of the short context takes ~2-5 s on a busy 2-core machine (see SHORT), so
    # the timeout sits well above it and the slow fault's hold above that
    faulty = (*FAST, "--request-timeout", str(TIMEOUT_S))
    with FaultProxy("127.0.0.1", _port(llama_server), slow_s=TIMEOUT_S + 4) as proxy:
        proxy.schedule(["refuse", "hangup", "http500", "http429", "drop_after", "slow"])
        proxy.schedule(["truncated", "bad_json"])
        code, output = _score(items, out, proxy.url, *faulty)
        assert code == 1 and "1 of 1 scored positions have no record" in output
        unknown, completed = _bodies(out, "unknown"), _bodies(out, "completed")
        assert len(unknown) == 4 and len(completed) == 6 - 4  # greedy, 2 echoes, 3 tokenize
        sent = Counter(proxy.forwarded)
        # refused, hung-up, 500 and 429 calls never reached the server; each was retried
        assert all(sent[h] == 1 for h in {*unknown.values(), *completed.values()})
        assert sum(sent.values()) == 6
        code, output = _score(items, out, proxy.url, *faulty)
        assert code == 1 and "--release-unknown" in output
        assert Counter(proxy.forwarded) == sent  # nothing sent again: unknowns are not replayed
        result = CliRunner().invoke(main, ["ledger", str(out), "--release-unknown"])
        assert result.exit_code == 0, result.output
        code, output = _score(items, out, proxy.url, *faulty)
        assert code == 0, output
        again = Counter(proxy.forwarded) - sent
        assert sorted(again) == sorted(unknown.values())  # only the released calls, once each
        assert all(sent[h] == 1 for h in completed.values())
    assert _same_logprobs(out, straight)


def test_cost_cap_is_reserved_before_sending_and_held_across_reruns(llama_server, tmp_path):
    items, out = _items(tmp_path, 3), tmp_path / "capped"
    cap = 250  # about two items: each reserves ~360 tokens call by call and is charged ~110
    for _ in range(2):
        code, output = _score(items, out, llama_server, "--max-spend-tokens", str(cap))
        assert code == 1 and "capped" in output
        with Ledger(out / LEDGER_FILE) as ledger:
            assert 0 < ledger.spend().tokens <= cap
            assert ledger.counts().get("completed", 0) > 0


def test_two_endpoints_share_one_run(llama_server, tmp_path):
    items, out, straight = _items(tmp_path, 2), tmp_path / "two", tmp_path / "straight"
    assert _score(items, straight, llama_server, "--no-echo")[0] == 0
    port = _port(llama_server)
    with FaultProxy("127.0.0.1", port) as first, FaultProxy("127.0.0.1", port) as second:
        listing = tmp_path / "endpoints.txt"
        listing.write_text(f"# two replicas\n{first.url}\n{second.url}\n")
        result = CliRunner().invoke(
            main,
            ["score", "--items", str(items), "--out", str(out), "--plain",
             "--model", f"openai:{listing}#smollm2", "--tokenizer", "smollm2-135m",
             "--allow-nonconforming", "--concurrency", "1", "--server", "llama-cpp-python",
             "--no-echo"],  # the top-k alone: no vocabulary sort per echoed token
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert first.forwarded and second.forwarded  # both pools took calls
        assert not set(first.forwarded) & set(second.forwarded)  # each call sent once
    assert _same_logprobs(out, straight)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["model"]["served"]["endpoints"] == [first.url, second.url]
