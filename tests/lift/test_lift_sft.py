"""The context-only SFT control: split, examples, objective by hand, and LoRA on the real scorer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner
from lift_cuts import EQUATION_TARGETS as TARGETS
from lift_cuts import equation_cut

from readout_audit._cli import _model, main
from readout_audit._exceptions import InputError
from readout_audit.lift import LiftSetup
from readout_audit.lift._conditions import SFT, conditions, target_text
from readout_audit.lift._kind import summarise_lift
from readout_audit.lift._score import encode_scored, leading_ids
from readout_audit.lift.sft import (
    ADAPTER,
    LOSSES,
    PROJECTIONS,
    SftConfig,
    batch_of,
    clipped_objective,
    encode_example,
    epoch_order,
    read_sft,
    sft_examples,
    split_papers,
    target_logprobs,
    train_sft,
)
from readout_audit.log import read_run, read_stage
from readout_audit.model import load_model

pytestmark = pytest.mark.cost(40)

CUTS = [
    equation_cut(target=target, paper=paper, key=f"eq{k}")
    for paper, target in TARGETS.items()
    for k in (1, 2)
]


def test_the_split_is_seeded_disjoint_and_covers_every_paper():
    split = split_papers([c.paper for c in CUTS], held_out=0.5, seed=3)
    assert len(split.held_out) == 3 and len(split.train) == 3
    assert set(split.train) | set(split.held_out) == set(TARGETS)
    assert not set(split.train) & set(split.held_out)
    assert split_papers(reversed([c.paper for c in CUTS]), held_out=0.5, seed=3) == split
    others = {tuple(split_papers(TARGETS, held_out=0.5, seed=s).held_out) for s in range(8)}
    assert len(others) > 1  # the seed moves the split
    assert len(split_papers(TARGETS, held_out=0.01).held_out) == 1  # at least one each side
    assert len(split_papers(TARGETS, held_out=0.99).train) == 1
    with pytest.raises(InputError, match="at least two papers"):
        split_papers(["one"])
    with pytest.raises(InputError, match="between 0 and 1"):
        split_papers(TARGETS, held_out=1.0)


def test_examples_come_from_training_papers_only_by_id_and_by_text():
    split = split_papers(TARGETS, held_out=0.5, seed=3)
    examples = sft_examples(CUTS, split, LiftSetup())
    assert {e.paper for e in examples} == set(split.train) and len(examples) == 6
    held = [c for c in CUTS if c.paper in split.held_out]
    assert not {e.id for e in examples} & {c.id for c in held}
    for cut in held:  # no held-out target text reaches a training prompt or target
        assert all(cut.target not in e.prompt + e.target for e in examples)
    first = examples[0]
    assert first.prompt.endswith("\n\\begin{align}\n" + CUTS[0].prefix)
    assert first.target.endswith("\n\\end{align}")


def test_the_objective_by_hand():
    logprobs = torch.tensor([-0.5, -3.0, -1.0], requires_grad=True)
    loss = clipped_objective(logprobs, floor=-2.0, raw_weight=0.05)
    # clipLL_2 = mean(-0.5, -2, -1) = -7/6; raw mean = -1.5
    assert float(loss.detach()) == pytest.approx(7 / 6 + 0.05 * 1.5)
    loss.backward()
    # a token above the clip: -(1 + w)/3; below it only the raw term: -w/3
    assert logprobs.grad.tolist() == pytest.approx([-(1.05) / 3, -0.05 / 3, -(1.05) / 3])


def test_batches_walk_a_seeded_order_per_epoch():
    config = SftConfig(batch_size=4, grad_accumulation=1, seed=2)
    first = [i for step in range(3) for i in batch_of(step, 10, config)]
    assert sorted(first) == list(range(10))  # one epoch: every example once
    assert first == epoch_order(10, 0, 2)
    assert batch_of(3, 10, config) == epoch_order(10, 1, 2)[:4]


PAUSED = """
import sys, time
from readout_audit._cli import _model
from readout_audit.lift.sft import _stage

def pause():  # tell the test, then wait for the kill
    open(sys.argv[1], "w").close()
    time.sleep(600)

def opening(self, preflight=None):
    pause()

real = _stage.SftStage.append
def append(self, loss):
    real(self, loss)
    if loss.step == 3:
        pause()

if sys.argv[2] == "open":
    _model.ModelChoice.open = opening
else:
    _stage.SftStage.append = append
from readout_audit._cli import _model, main
main([str(a) for a in sys.argv[3:]])
"""


def start_paused(where: str, *args: object) -> subprocess.Popen[bytes]:
    """``readout ARGS`` in another process, paused (until killed) ``where``: while its model
    opens (``open``) or after step 3's loss line (``step3``)."""
    marker = Path(tempfile.mkdtemp()) / "paused"
    writer = subprocess.Popen([sys.executable, "-c", PAUSED, marker, where, *map(str, args)])
    deadline = time.monotonic() + 300
    while not marker.exists():
        assert writer.poll() is None, "the writer ended before it paused"
        assert time.monotonic() < deadline, "the writer never paused"
        time.sleep(0.05)
    return writer


SHARED = r"\mathcal{L} = \bar\psi (i \gamma^\mu D_\mu - m) \psi - \frac{1}{4} F_{\mu\nu} F^{\mu\nu}"
"""An equation every paper prints: the training papers' examples hold it, so the held-out
papers' cuts of it are dropped from the SFT rung."""
FOUR = [c for c in CUTS if c.key == "eq1"][:4]
FEW = [*FOUR, *(equation_cut(target=SHARED, paper=c.paper, key="eq9") for c in FOUR)]
"""Four papers, two trained on (four examples), two held out (two cuts read, two dropped)."""
TRAINING = ["--steps", "3", "--batch-size", "2", "--grad-accumulation", "1"]
TRAINING += ["--learning-rate", "5e-3"]
TRAINING += ["--checkpoint-every", "2", "--seed", "1"]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """``readout lift sft`` on the four cuts: (the cut file, the fine-tuning's directory)."""
    root = tmp_path_factory.mktemp("sft")
    cuts = root / "cuts.jsonl"
    cuts.write_text("".join(c.model_dump_json() + "\n" for c in FEW))
    result = CliRunner().invoke(
        main, ["lift", "sft", "--cuts", str(cuts), "--out", str(root / "whole"), *TRAINING]
    )
    assert result.exit_code == 0, result.output
    assert "2 training papers (4 cuts), 2 held out (4 cuts, 2 held by a training example" in (
        result.output
    )
    assert "step 3/3: loss" in result.output and "trained 3 steps" in result.output
    return cuts, root / "whole"


def test_a_second_writer_of_a_new_folder_is_refused_while_the_first_opens_its_model(
    tmp_path, monkeypatch
):
    cuts, out = tmp_path / "cuts.jsonl", tmp_path / "new"
    cuts.write_text("".join(c.model_dump_json() + "\n" for c in FEW))
    first = start_paused("open", "lift", "sft", "--cuts", cuts, "--out", out, *TRAINING)
    try:

        def load(self, preflight=None):
            raise AssertionError("the second writer opened the model")

        monkeypatch.setattr(_model.ModelChoice, "open", load)
        second = CliRunner().invoke(
            main, ["lift", "sft", "--cuts", str(cuts), "--out", str(out), *TRAINING]
        )
        assert second.exit_code == 1
        assert f"{out} is being written by process {first.pid}" in second.output
    finally:
        first.kill()
        first.wait()
    assert os.listdir(out) == [".lock"]  # neither wrote anything


@pytest.mark.model
def test_lora_lowers_the_loss_resumes_after_a_kill_and_reloads_to_the_same_scores(
    tmp_path, float32_budget, trained
):
    from peft import PeftModel

    few, (_, whole_dir) = FEW, trained
    split = split_papers([c.paper for c in few], held_out=0.5, seed=1)
    examples = sft_examples(few, split, LiftSetup())
    config = SftConfig(
        steps=3, batch_size=2, grad_accumulation=1, learning_rate=5e-3, checkpoint_every=2, seed=1
    )
    held = [c for c in few if c.paper in split.held_out]
    whole = read_sft(whole_dir)
    assert whole.split.held_out == split.held_out and len(whole.losses) == 3
    assert set(whole.plan.examples) == {e.id for e in examples}
    assert [s.step for s in whole.losses] == [1, 2, 3]

    # the saved adapter lowers the clipped loss on the examples it was trained on
    base = load_model()
    lead = leading_ids(base.codec, LiftSetup())
    encoded = [encode_example(base.codec, lead, e, config.max_tokens) for e in examples]

    def mean_loss(module) -> float:
        with torch.no_grad():
            losses = [float(clipped_objective(target_logprobs(module, *e))) for e in encoded]
        return sum(losses) / len(losses)

    before = mean_loss(base.module)
    adapted = PeftModel.from_pretrained(base.module, str(whole_dir / ADAPTER)).eval()
    after = mean_loss(adapted)
    assert after < before - 0.05, (before, after)

    # a real `lift sft` killed (SIGKILL) after step 3's loss line, the checkpoint at step 2;
    # rerun: it continues from step 2 and ends where the uninterrupted run ended
    cuts_path = whole_dir.parent / "cuts.jsonl"
    killed = tmp_path / "killed"
    writer = start_paused("step3", "lift", "sft", "--cuts", cuts_path, "--out", killed, *TRAINING)
    os.kill(writer.pid, signal.SIGKILL)
    assert writer.wait() == -signal.SIGKILL
    lines = (tmp_path / "killed" / LOSSES).read_text().splitlines()
    assert len(lines) == 3
    with pytest.raises(InputError, match="has not finished its 3 steps"):
        read_sft(tmp_path / "killed")  # an unfinished fine-tuning is no scorer
    scorer = load_model()
    resumed = train_sft(scorer, examples, split, tmp_path / "killed", held_out=held, config=config)
    assert [s.step for s in resumed.losses] == [1, 2, 3]
    for a, b in zip(whole.losses, resumed.losses, strict=True):
        assert a.examples == b.examples
        assert a.loss == pytest.approx(b.loss, abs=1e-4)
    invocations = read_stage(killed).manifest.invocations
    assert [i.finished is not None for i in invocations] == [False, True]

    # the resumed adapter, saved and loaded on a fresh scorer, reads the trained scorer's numbers
    fresh = load_model()
    reloaded = PeftModel.from_pretrained(fresh.module, str(tmp_path / "killed" / ADAPTER)).eval()
    with torch.no_grad():
        for ids, start in encoded:
            mine = target_logprobs(reloaded, ids, start)
            trained = target_logprobs(scorer.module, ids, start)
            assert torch.allclose(mine, trained, atol=float32_budget(len(ids)), rtol=0)
    # merged into the weights at load, for scoring: the same numbers, the adapter recorded
    merged = load_model(adapter=tmp_path / "killed" / ADAPTER)
    assert "adapter_model.safetensors" in {f.path for f in merged.info.files}
    with torch.no_grad():
        for ids, start in encoded:
            mine = target_logprobs(merged.module, ids, start)
            trained = target_logprobs(scorer.module, ids, start)
            assert torch.allclose(mine, trained, atol=float32_budget(len(ids)), rtol=0)
    with pytest.raises(InputError, match="not a LoRA adapter directory"):
        load_model(adapter=tmp_path)
    # the same out with other settings is refused, nothing overwritten
    with pytest.raises(InputError, match="other examples, split or settings"):
        train_sft(
            load_model(),
            examples,
            split,
            whole_dir,
            held_out=held,
            config=config.model_copy(update={"steps": 4}),
        )


@pytest.mark.model
def test_the_adapter_is_on_all_seven_projections_at_rank_32(trained):
    from safetensors import safe_open

    _, whole = trained
    config = json.loads((whole / ADAPTER / "adapter_config.json").read_text())
    assert config["r"] == 32 and config["lora_alpha"] == 64
    assert set(config["target_modules"]) == set(PROJECTIONS)
    with safe_open(str(whole / ADAPTER / "adapter_model.safetensors"), "pt") as tensors:
        names = list(tensors.keys())
    found = {name.split(".")[-3] for name in names if ".lora_A." in name}
    assert found == set(PROJECTIONS) and len(PROJECTIONS) == 7
    layers = {name.split(".layers.")[1].split(".")[0] for name in names}
    assert len(names) == 2 * 7 * len(layers) == 2 * 7 * 30  # A and B, every layer of SmolLM2
    recorded = json.loads((whole / "manifest.json").read_text())["config"]["training"]
    assert recorded["schedule"] == "cosine" and recorded["max_grad_norm"] == 1.0
    losses = [json.loads(line) for line in (whole / LOSSES).read_text().splitlines()]
    # ⌈0.03 · 3⌉ = 1 warm-up step at rate 0, then ½(1 + cos(π (k − 1)/2)) · 5e-3
    assert [s["learning_rate"] for s in losses] == pytest.approx([0.0, 5e-3, 2.5e-3])
    assert all(s["grad_norm"] > 0 for s in losses)


@pytest.mark.model
def test_the_sft_rung_is_read_on_held_out_papers_by_the_fine_tuned_scorer(
    tmp_path, trained, float32_budget
):
    cuts_path, whole = trained
    out = tmp_path / "run"
    options = ["--no-toy", "--no-oracle", "--multipliers", "1", "--plain"]
    command = ["lift", "score", "--cuts", str(cuts_path), "--out", str(out), *options]
    result = CliRunner().invoke(main, [*command, "--sft", str(whole)])
    assert result.exit_code == 0, result.output
    run = read_run(out)
    split = read_sft(whole).split
    by = {(r.item_id, r.variant): r for r in run.records}
    held = [c for c in FOUR if c.paper in split.held_out]
    assert {i for i, v in by if v == SFT} == {c.id for c in held} and len(held) == 2
    sft = run.manifest.config["sft"]
    assert sft["held_out"] == split.held_out and sft["n_cuts"] == 2
    dropped = sorted(c.id for c in FEW if c.key == "eq9" and c.paper in split.held_out)
    assert sft["dropped"] == dropped and len(dropped) == 2
    assert read_sft(whole).plan.held_out_overlap == dict.fromkeys(dropped, "target")
    assert "adapter_model.safetensors" in {f["path"] for f in sft["adapter_files"]}

    # independently: the merged scorer's log-probabilities of each held-out cut's context prompt
    setup = LiftSetup(multipliers=(1,), oracle=False)
    merged = load_model(adapter=whole / ADAPTER)
    lead = leading_ids(merged.codec, setup)
    for cut in held:
        (prompt,) = [c.prompt for c in conditions(cut, {}, setup) if c.name == "context"]
        ids, start = encode_scored(merged.codec, lead, prompt, target_text(cut, setup))
        with torch.no_grad():
            expected = target_logprobs(merged.module, ids, start)
        got = torch.tensor(by[(cut.id, SFT)].target_logprobs)
        assert torch.allclose(got, expected, atol=float32_budget(len(ids)), rtol=0)
        base = torch.tensor(by[(cut.id, "context")].target_logprobs)
        assert float((got - base).abs().max()) > 0.01  # the fine-tuned scorer, not the scorer

    summary = summarise_lift(run)
    (row,) = [r for r in summary.ladder if r.condition == SFT]
    assert row.vs_reference.n_cuts == 2 and row.vs_reference.n_papers == 2
    assert summary.incomplete == {} and summary.sft_dropped == 2  # dropped, never missing
    assert [r.condition for r in summary.ladder] == ["empty", "context", SFT]
    report = CliRunner().invoke(main, ["report", str(out), "--plain"])
    shown = " ".join(report.output.split())  # the note wraps in the terminal
    assert (
        "read on the 2 cuts of 2 papers held out from its training (2 held-out cuts "
        + ("dropped: a training example holds their target)")
        in shown
    )
    assert "lack cuts" not in shown and "rerun" not in shown

    # a cut file with no held-out paper is refused before any model loads or anything is written
    only_trained = tmp_path / "trained.jsonl"
    only_trained.write_text(
        "".join(c.model_dump_json() + "\n" for c in FEW if c.paper in split.train)
    )
    command = ["lift", "score", "--cuts", str(only_trained), "--out", str(tmp_path / "no")]
    refused = CliRunner().invoke(main, [*command, *options, "--sft", str(whole)])
    assert refused.exit_code != 0
    assert "no cut of this run is on one of the fine-tuning's held-out papers" in refused.output
    assert not (tmp_path / "no").exists()
    # prompts opened with BOS are not the route the adapter was tuned on: refused, nothing written
    command = ["lift", "score", "--cuts", str(cuts_path), "--out", str(tmp_path / "bos")]
    refused = CliRunner().invoke(main, [*command, *options, "--bos", "--sft", str(whole)])
    assert refused.exit_code != 0 and "bos False (this run: True)" in refused.output
    assert not (tmp_path / "bos").exists()
