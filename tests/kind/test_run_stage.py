"""``run_stage``: the one path from typed settings to a finished run, a notebook's included.

The run directory is checked and locked before the model opens, the stage's preflight reads
the tokenizer before the weights, and the settings are typed and closed: ``"off"`` is a
progress mode, never a truth value (``--no-progress`` once arrived as a truthy string).
"""

from __future__ import annotations

import fcntl
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from readout_audit import (
    InputError,
    Item,
    ModelChoice,
    OptionsSettings,
    RunDirectoryError,
    RunSettings,
    ScoreSettings,
    read_run,
    run_stage,
)


class Refused(ModelChoice):
    """A model choice that must never be opened: the checks before loading stop the run."""

    def open(self, preflight: Any = None) -> Any:
        raise AssertionError("the model was opened")


class LockProbe(ModelChoice):
    """Records whether another writer could take ``out``'s lock while the model opens."""

    def open(self, preflight: Any = None) -> Any:
        with open(self.out_lock(), "a+") as handle, pytest.raises(BlockingIOError):
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        raise KeyboardInterrupt  # the run stops while loading, as on Ctrl-C

    def out_lock(self) -> Path:
        return Path(self.spec) / ".lock"


def test_run_settings_are_typed_and_closed():
    assert RunSettings(progress="off").progress == "off"
    with pytest.raises(ValidationError):
        RunSettings(progress=True)  # a mode, not a truth value
    with pytest.raises(ValidationError):
        RunSettings(progres="off")  # a misspelt field is refused, not dropped
    with pytest.raises(ValidationError):
        RunSettings(batch_size=0)
    with pytest.raises(ValidationError):
        ModelChoice("smollm2-135m", devices="cpu")
    assert ModelChoice("hf:org/m", device="cpu") == ModelChoice(spec="hf:org/m", device="cpu")


def test_out_is_checked_before_the_model_opens(tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("")
    stage = ScoreSettings(items=[Item(id="a", prompt="2 + 2 =", options=(" 4",))], greedy_tokens=1)
    with pytest.raises(InputError, match="is a file, not a run directory"):
        run_stage(stage, a_file, model=Refused())


def test_out_stays_locked_while_the_model_opens_and_is_free_after(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    stage = ScoreSettings(items=[Item(id="a", prompt="2 + 2 =", options=(" 4",))], greedy_tokens=1)
    with pytest.raises(KeyboardInterrupt):
        run_stage(stage, out, model=LockProbe(str(out)))
    with open(out / ".lock", "a+") as handle:  # released: a rerun may take it
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


@pytest.mark.model
def test_a_notebook_model_gets_the_preflight_and_the_run(model, tmp_path):
    items = [Item(id="a", prompt="2 + 2 =", options=(" 4", " 5"))]
    long = [*items, Item(id="long", prompt="word " * 20_000, options=(" x",))]
    with pytest.raises(InputError, match="long"):
        run_stage(ScoreSettings(items=long, greedy_tokens=2), tmp_path / "refused", model=model)
    assert not (tmp_path / "refused").exists()  # refused before any write: no folder left

    settings = ScoreSettings(items=items, greedy_tokens=2)
    result = run_stage(settings, tmp_path / "run", model=model, run=RunSettings(top_k=3))
    run = read_run(tmp_path / "run")
    assert result.n_new == 1 and run.state == "finished"
    assert run.manifest.config["top_k"] == 3 and run.manifest.config["greedy_tokens"] == 2
    with pytest.raises(RunDirectoryError, match="holds a score run"):
        mc = Path(__file__).resolve().parents[2] / "examples" / "mc.jsonl"
        run_stage(OptionsSettings(items=str(mc)), tmp_path / "run", model=Refused())
