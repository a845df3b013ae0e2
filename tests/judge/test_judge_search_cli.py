"""``readout judge search`` on the real model: development, a frozen selection, confirmation."""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit.judge.search import PROPOSAL_CONTEXTS, SEED_BRIDGES

pytestmark = pytest.mark.cost(45)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
GSM8K = str(FIXTURES / "gsm8k_test_head.jsonl")
POOL = ["Actual", "Correct answer", "However", "The"]


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def cell_of(scaffold: str, text: str) -> str:
    return f"{scaffold}.b{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def search(out: Path, *args: str):
    return CliRunner().invoke(main, ["judge", "search", str(out), *args, "--no-progress"])


def screen(out: Path, proposals: Path, keep: str = "2"):
    return search(
        out,
        "--programme",
        "screen",
        "--configuration",
        "c=FINAL3@smollm2-135m",
        "--proposals",
        str(proposals),
        "--gsm8k",
        GSM8K,
        "--development",
        "2",
        "--confirmation",
        "2",
        "--keep",
        keep,
    )


def test_a_screen_search_ranks_freezes_before_confirmation_and_reads_its_files_back(
    tmp_path, model
):
    proposals = tmp_path / "proposals.json"
    retained = [
        {"text": t, "token_ids": model.codec.encode(t), "logprob": -1.0 - i, "context": 0}
        for i, t in enumerate(POOL)
    ]
    proposals.write_text(json.dumps({"retained": retained, "archive": retained}))
    out = tmp_path / "search"
    result = screen(out, proposals)
    assert result.exit_code == 0, result.output
    # --no-progress: no stage announced, no progress; the model's one loading line alone
    assert not [line for line in result.stderr.splitlines() if not line.startswith("loading")]

    # the development ranking, recomputed from the records: positives, mean score, length, L_Q
    development = records(out / "development-0.run")
    assert len(development) == len(POOL) * 2
    expected = []
    for entry in retained:
        mine = [r for r in development if r["cell"] == cell_of("initially", entry["text"])]
        positives = sum(r["verdict"] == "correct" for r in mine)
        mean = sum(r["label_probs"]["correct"] for r in mine) / len(mine)
        key = (-positives, -mean, len(entry["token_ids"]), -entry["logprob"], entry["text"])
        expected.append((key, entry["text"]))
    ranked = [text for _, text in sorted(expected)]
    selection = json.loads((out / "selection.json").read_text())
    assert [s["text"] for s in selection["rankings"]["initially"]] == ranked
    assert [b["text"] for b in selection["frozen"]] == [*ranked[:2], ""]

    # the confirmation inventory names the selection's hash and holds exactly what was frozen
    manifest = json.loads((out / "confirmation" / "inventory.jsonl.manifest.json").read_text())
    compact = json.dumps(selection, ensure_ascii=False, separators=(",", ":"))
    assert manifest["config"]["search"]["selection"] == hashlib.sha256(compact.encode()).hexdigest()
    confirmation = records(out / "confirmation.run")
    frozen_cells = {cell_of("initially", t) for t in [*ranked[:2], ""]}
    assert {r["cell"] for r in confirmation} == frozen_cells | {"bare_correct", "bare_wrong"}
    assert len(confirmation) == 2 * (3 + 2)
    assert not {r["source_id"] for r in confirmation} & {r["source_id"] for r in development}
    summary = json.loads((out / "confirmation.json").read_text())
    assert [row["score"]["text"] for row in summary["bridges"]] == [*ranked[:2], ""]
    assert "confirmation (positives" in result.output
    # a stage's own report describes it; the protocol's gates and families are not applied
    report = CliRunner().invoke(main, ["report", str(out / "confirmation.run"), "--plain"])
    assert report.exit_code == 0, report.output
    assert "c, confirmation: accepted / with a verdict" in report.output
    assert "bare_correct" in report.output and "label_mass[c]" in report.output
    assert "Control gates" not in report.output and "θ̂" not in report.output

    frozen_outcome = json.loads((out / "confirmation" / "inventory.outcome.json").read_text())[
        "inventory_sha256"
    ]
    # the selection is read back, never recomputed: changed development verdicts change nothing
    frozen_bytes = (out / "selection.json").read_bytes()
    run = out / "development-0.run" / "records.jsonl"
    flipped = [
        {**r, "verdict": "correct" if r["verdict"] != "correct" else "incorrect"}
        for r in development
    ]
    run.write_text("".join(json.dumps(r) + "\n" for r in flipped))
    shutil.rmtree(out / "confirmation")
    shutil.rmtree(out / "confirmation.run")
    again = screen(out, proposals)
    assert again.exit_code == 0, again.output
    assert (out / "selection.json").read_bytes() == frozen_bytes
    outcome = out / "confirmation" / "inventory.outcome.json"
    assert json.loads(outcome.read_text())["inventory_sha256"] == frozen_outcome

    # another search's arguments in the same directory are refused, naming what differs
    changed = screen(out, proposals, keep="3")
    assert changed.exit_code != 0
    assert "holds a search of another configuration" in changed.output
    assert "programme.keep: 2 -> 3" in changed.output


def test_an_extend_search_grows_its_best_strings_by_one_likely_token(
    tmp_path, model, torch_model, float32_budget
):
    out = tmp_path / "search"
    result = search(
        out,
        "--programme",
        "extend",
        "--configuration",
        "c=FINAL3@smollm2-135m",
        "--gsm8k",
        GSM8K,
        "--development",
        "1",
        "--confirmation",
        "1",
        "--rounds",
        "1",
        "--per-round",
        "3",
        "--keep",
        "1",
    )
    assert result.exit_code == 0, result.output
    assert len(records(out / "development-0.run")) == len(SEED_BRIDGES) * 2
    extension = json.loads((out / "extension-1.json").read_text())
    parents = {t for texts in extension["parents"].values() for t in texts}
    assert all(len(texts) == 3 for texts in extension["parents"].values())
    assert len(extension["bridges"]) == 3
    codec = model.codec
    contexts = [
        codec.encode(codec.render_chat([{"role": "user", "content": PROPOSAL_CONTEXTS[i]}], {}))
        for i in (0, 3)
    ]
    for bridge in extension["bridges"]:
        assert bridge["parent"] in parents and bridge["text"] not in SEED_BRIDGES
        head, token = bridge["token_ids"][:-1], bridge["token_ids"][-1]
        assert head == codec.encode(bridge["parent"])
        assert codec.decode(bridge["token_ids"]) == bridge["text"]
        # an independent full forward: the added token is among the 12 likeliest next tokens
        # of one of the two contexts, with the recorded log-probability
        found = []
        for prompt in contexts:
            with torch.no_grad():
                logits = torch_model(torch.tensor([[*prompt, *head]])).logits[0, -1]
            logprobs = torch.log_softmax(logits.double(), -1)
            top = torch.topk(logprobs, 12).indices.tolist()
            found.append(
                token in top
                and math.isclose(
                    bridge["logprob"],
                    float(logprobs[token]),
                    abs_tol=float32_budget(len(prompt)) * 4,
                )
            )
        assert any(found), bridge
    development = records(out / "development-1.run")
    assert {r["cell"] for r in development} == {
        cell_of(scaffold, b["text"])
        for scaffold in ("correct_first", "wrong_only")
        for b in extension["bridges"]
    }
    selection = json.loads((out / "selection.json").read_text())
    frozen = [b["text"] for b in selection["frozen"]]
    best = [selection["rankings"][s][0]["text"] for s in ("correct_first", "wrong_only")]
    baselines = ["Correct answer", "Correct answer instead"]
    controls = ["", "Neutral answer", "Qxvbrtz mptklu"]
    assert frozen == list(dict.fromkeys([*best, *baselines, *controls]))
    roles = selection["roles"]
    assert [roles[t] for t in controls] == ["control"] * 3 and roles[best[0]] == "frozen"
    assert len(records(out / "confirmation.run")) == len(frozen) * 2 + 2


def test_search_arguments_are_checked_first(tmp_path):
    base = ["--configuration", "c=FINAL3@smollm2-135m", "--gsm8k", GSM8K]
    missing = search(tmp_path / "s", "--programme", "screen", *base)
    assert missing.exit_code == 2 and "--proposals is the pool of --programme screen" in (
        missing.output
    )
    bad = search(tmp_path / "s", "--programme", "extend", "--configuration", "c=FINAL9@x")
    assert bad.exit_code != 0 and "give --gsm8k, --drop or --halueval" in bad.output
