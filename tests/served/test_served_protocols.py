"""The multi-stage protocols on the embedded model served by a real llama.cpp server, compared
with the same runs on the local model: recovery (no hidden states) and likelihood lift."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from served_commands import ONE_AT_A_TIME, Q4_1, invoke

from readout_audit import read_run
from readout_audit.serve import LEDGER_FILE, Ledger

pytestmark = pytest.mark.cost(70)


def _local_and_served(
    args: list[str], tmp_path: Path, served_spec: str, conformance: Path
) -> tuple[Path, Path, str]:
    """The command run on the local model, then on the served one: both run directories and
    the served run's output."""
    local, served = tmp_path / "local", tmp_path / "served"
    code, output = invoke(*args, "--out", str(local))
    assert code == 0, output
    code, output = invoke(
        *args, "--out", str(served), "--model", served_spec, "--conformance", str(conformance),
        *ONE_AT_A_TIME,
    )  # fmt: skip
    assert code == 0, output
    return local, served, output


SHORT_LOGIC = [
    ("fit-1", "fit", "Every cat is a mammal. Tom is a cat.", "Tom is a mammal.", None),
    ("id-1", "id", "Every dog is an animal. Rex is a dog.", "Rex is an animal.", "true"),
]
"""Two-sentence items (about 90 prompt tokens): llama-cpp-python spends ~0.07 s on every echoed
token (it sorts the vocabulary for each; the tests' server about a third of that, see
tests/llama_sorted_server.py), so each item's three candidates cost seconds: one item fits the
offsets, one is held out."""


def test_recover_runs_on_served_model_without_hidden_states(served_spec, conformance, tmp_path):
    path = tmp_path / "logic.jsonl"
    rows = [
        {"id": i, "context": c, "statement": s, "label": y, "metadata": {"split": split}}
        for i, split, c, s, y in SHORT_LOGIC
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ["audit", "recover", "--items", str(path), "--fit", "fit", "--eval", "id", "--plain"]
    args += ["--n-perm", "200", "--n-boot", "200"]
    local, served, output = _local_and_served(args, tmp_path, served_spec, conformance)
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
    # one cut with a short target (37 tokens) and prompts of 100-140 tokens: every echoed token
    # costs llama-cpp-python ~0.07 s (it sorts the vocabulary for each)
    args = ["lift", "cut", str(tex / "testmath.tex"), "--out", str(cuts), "--per-paper", "1"]
    code, output = invoke(*args, "--max-target", "70", "--min-context", "1000")
    assert code == 0, output
    ids = [json.loads(line)["id"] for line in cuts.read_text().splitlines()]
    forecasts = tmp_path / "z.jsonl"
    forecasts.write_text("".join(json.dumps({"cut_id": i, "z": "x"}) + "\n" for i in ids))
    args = ["lift", "score", "--cuts", str(cuts), "--forecasts", str(forecasts)]
    # one recent-context control (C_B): C_3B's prompt would be the longest echo of the five
    args += [
        "--setting",
        "x",
        "--no-toy",
        "--plain",
        "--no-progress",
        "--bos",
        "--multipliers",
        "1",
    ]
    local, served, output = _local_and_served(args, tmp_path, served_spec, conformance)
    mine = {(r.item_id, r.variant): r for r in read_run(local).records}
    theirs = read_run(served).records
    assert all(r.prompt_tail and r.n_prompt_tokens > 1 for r in theirs)
    assert len(ids) == 1 and len(theirs) == len(mine) == 4  # empty, C_B, forecast, oracle
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


def test_logged_lm_eval_run_re_read_on_a_served_model(served_spec, conformance, tmp_path):
    """lm-eval's own samples of the embedded model (zero-shot: few echoed tokens), re-read on
    the same model served by llama-cpp-python, whose echoed log-probs of raw prompts
    conformance found misaligned: the audit refuses them, and when told to use them anyway it
    says the run is not reproduced."""
    logged = Path(__file__).parents[1] / "fixtures" / "lm-eval"
    (samples,) = logged.glob("samples_readout_mmlu_geography_*.jsonl")
    args = ["audit", "lm-eval", "--samples", str(samples), "--limit", "1", "--model", served_spec]
    args += ["--conformance", str(conformance), *ONE_AT_A_TIME]
    code, output = invoke(*args, "--out", str(tmp_path / "refused"))
    assert code != 0
    assert "echoed log-probs of raw prompts read at the wrong position" in output
    with Ledger(tmp_path / "refused" / LEDGER_FILE) as ledger:  # refused before anything is sent
        assert sum(ledger.counts().values()) == 0
    code, output = invoke(*args, "--allow-nonconforming", "--out", str(tmp_path / "run"))
    assert code == 0, output
    summary = read_run(tmp_path / "run").summary
    (row,) = summary.tasks
    found = row.reproduction
    # judged against the served weights' tolerance from the verdict, not the float32 budget
    assert found is not None and found.tolerance == Q4_1 and found.n_compared == 1
    assert (found.max_abs_diff or 0) > Q4_1 and not found.reproduced
    assert summary.checks[0].name == "reproduced readout_mmlu_geography"
    assert summary.checks[0].verdict == "fail"
