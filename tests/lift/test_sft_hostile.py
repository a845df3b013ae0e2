"""Hostile ``lift sft`` folders and adapters: one error line naming the input, nothing changed.

One fine-tuning is trained for the module (two steps, a checkpoint after each) and kept twice:
finished, and as it stood after step 1's checkpoint (``midway``); every test damages its own
copy of one of them.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from hostile import refused, snapshot, user_files
from lift_cuts import EQUATION_TARGETS, equation_cut

from readout_audit import demo_items, score
from readout_audit._cli import _model, main
from readout_audit._exceptions import InputError, ReadoutError, RunDirectoryError
from readout_audit._util._lock import RunLock
from readout_audit.lift import LiftSetup
from readout_audit.lift.sft import (
    ADAPTER,
    ADAPTER_FILES,
    LOSSES,
    SFT_MANIFEST,
    SftConfig,
    _folder,
    _train,
    read_sft,
    sft_examples,
    split_papers,
    train_sft,
)
from readout_audit.model import _load, load_model

pytestmark = pytest.mark.cost(15)

PAPERS = dict(list(EQUATION_TARGETS.items())[:4])
CUTS = [equation_cut(target=target, paper=paper) for paper, target in PAPERS.items()]
TRAINING = ["--steps", "2", "--batch-size", "1", "--checkpoint-every", "1"]
TRAINING += ["--learning-rate", "5e-3", "--no-progress"]
CONFIG = SftConfig(steps=2, batch_size=1, checkpoint_every=1, learning_rate=5e-3)
SCORE = ["--no-toy", "--no-oracle", "--multipliers", "1", "--plain"]


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """(the cut file, the finished fine-tuning, the same after step 1's checkpoint)."""
    root = tmp_path_factory.mktemp("sft")
    cuts = root / "cuts.jsonl"
    cuts.write_text("".join(c.model_dump_json() + "\n" for c in CUTS))
    midway, real = root / "midway", _train.save_checkpoint

    def save_checkpoint(out, step, files):
        real(out, step, files)
        if step == 1:
            shutil.copytree(out, midway, symlinks=True)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_train, "save_checkpoint", save_checkpoint)
        result = CliRunner().invoke(
            main, ["lift", "sft", "--cuts", cuts, "--out", root / "done", *TRAINING]
        )
    assert result.exit_code == 0, result.output
    return cuts, root / "done", midway


@pytest.fixture
def no_model(monkeypatch):
    """The scorer must not load: the command is refused before it."""

    def load(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(_model.ModelChoice, "open", load)


def copy(folder: Path, tmp_path: Path) -> Path:
    """A copy of one of the module's fine-tuning folders to damage."""
    return Path(shutil.copytree(folder, tmp_path / folder.name, symlinks=True))


def held(split):
    """The cuts of the split's held-out papers."""
    return [c for c in CUTS if c.paper in split.held_out]


def sft(cuts: Path, out: Path) -> list[object]:
    return ["lift", "sft", "--cuts", cuts, "--out", out, *TRAINING]


# point 3: a folder that is no fine-tuning's is refused, nothing in it changes


def test_a_folder_of_user_files_is_refused_and_left_as_it_was(made, tmp_path, no_model, model):
    cuts, _, _ = made
    mine = user_files(tmp_path / "mine")
    (mine / LOSSES).write_text("my own losses\n")
    (mine / "checkpoint").mkdir()
    (mine / "checkpoint" / "model.bin").write_bytes(b"\x00weights" * 64)
    (mine / "checkpoint.old").write_text("a file, not a folder\n")
    before = snapshot(mine)
    refused(sft(cuts, mine), str(mine), "no manifest.json", "'out'")
    assert snapshot(mine) == before
    # the library refuses it too, before the scorer is touched
    split = split_papers(PAPERS, held_out=0.5, seed=0)
    examples = sft_examples(CUTS, split, LiftSetup())
    scorer = SimpleNamespace(info=model.info)  # never trained: refused before
    with pytest.raises(InputError, match="not a readout lift sft folder"):
        train_sft(scorer, examples, split, mine, held_out=held(split), config=CONFIG)
    assert snapshot(mine) == before


def test_a_user_file_under_a_name_the_training_writes_is_refused_not_replaced(
    made, tmp_path, no_model
):
    cuts, done, _ = made
    out = copy(done, tmp_path)
    (out / "checkpoint.old").write_text("my notes\n")
    before = snapshot(out)
    refused(sft(cuts, out), str(out / "checkpoint.old"), "not the folder")
    assert snapshot(out) == before


# point 7: one writer at a time; a history written twice is refused


def test_a_second_writer_is_refused_before_the_model_loads(made, tmp_path, no_model):
    cuts, _, midway = made
    out = copy(midway, tmp_path)
    lock = RunLock(out)
    lock.acquire()
    try:
        before = snapshot(out)
        refused(sft(cuts, out), str(out), f"process {os.getpid()}")
        assert snapshot(out) == before
        # nor may it be scored while it trains
        run = tmp_path / "run"
        refused(["lift", "score", "--cuts", cuts, "--out", run, *SCORE, "--sft", out], "trained")
        assert not run.exists()
    finally:
        lock.release()


def test_a_writer_that_takes_the_folder_while_the_model_loads_wins(made, tmp_path, model):
    _, _, midway = made
    out = copy(midway, tmp_path)
    other = RunLock(out)
    split = split_papers(PAPERS, held_out=0.5, seed=0)
    examples = sft_examples(CUTS, split, LiftSetup())
    other.acquire()  # taken after the command's check, as another process might
    try:
        before = snapshot(out)
        scorer = SimpleNamespace(info=model.info)  # never trained: refused before
        with pytest.raises(RunDirectoryError, match="is being written by process"):
            train_sft(scorer, examples, split, out, held_out=held(split), config=CONFIG)
        assert snapshot(out) == before
    finally:
        other.release()


def test_losses_written_twice_by_two_writers_are_refused_on_resume(made, tmp_path, no_model):
    cuts, done, _ = made
    out = copy(done, tmp_path)
    lines = (out / LOSSES).read_text().splitlines(keepends=True)
    (out / LOSSES).write_text("".join(line for line in lines for _ in (0, 1)))
    before = snapshot(out)
    error = refused(sft(cuts, out), f"{out / LOSSES}:2", "records step 1 where step 2 belongs")
    assert "'step'" in error
    assert snapshot(out) == before


# point 12: the adapter is the one adapter.json recorded


def test_the_finished_fine_tuning_records_its_adapter_files_hashes(made):
    _, done, _ = made
    recorded = json.loads((done / ADAPTER_FILES).read_text())["adapter_files"]
    assert set(recorded) == {p.name for p in (done / ADAPTER).iterdir()}
    assert recorded == _folder.adapter_hashes(done / ADAPTER)
    fixed = json.loads((done / SFT_MANIFEST).read_text())["fixed"]
    assert fixed == {ADAPTER_FILES: hashlib.sha256((done / ADAPTER_FILES).read_bytes()).hexdigest()}
    assert "adapter_model.safetensors" in recorded
    assert read_sft(done).adapter_files == recorded
    mask = os.umask(0)
    os.umask(mask)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (done / ADAPTER).iterdir()}
    assert modes == dict.fromkeys(recorded, 0o666 & ~mask)  # not safetensors' own 0600


def scaled_weights(adapter: Path) -> None:
    """The adapter's LoRA B matrices doubled: a sound adapter of another training."""
    from safetensors.torch import load_file, save_file

    path = adapter / "adapter_model.safetensors"
    tensors = load_file(path)
    save_file({k: v * 2 if "lora_B" in k else v for k, v in tensors.items()}, path)


def drop_scorer_files(out: Path) -> None:
    manifest = json.loads((out / SFT_MANIFEST).read_text())
    del manifest["model"]["files"]
    (out / SFT_MANIFEST).write_text(json.dumps(manifest))


def drop_adapter_hashes(out: Path) -> None:
    (out / ADAPTER_FILES).write_text(json.dumps({"adapter_files": {}}))


def swap_with_its_record(out: Path) -> None:
    """Another training's adapter copied in with its own ``adapter.json`` (issue 61, point 5)."""
    scaled_weights(out / ADAPTER)
    (out / ADAPTER_FILES).write_text(
        json.dumps({"adapter_files": _folder.adapter_hashes(out / ADAPTER)}, indent=2) + "\n"
    )


def unvouched(out: Path) -> None:
    """A manifest recording no hash of ``adapter.json`` (as an earlier version wrote it)."""
    manifest = json.loads((out / SFT_MANIFEST).read_text())
    del manifest["fixed"]
    (out / SFT_MANIFEST).write_text(json.dumps(manifest))


def rank(out: Path, r: int) -> None:
    config = out / ADAPTER / "adapter_config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "r": r}))


DAMAGE = {
    "another training's adapter": (
        lambda out: scaled_weights(out / ADAPTER),
        "adapter/adapter_model.safetensors",
        "SHA-256 differs",
    ),
    "missing weights": (
        lambda out: (out / ADAPTER / "adapter_model.safetensors").unlink(),
        "adapter/adapter_model.safetensors",
        "is missing",
    ),
    "bad adapter_config.json": (
        lambda out: (out / ADAPTER / "adapter_config.json").write_text("{not json"),
        "adapter/adapter_config.json",
        "SHA-256 differs",
    ),
    "wrong rank": (lambda out: rank(out, 4), "adapter/adapter_config.json", "SHA-256 differs"),
    "an extra file": (
        lambda out: (out / ADAPTER / "extra.bin").write_bytes(b"x"),
        "adapter/extra.bin",
        "does not record",
    ),
    "a manifest without model.files": (drop_scorer_files, SFT_MANIFEST, "'model.files'"),
    "no adapter hashes": (drop_adapter_hashes, ADAPTER_FILES, "SHA-256 differs"),
    "another training's adapter with its adapter.json": (
        swap_with_its_record,
        ADAPTER_FILES,
        "is not the document its manifest records",
    ),
    "a manifest that vouches for no adapter.json": (unvouched, ADAPTER_FILES, "records no SHA-256"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_or_swapped_adapter_is_refused_before_scoring(made, tmp_path, damage):
    cuts, done, _ = made
    out = copy(done, tmp_path)
    change, named, why = DAMAGE[damage]
    change(out)
    before = snapshot(out)
    run = tmp_path / "run"
    refused(["lift", "score", "--cuts", cuts, "--out", run, *SCORE, "--sft", out], named, why)
    assert not run.exists() and snapshot(out) == before


def test_an_adapter_of_another_rank_is_one_error_when_loaded(made, tmp_path):
    _, done, _ = made
    out = copy(done, tmp_path)
    rank(out, 4)
    with pytest.raises(InputError, match="cannot be merged into smollm2-135m") as caught:
        load_model(dtype="float32", adapter=out / ADAPTER)
    assert caught.value.source == str(out / ADAPTER) and "\n" not in str(caught.value)


# the tracebacks of the issue: each one error line naming the input


@pytest.mark.parametrize("text", ['{"step": 9}', '{"step": "1"}', '{"step": true}', "not json", ""])
def test_an_edited_checkpoint_state_is_refused(made, tmp_path, no_model, text):
    cuts, _, midway = made
    out = copy(midway, tmp_path)
    (out / "checkpoint" / "state.json").write_text(text)
    before = snapshot(out)
    refused(sft(cuts, out), str(out / "checkpoint" / "state.json"))
    assert snapshot(out) == before


def test_a_checkpoint_whose_state_names_another_step_is_refused(made, tmp_path):
    # step 2's weights and optimiser under step 1's state.json: the optimiser has taken 2 steps
    cuts, done, midway = made
    out = copy(midway, tmp_path)
    for name in ("adapter.pt", "optimizer.pt"):
        shutil.copyfile(done / "checkpoint" / name, out / "checkpoint" / name)
    before = snapshot(out)
    state = str(out / "checkpoint" / "state.json")
    refused(sft(cuts, out), state, "names step 1", "has taken 2 steps")
    assert snapshot(out) == before


def test_damaged_checkpoint_weights_are_refused_once_the_scorer_loads(made, tmp_path):
    cuts, _, midway = made
    out = copy(midway, tmp_path)
    (out / "checkpoint" / "adapter.pt").write_bytes(b"PK\x03\x04 not a checkpoint")
    before = snapshot(out)
    refused(sft(cuts, out), str(out / "checkpoint" / "adapter.pt"), "not a checkpoint")
    assert snapshot(out) == before


def test_a_truncated_manifest_is_refused(made, tmp_path, no_model):
    cuts, done, _ = made
    out = copy(done, tmp_path)
    text = (out / SFT_MANIFEST).read_text()
    (out / SFT_MANIFEST).write_text(text[: len(text) // 2])
    before = snapshot(out)
    refused(sft(cuts, out), str(out / SFT_MANIFEST), "is corrupt")
    run = tmp_path / "run"
    refused(["lift", "score", "--cuts", cuts, "--out", run, *SCORE, "--sft", out], SFT_MANIFEST)
    assert snapshot(out) == before and not run.exists()


def test_a_cut_line_before_the_checkpoint_is_refused(made, tmp_path, no_model):
    cuts, _, midway = made
    out = copy(midway, tmp_path)
    line = (out / LOSSES).read_text()
    (out / LOSSES).write_text(line[: len(line) // 2])  # step 1's line, the checkpoint's
    before = snapshot(out)
    refused(sft(cuts, out), str(out / LOSSES), "losses of 0 steps", "checkpoint is at step 1")
    assert snapshot(out) == before


CHANGED = {
    "schedule": ["--schedule", "linear"],
    "warm-up": ["--warmup", "0"],
    "clipping": ["--max-grad-norm", "0"],
    "accumulation": ["--grad-accumulation", "2"],
    "dropout": ["--dropout", "0.1"],
    "target modules": ["--target-modules", "q_proj,v_proj"],
    "dtype": ["--dtype", "bfloat16"],
    "bos": ["--bos"],
    "max tokens": ["--max-tokens", "4096"],
}


@pytest.mark.parametrize("change", list(CHANGED))
def test_a_resume_with_other_settings_is_refused_before_the_model_loads(
    made, tmp_path, no_model, change
):
    cuts, _, midway = made
    out = copy(midway, tmp_path)
    before = snapshot(out)
    args = [*sft(cuts, out), *CHANGED[change]]
    error = refused(args, str(out), "other examples, split or settings")
    assert "Differences: config." in error  # each one listed, as the manifest names it
    assert snapshot(out) == before


def test_a_training_cut_file_is_recorded_and_must_agree_with_the_benchmark(
    made, tmp_path, no_model
):
    cuts, _, midway = made
    training = tmp_path / "train.jsonl"
    extra = [equation_cut(target=t, paper=p, key="eq2") for p, t in PAPERS.items()]
    training.write_text("".join(c.model_dump_json() + "\n" for c in [*CUTS, *extra]))
    out = copy(midway, tmp_path)
    before = snapshot(out)  # more examples: not this fine-tuning
    refused([*sft(cuts, out), "--training-cuts", training], "other examples, split or settings")
    assert snapshot(out) == before
    other = equation_cut(target=r"\sqrt{2}", paper=CUTS[0].paper)
    training.write_text(other.model_dump_json() + "\n")
    refused([*sft(cuts, tmp_path / "new"), "--training-cuts", training], str(training), CUTS[0].id)


@pytest.mark.parametrize("rate", ["1e300", "nan", "0"])
def test_a_learning_rate_out_of_range_is_refused_before_the_model_loads(
    made, tmp_path, no_model, rate
):
    cuts, _, _ = made
    out = tmp_path / "new"
    args = ["lift", "sft", "--cuts", cuts, "--out", out, "--learning-rate", rate]
    refused(args, "learning-rate")
    assert not out.exists()


def test_a_full_disk_loses_nothing_and_a_rerun_finishes(made, tmp_path, monkeypatch):
    cuts, done, midway = made
    out = copy(midway, tmp_path)
    real, at_failure = _folder.write_bytes_atomic, []

    def write(path, data):
        if path.parent.name == "checkpoint.tmp":  # step 2's checkpoint
            at_failure.append(snapshot(out))
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(path, data)

    monkeypatch.setattr(_folder, "write_bytes_atomic", write)
    error = refused(sft(cuts, out), str(out / "checkpoint.tmp"), "No space left on device")
    assert "rerun to resume" in error
    kept = {k: v for k, v in at_failure[0].items() if not k.startswith("checkpoint.tmp")}
    assert snapshot(out) == kept  # the step-1 checkpoint, losses and manifest all kept
    assert len((out / LOSSES).read_text().splitlines()) == 2  # step 2 taken, not saved

    # room again, and a line cut off as the disk filled: the rerun redoes step 2 and finishes
    monkeypatch.setattr(_folder, "write_bytes_atomic", real)
    with (out / LOSSES).open("a") as log:
        log.write('{"step": 3, "lo')
    result = CliRunner().invoke(main, sft(cuts, out))
    assert result.exit_code == 0, result.output
    resumed, whole = read_sft(out), read_sft(done)
    assert [s.step for s in resumed.losses] == [1, 2]
    for a, b in zip(resumed.losses, whole.losses, strict=True):
        assert a.examples == b.examples and a.loss == pytest.approx(b.loss, abs=1e-4)
    lines = [json.loads(line) for line in (out / LOSSES).read_text().splitlines()]
    assert [line["step"] for line in lines] == [1, 2]
    assert resumed.adapter_files == _folder.adapter_hashes(out / ADAPTER)
    assert not (out / "checkpoint.tmp").exists()


def test_a_fine_tuning_is_named_as_one_by_export_and_by_an_overwriting_score(made, tmp_path, model):
    folder = tmp_path / "sft"
    shutil.copytree(made[1], folder, symlinks=True)
    before = snapshot(folder)
    error = refused(["export", folder, "--out", tmp_path / "out.csv"], str(folder))
    assert "holds a fine-tuning (kind 'lift-sft'), not an audit run" in error
    with pytest.raises(ReadoutError, match=r"holds a fine-tuning .* not an audit run"):
        score(model, demo_items()[:1], folder, overwrite=True)
    assert snapshot(folder) == before and not (tmp_path / "out.csv").exists()


def test_a_rank_above_the_models_width_is_refused_before_its_weights_load(
    made, tmp_path, monkeypatch
):
    def weights(*args, **kwargs):
        raise AssertionError("the weights were loaded")

    monkeypatch.setattr(_load, "_read_weights", weights)
    out = tmp_path / "wide"
    result = CliRunner().invoke(main, [str(a) for a in [*sft(made[0], out), "--rank", "577"]])
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert result.exit_code == 1 and len(errors) == 1, result.output
    assert "field 'rank': 577 exceeds the model's hidden size (576)" in errors[0]
    assert not out.exists()  # the folder made for its lock went again
