"""Audits of the embedded model served by a real llama.cpp server, compared with it run locally."""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from fault_proxy import FaultProxy
from llama_state import SERVER_ROUNDING

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit.model._conformance import TOLERANCE
from readout_audit.serve import LEDGER_FILE, Ledger

Q4_1 = TOLERANCE["Q4_1"]
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
        "options": [" Paris", " London", " Rome"],
    },
]
SECRET = "sk-never-written-anywhere"
ONE_AT_A_TIME = ["--concurrency", "1", "--request-timeout", "600"]
"""For long prompts: llama-cpp-python answers one request at a time and echoes ~0.11 s per
prompt token (it sorts the vocabulary for each), so a 600-token echo takes over a minute and
four queued ones would pass the default 120 s timeout while waiting."""


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), env={"SERVED_KEY": SECRET})
    return result.exit_code, result.output


def _items(tmp_path: Path, items: list[dict]) -> Path:
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


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


def test_served_score_matches_local_and_compares(served_spec, conformance, tmp_path):
    items = _items(tmp_path, CHAT_ITEMS)
    local, served = tmp_path / "local", tmp_path / "served"
    code, output = _invoke("score", "--items", str(items), "--out", str(local), "--plain")
    assert code == 0, output
    code, output = _invoke(
        "score", "--items", str(items), "--out", str(served), "--plain",
        "--model", served_spec, "--conformance", str(conformance), "--api-key-env", "SERVED_KEY",
    )  # fmt: skip
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
    served_spec, conformance, tmp_path
):
    # a chat-only endpoint, as a hosted API: the same server asked without echo requests
    cities = {**CHAT_ITEMS[1], "options": [" Paris", " zebra"]}
    items = _items(tmp_path, [CHAT_ITEMS[0], cities])
    runs = {}
    for name, flag in [("echo", "--echo"), ("top_k", "--no-echo")]:
        runs[name] = tmp_path / name
        code, output = _invoke(
            "score", "--items", str(items), "--out", str(runs[name]), "--plain",
            "--model", served_spec, "--conformance", str(conformance), flag,
        )  # fmt: skip
        assert code == 0, output
    exact = {r.item_id: r for r in read_run(runs["echo"]).records}
    top = {r.item_id: r for r in read_run(runs["top_k"]).records}
    letters, city = top["letters"], top["cities"]
    # single-token options inside the top-20: the same exact values as the echo gives
    assert letters.option_logprobs == pytest.approx(
        exact["letters"].option_logprobs, abs=SERVER_ROUNDING
    )
    assert letters.option_mass == pytest.approx(exact["letters"].option_mass, abs=SERVER_ROUNDING)
    # " zebra" is outside the top-20: unavailable, never 0; the mass is only bounded below
    assert city.option_logprobs[1] is None and city.option_mass is None
    assert city.option_probs is None
    paris = math.exp(exact["cities"].option_token_logprobs[0][0])
    assert city.option_mass_lower == pytest.approx(paris, abs=SERVER_ROUNDING)
    assert paris <= city.top_k_mass <= 1.0 + 1e-6
    methods = json.loads((runs["top_k"] / "manifest.json").read_text())["model"]["served"]
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


def test_chat_api_scores_chat_renderings_only(served_spec, conformance, tmp_path):
    # an API with chat completions only: the server renders the turns itself
    items = _items(tmp_path, CHAT_ITEMS)
    echo, chat = tmp_path / "echo", tmp_path / "chat"
    served = ["--model", served_spec, "--conformance", str(conformance), "--plain"]
    code, output = _invoke("score", "--items", str(items), "--out", str(echo), *served)
    assert code == 0, output
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


SHORT_LOGIC = [
    ("fit-1", "fit", "Every cat is a mammal. Tom is a cat.", "Tom is a mammal.", None),
    ("fit-2", "fit", "No fish is a bird. Nemo is a fish.", "Nemo is a bird.", None),
    ("id-1", "id", "Every dog is an animal. Rex is a dog.", "Rex is an animal.", "true"),
    ("id-2", "id", "No stone is alive. Pebble is a stone.", "Pebble is alive.", "false"),
]
"""Two-sentence items (about 90 prompt tokens): llama-cpp-python spends ~0.1 s on every echoed
token (it sorts the vocabulary for each), so each item's three candidates cost ~30 s."""


def test_recover_runs_on_served_model_without_hidden_states(served_spec, conformance, tmp_path):
    path = tmp_path / "logic.jsonl"
    rows = [
        {"id": i, "context": c, "statement": s, "label": y, "metadata": {"split": split}}
        for i, split, c, s, y in SHORT_LOGIC
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ["audit", "recover", "--items", str(path), "--fit", "fit", "--eval", "id", "--plain"]
    args += ["--n-perm", "200", "--n-boot", "200"]
    local, served = tmp_path / "local", tmp_path / "served"
    code, output = _invoke(*args, "--out", str(local))
    assert code == 0, output
    code, output = _invoke(
        *args, "--out", str(served), "--model", served_spec, "--conformance", str(conformance),
        *ONE_AT_A_TIME,
    )  # fmt: skip
    assert code == 0, output
    mine = {r.item_id: r for r in read_run(local).records}
    gaps = []
    for record in read_run(served).records:
        assert record.hidden_row is None and record.label_logits is None
        assert record.option_token_ids == mine[record.item_id].option_token_ids
        served_scores = np.array(record.option_logprobs)
        local_scores = np.array(mine[record.item_id].option_logprobs)
        assert served_scores.argmax() == local_scores.argmax()
        gaps += list(np.abs((served_scores - served_scores[0]) - (local_scores - local_scores[0])))
    # llama.cpp's quantised activations, and the prefix its cache kept from the request before,
    # move the candidates' differences by up to 0.64 on 250-token prompts (typically under
    # 0.25); a misread slot would move them by several nats and reorder them
    assert np.median(gaps) < Q4_1 and max(gaps) < 4 * Q4_1
    assert "full string + label-free offsets" in output and "No probes: the backend" in output


def test_lift_scores_on_a_served_scorer_as_on_the_local_model(served_spec, conformance, tmp_path):
    tex = Path(__file__).parent.parent / "fixtures" / "tex"
    cuts = tmp_path / "cuts.jsonl"
    # one cut with a short target (37 tokens) and prompts of 100-180 tokens: every echoed token
    # costs llama-cpp-python ~0.1 s
    args = ["lift", "cut", str(tex / "testmath.tex"), "--out", str(cuts), "--per-paper", "1"]
    code, output = _invoke(*args, "--max-target", "70", "--min-context", "1000")
    assert code == 0, output
    ids = [json.loads(line)["id"] for line in cuts.read_text().splitlines()]
    forecasts = tmp_path / "z.jsonl"
    forecasts.write_text("".join(json.dumps({"cut_id": i, "z": "x"}) + "\n" for i in ids))
    args = ["lift", "score", "--cuts", str(cuts), "--forecasts", str(forecasts)]
    args += ["--setting", "x", "--no-toy", "--plain", "--no-progress", "--bos"]
    local, served = tmp_path / "local", tmp_path / "served"
    code, output = _invoke(*args, "--out", str(local))
    assert code == 0, output
    code, output = _invoke(
        *args, "--out", str(served), "--model", served_spec, "--conformance", str(conformance),
        *ONE_AT_A_TIME,
    )  # fmt: skip
    assert code == 0, output
    mine = {(r.item_id, r.variant): r for r in read_run(local).records}
    theirs = read_run(served).records
    assert all(r.prompt_tail and r.n_prompt_tokens > 1 for r in theirs)
    assert len(ids) == 1 and len(theirs) == len(mine) == 5
    for record in theirs:
        here = mine[(record.item_id, record.variant)]
        assert record.target_token_ids == here.target_token_ids
        # per-token log-probabilities of quantised activations move by up to ~0.25 on
        # 100-600-token prompts; their clipLL_2 means agree within that tolerance
        clip = [np.mean(np.maximum(r.target_logprobs, -2)) for r in (record, here)]
        assert abs(clip[0] - clip[1]) < Q4_1, (record.item_id, record.variant, clip)
    for cut in ids:  # the true suffix in the first equation lifts the target on both scorers
        for records in (mine, {(r.item_id, r.variant): r for r in theirs}):
            oracle, empty = records[(cut, "oracle")], records[(cut, "empty")]
            assert np.mean(oracle.target_logprobs) > np.mean(empty.target_logprobs) + 0.3
