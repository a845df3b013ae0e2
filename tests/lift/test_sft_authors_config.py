"""`readout lift sft`'s defaults are the authors' configuration, read from their own file.

tests/fixtures/lift/authors_sft_run_config.json is the authors' `run_config.json` of the SFT
control (its source in tests/fixtures/lift/README.md). What the machine forces otherwise (the
dtype on a CPU) and what no option sets (the seed, an evaluation split) is said in docs/lift.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.lift.sft import (
    CLIP_FLOOR,
    RAW_WEIGHT,
    WEIGHT_DECAY,
    SftConfig,
    warmup_steps,
)

AUTHORS = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "lift" / "authors_sft_run_config.json").read_text()
)

OPTIONS = {  # the authors' key → the option setting it here
    "lora_r": "--rank",
    "lora_alpha": "--alpha",
    "lora_dropout": "--dropout",
    "target_modules": "--target-modules",
    "learning_rate": "--learning-rate",
    "warmup_ratio": "--warmup",
    "max_grad_norm": "--max-grad-norm",
    "batch_size": "--batch-size",
    "grad_accum_steps": "--grad-accumulation",
    "epochs": "--epochs",
    "residual_nll_weight": "--raw-weight",
}


def shown_defaults() -> dict[str, str]:
    """Each option's default as `readout lift sft --help` prints it."""
    result = CliRunner().invoke(main, ["lift", "sft", "--help"], terminal_width=400)
    assert result.exit_code == 0, result.output
    entries = re.split(r"\n  (?=--)", result.output)  # an option and its wrapped help
    found = {}
    for entry in entries:
        match = re.match(r"(--[a-z-]+)\b.*\[default: ([^;\]]+)", " ".join(entry.split()))
        if match:
            found[match[1]] = match[2]
    return found


@pytest.mark.parametrize("key", sorted(OPTIONS))
def test_the_help_shows_the_authors_value_as_the_default(key):
    shown = shown_defaults()[OPTIONS[key]]
    authors = AUTHORS[key]
    if isinstance(authors, str):
        assert shown == authors
    else:
        assert type(authors)(shown) == authors


def test_the_steps_are_the_authors_two_epochs_and_their_warm_up():
    # 3,188 examples, 16 a step: ⌈3188 / 16⌉ = 200 steps an epoch, 400 in two; ⌈0.03 · 400⌉ = 12
    planned = SftConfig().for_examples(AUTHORS["train_examples"])
    assert planned.total_steps == AUTHORS["total_steps"] == 400
    assert warmup_steps(planned) == AUTHORS["warmup_steps"] == 12
    assert SftConfig(steps=7).for_examples(AUTHORS["train_examples"]).total_steps == 7


def test_the_loss_is_the_authors_clip_plus_residual():
    assert AUTHORS["loss_mode"] == "clip_plus_residual"
    assert AUTHORS["clip_nll"] == -CLIP_FLOOR and AUTHORS["residual_nll_weight"] == RAW_WEIGHT
    assert AUTHORS["weight_decay"] == WEIGHT_DECAY


def test_too_many_epochs_are_refused_by_name():
    with pytest.raises(InputError, match="give fewer --epochs") as caught:
        SftConfig(epochs=1 << 31).for_examples(1 << 20)
    assert caught.value.field == "epochs"
