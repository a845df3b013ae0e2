"""Audits of the embedded model served by a real llama.cpp server, compared with it run locally."""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from fault_proxy import FaultProxy
from llama_state import SERVER_ROUNDING
from served_commands import Q4_1, SECRET
from served_commands import invoke as _invoke
from served_commands import write_items as _items

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit.serve import LEDGER_FILE, Ledger

pytestmark = pytest.mark.cost(75)

CHAT_ITEMS = [
    {
        "id": "letters",
        "messages": [
            {"role": "user", "content": "Which number is larger?\nA. 17\nB. 71\nAnswer A or B."}
        ],
        "options": ["A", "B"],
    },
    {
        "id": "cities",
        "messages": [{"role": "user", "content": "What is the capital of France?"}],
        "stem": "The capital of France is",
        "options": [" Paris", " London", " Rome", " zebra"],
    },
]
"""A chat item with single-token letters, and a stemmed one whose last option (" zebra") is
outside the server's top-20."""


@pytest.fixture(scope="module")
def echo_run(served_spec, conformance, tmp_path_factory) -> tuple[Path, Path]:
    """The items file and one served run of it with echo, read (never changed) by the tests
    below: the local comparison, the top-k-only run and the chat-completions run."""
    tmp_path = tmp_path_factory.mktemp("echo")
    items, out = _items(tmp_path, CHAT_ITEMS), tmp_path / "served"
    code, output = _invoke(
        "score", "--items", str(items), "--out", str(out), "--plain",
        "--model", served_spec, "--conformance", str(conformance), "--api-key-env", "SERVED_KEY",
    )  # fmt: skip
    assert code == 0, output
    return items, out


def test_conformance_finds_raw_echo_one_position_late(conformance: Path):
    report = json.loads(conformance.read_text())
    checks = {c["name"]: c for c in report["endpoints"][0]["checks"]}
    assert report["quantisation"] == "Q4_1" and report["tolerance"] == Q4_1
    assert report["endpoints"][0]["server"] == "llama-cpp-python"
    assert checks["echo_alignment_raw"]["verdict"] == "fail"
    assert "one position late" in checks["echo_alignment_raw"]["detail"]
    passing = ["tokenisation", "bos", "echo_alignment_chat", "logprob_difference"]
    passing += ["chat_template", "top_k", "determinism"]
    assert {name: checks[name]["verdict"] for name in passing} == dict.fromkeys(passing, "pass")
    assert 0 < checks["logprob_difference"]["value"] <= Q4_1


def test_served_score_matches_local_and_compares(served_spec, echo_run, tmp_path):
    items, served = echo_run
    local = tmp_path / "local"
    code, output = _invoke("score", "--items", str(items), "--out", str(local), "--plain")
    assert code == 0, output
    by_id = {r.item_id: r for r in read_run(local).records}
    served_records = read_run(served).records
    assert sorted(r.item_id for r in served_records) == sorted(by_id)
    for record in served_records:
        mine = by_id[record.item_id]
        assert record.option_token_ids == mine.option_token_ids
        assert record.argmax_id == mine.argmax_id
        assert record.option_logprobs == pytest.approx(mine.option_logprobs, abs=Q4_1)
        assert record.option_mass == pytest.approx(mine.option_mass, abs=Q4_1)
    manifest = json.loads((served / "manifest.json").read_text())
    assert manifest["model"]["served"]["server"] == "llama-cpp-python"
    verdicts = manifest["model"]["served"]["conformance"][served_spec[7:].split("#")[0]]
    assert verdicts["echo_alignment_raw"] == "fail" and verdicts["logprob_difference"] == "pass"
    assert manifest["model"]["served"]["refused_forms"] == ["raw"]
    for path in served.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    code, output = _invoke("compare", str(local), str(served), "--plain")
    assert code == 0, output
    code, output = _invoke("report", str(served), "--plain")
    assert code == 0 and "llama-cpp-python" in output
    assert "fail: echo_alignment_raw" in output and "echo log-probs of context + option" in output


def test_raw_positions_refused_other_records_kept(served_spec, conformance, tmp_path):
    raw = {"id": "raw", "prompt": "The capital of France is", "options": [" Paris", " Rome"]}
    items = _items(tmp_path, [CHAT_ITEMS[0], raw])
    out = tmp_path / "run"
    args = ["score", "--items", str(items), "--out", str(out), "--plain", "--model", served_spec]
    code, output = _invoke(*args, "--conformance", str(conformance))
    assert code == 1 and "1 of 2 scored positions have no record" in output
    assert "raw prompts read at the wrong position" in output
    assert [r.item_id for r in read_run(out).records] == ["letters"]
    code, output = _invoke(*args, "--tokenizer", "smollm2-135m")
    assert code == 1 and "need its conformance verdict" in output


@pytest.mark.parametrize("audit", ["options"])  # yes/no: test_readme_served.py
def test_audits_run_on_served_model(audit, served_spec, conformance, tmp_path):
    out = tmp_path / audit
    extra = []
    if audit == "options":
        mc = {
            "id": "q1",
            "question": "Which is a fruit?",
            "choices": ["stone", "apple"],
            "answer": "B",
        }
        extra = ["--items", str(_items(tmp_path, [mc])), "--spec", "answer"]
        extra += ["--variants", "production,stem", "--greedy-tokens", "2"]
    code, output = _invoke(
        "audit", audit, "--limit", "1", "--out", str(out), "--plain", *extra,
        "--model", served_spec, "--conformance", str(conformance),
    )  # fmt: skip
    assert code == 0, output
    run = read_run(out)
    assert run.summary is not None and len(run.records) >= 1


def test_without_echo_only_the_top_k_is_read_and_the_rest_is_unavailable(
    served_spec, conformance, echo_run, tmp_path
):
    # a chat-only endpoint, as a hosted API: the same server asked without echo requests
    items, echo = echo_run
    top_k = tmp_path / "top_k"
    code, output = _invoke(
        "score", "--items", str(items), "--out", str(top_k), "--plain",
        "--model", served_spec, "--conformance", str(conformance), "--no-echo",
    )  # fmt: skip
    assert code == 0, output
    exact = {r.item_id: r for r in read_run(echo).records}
    top = {r.item_id: r for r in read_run(top_k).records}
    letters, city = top["letters"], top["cities"]
    # single-token options inside the top-20: the same exact values as the echo gives
    assert letters.option_logprobs == pytest.approx(
        exact["letters"].option_logprobs, abs=SERVER_ROUNDING
    )
    assert letters.option_mass == pytest.approx(exact["letters"].option_mass, abs=SERVER_ROUNDING)
    # " zebra" is outside the top-20: unavailable, never 0; the mass is only bounded below
    assert city.option_logprobs[3] is None and city.option_mass is None
    assert city.option_probs is None
    # the lower bound sums the options inside the top-20, as the echo reads them
    shown = [i for i, lp in enumerate(city.option_logprobs) if lp is not None]
    assert 0 in shown and 3 not in shown
    lower = sum(math.exp(exact["cities"].option_token_logprobs[i][0]) for i in shown)
    assert city.option_mass_lower == pytest.approx(lower, abs=SERVER_ROUNDING)
    assert city.option_mass_lower <= city.top_k_mass <= 1.0 + 1e-6
    methods = json.loads((top_k / "manifest.json").read_text())["model"]["served"]
    assert "lower bound" in methods["option_mass"]


def _ledger_bodies(run: Path) -> dict[str, dict]:
    """The run's ledger: SHA-256 of each request body → the body."""
    with Ledger(run / LEDGER_FILE) as ledger:
        return {hashlib.sha256(e.body).hexdigest(): json.loads(e.body) for e in ledger.entries()}


def test_every_request_of_a_served_ptrue_run_answers_included_is_in_its_ledger(
    llama_server, served_spec, conformance, tmp_path
):
    qa = _items(
        tmp_path, [{"id": "q1", "question": "What is the capital of France?", "gold": "Paris"}]
    )
    port = int(llama_server.split(":")[-1].split("/")[0])
    out = tmp_path / "greedy"
    with FaultProxy("127.0.0.1", port) as proxy:
        code, output = _invoke(
            "audit", "ptrue", "--items", str(qa), "--answers", "greedy", "--out", str(out),
            "--model", f"openai:{proxy.url}#{served_spec.split('#')[1]}", "--plain",
            "--tokenizer", "smollm2-135m", "--allow-nonconforming", "--server", "llama-cpp-python",
            "--no-echo",  # the top-k alone: no vocabulary sort per echoed token
        )  # fmt: skip
    assert code == 0, output
    assert len(read_run(out).records) >= 1
    rows = _ledger_bodies(out)
    # every request that reached the server is a row of the run's ledger, each sent once
    assert Counter(proxy.forwarded) == Counter(list(rows))
    # the answer step's generation (the question alone, before the P(True) prompt) among them
    prompts = [str(body.get("prompt", "")) for body in rows.values()]
    answering = [p for p in prompts if "capital of France" in p and "Possible answer" not in p]
    assert answering and len(answering) < len(prompts)

    # a yes/no run: Algorithm 1's diagnostic reads go through the same ledger
    (tmp_path / "yes").mkdir()
    yesno = _items(tmp_path / "yes", [{"id": "y1", "question": "Is fire hot?", "label": "yes"}])
    with FaultProxy("127.0.0.1", port) as proxy:
        code, output = _invoke(
            "audit", "yesno", "--items", str(yesno), "--out", str(tmp_path / "yesno"),
            "--model", f"openai:{proxy.url}#{served_spec.split('#')[1]}", "--plain",
            "--tokenizer", "smollm2-135m", "--allow-nonconforming", "--server", "llama-cpp-python",
            "--no-echo",  # the top-k alone: no vocabulary sort per echoed token
        )  # fmt: skip
    assert code == 0, output
    rows = _ledger_bodies(tmp_path / "yesno")
    assert proxy.forwarded and Counter(proxy.forwarded) == Counter(list(rows))
    assert read_run(tmp_path / "yesno").artifacts["diagnostic"]["sample"] == 1

    # the cost cap holds the answer step too: nothing is sent beyond it
    with FaultProxy("127.0.0.1", port) as proxy:
        code, output = _invoke(
            "audit", "ptrue", "--items", str(qa), "--answers", "greedy",
            "--out", str(tmp_path / "capped"), "--max-spend-tokens", "8",
            "--model", f"openai:{proxy.url}#{served_spec.split('#')[1]}", "--plain",
            "--tokenizer", "smollm2-135m", "--allow-nonconforming", "--server", "llama-cpp-python",
        )  # fmt: skip
    assert code != 0 and "cap" in output
    rows = _ledger_bodies(tmp_path / "capped")
    # only calls that cost no tokens (tokenize) reached the server, each a row of the ledger;
    # the answer step's completion is a row too, planned and never sent
    assert set(proxy.forwarded) <= set(rows)
    assert not [h for h in proxy.forwarded if "max_tokens" in rows[h]]
    assert [b for h, b in rows.items() if "max_tokens" in b and h not in proxy.forwarded]

    code, output = _invoke(
        "audit", "ptrue", "--items", str(qa), "--out", str(tmp_path / "library"),
        "--model", served_spec, "--conformance", str(conformance), "--plain",
    )  # fmt: skip
    assert code == 1 and "takes no minimum of new tokens" in output


def test_kill_9_during_answer_generation_then_a_rerun_sends_nothing_twice(llama_server, tmp_path):
    asked = [("What is the capital of France?", "Paris"), ("What colour is grass?", "green")]
    qa = _items(
        tmp_path, [{"id": f"q{i}", "question": q, "gold": g} for i, (q, g) in enumerate(asked)]
    )
    answers: list[bytes] = []

    def second_answer(body: bytes) -> bool:
        """The second question's generation (an answer asks for more than one new token)."""
        if json.loads(body).get("max_tokens", 1) <= 1:
            return False
        if body not in answers:
            answers.append(body)
        return answers.index(body) == 1

    port = int(llama_server.split(":")[-1].split("/")[0])
    out = tmp_path / "killed"
    with FaultProxy("127.0.0.1", port, hold=second_answer) as proxy:
        args = ["audit", "ptrue", "--items", str(qa), "--answers", "greedy", "--out", str(out)]
        args += ["--model", f"openai:{proxy.url}#smollm2", "--tokenizer", "smollm2-135m"]
        args += ["--allow-nonconforming", "--server", "llama-cpp-python", "--concurrency", "1"]
        args += ["--no-echo"]  # the readouts' top-k alone: no vocabulary sort per echoed token
        child = subprocess.Popen(
            [sys.executable, "-m", "readout_audit", *args, "--no-progress"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        held = proxy.holding.wait(timeout=300)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        assert held, "the second answer was never requested"
        with Ledger(out / LEDGER_FILE) as ledger:
            states = Counter(
                e.state for e in ledger.entries() if json.loads(e.body).get("max_tokens", 1) > 1
            )
        # the first answer completed, the second in flight at the kill, nothing scored yet
        assert states["completed"] == 1 and states["sent"] == 1, states
        records = out / "records.jsonl"
        assert not records.is_file() or not records.read_text()
        proxy.hold = None
        code, output = _invoke(*args, "--plain")
        # the held request's outcome is unknown: it is not sent again until released
        assert code != 0 and "--release-unknown" in output, output
        assert len(Counter(proxy.forwarded)) == len(proxy.forwarded)
        CliRunner().invoke(main, ["ledger", str(out), "--release-unknown"])
        code, output = _invoke(*args, "--plain")
        assert code == 0, output
    assert {r.item_id for r in read_run(out).records} == {"q0", "q1"}
    rows = _ledger_bodies(out)
    # every request of both runs reached the server once, and each is a row of the ledger
    assert Counter(proxy.forwarded) == Counter(list(rows))


def test_chat_api_scores_chat_renderings_only(served_spec, conformance, echo_run, tmp_path):
    # an API with chat completions only: the server renders the turns itself
    items, echo = echo_run
    chat = tmp_path / "chat"
    served = ["--model", served_spec, "--conformance", str(conformance), "--plain"]
    code, output = _invoke(
        "score", "--items", str(items), "--out", str(chat), *served, "--chat-api"
    )
    assert code == 1 and "1 of 2 scored positions have no record" in output
    assert "exactly its chat turns' rendering" in output  # the stemmed item
    exact = {r.item_id: r for r in read_run(echo).records}
    (letters,) = read_run(chat).records
    assert letters.item_id == "letters"
    # the server's own rendering of the turns gives the locally rendered context's numbers
    assert letters.argmax_id == exact["letters"].argmax_id
    assert letters.option_logprobs == pytest.approx(
        exact["letters"].option_logprobs, abs=SERVER_ROUNDING
    )
    assert letters.greedy.text == exact["letters"].greedy.text
    served_info = json.loads((chat / "manifest.json").read_text())["model"]["served"]
    assert "chat completion" in served_info["top_k"]
