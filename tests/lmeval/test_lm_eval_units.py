"""lm-eval's pair split and metric formulas, by hand; the missing extra and bad options."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit._exceptions import InputError
from readout_audit.lmeval import (
    LMEvalRun,
    MissingExtraError,
    TaskSettings,
    lm_eval_metrics,
    require_lm_eval,
    split_like_lm_eval,
)

LOGGED = Path(__file__).resolve().parents[2] / "examples" / "lm-eval" / "logged"


def test_trailing_whitespace_moves_onto_the_continuation() -> None:
    assert split_like_lm_eval("Answer: ", "A") == ("Answer:", " A")
    assert split_like_lm_eval("assistant\n", "B") == ("assistant", "\nB")
    assert split_like_lm_eval("Answer:", " C") == ("Answer:", " C")


def test_metrics_by_hand() -> None:
    # per character: -3/1 = -3 for "A", -4/10 = -0.4 for the long choice
    choices = ["A", "a longer 1"]
    assert lm_eval_metrics([-3.0, -4.0], choices, [0]) == {
        "acc": 1.0,
        "acc_norm": 0.0,
        "acc_bytes": 0.0,
    }
    # several gold indices: a pick of any of them counts
    assert lm_eval_metrics([-1.0, -2.0, -0.5], ["x", "y", "z"], [1, 2])["acc"] == 1.0
    # "é" is 1 character and 2 UTF-8 bytes: per character -1 < -0.75, per byte -0.5 > -0.75
    assert lm_eval_metrics([-1.0, -1.5], ["é", "ab"], [1]) == {
        "acc": 0.0,
        "acc_norm": 1.0,
        "acc_bytes": 0.0,
    }


def test_missing_lm_eval_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lm_eval", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'readout-audit\[lm-eval\]'"):
        require_lm_eval()


def test_command_needs_tasks_or_samples(tmp_path) -> None:
    result = CliRunner().invoke(main, ["audit", "lm-eval", "--out", str(tmp_path / "run")])
    assert result.exit_code != 0
    assert "give --tasks, or --samples with a logged run" in result.output
    result = CliRunner().invoke(
        main,
        ["audit", "lm-eval", "--tasks", "x", "--fewshot-as-multiturn", "--out", str(tmp_path)],
    )
    assert "--fewshot-as-multiturn needs --apply-chat-template" in result.output


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (["--num-fewshot", "5"], "--num-fewshot"),
        (["--apply_chat_template"], "--apply-chat-template"),
        (["--template-kwarg", "enable_thinking=false"], "--template-kwarg"),
    ],
)
def test_samples_refuse_prompt_options(tmp_path, given, named) -> None:
    argv = ["audit", "lm-eval", "--samples", str(tmp_path), *given, "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code != 0
    assert named in result.output and "as the logged run built them" in result.output


def test_the_run_settings_as_a_notebook_gives_them(tmp_path) -> None:
    tasks = TaskSettings(tasks=("tp_a", "tp_b"), include_path=str(tmp_path), num_fewshot=2)
    assert tasks.config() == {
        "tasks": ["tp_a", "tp_b"],
        "include_path": str(tmp_path),
        "num_fewshot": 2,
        "apply_chat_template": False,
        "fewshot_as_multiturn": False,
        "system_instruction": None,
        "limit": None,
        "fewshot_seed": 1234,
        "allow_download": False,
    }
    with pytest.raises(InputError, match="give --tasks, or --samples"):
        LMEvalRun().inputs()
    logged = LMEvalRun(samples=LOGGED)
    assert [f.name.split("_2026")[0] for f in logged.inputs()] == [
        "samples_readout_mmlu_arithmetic",
        "samples_readout_mmlu_everyday_science",
        "samples_readout_mmlu_geography",
    ]
    assert logged.reading.greedy_tokens == 16 and logged.reading.tolerance is None


def test_is_greedy_by_hand() -> None:
    from readout_audit.lmeval._doc import is_greedy

    assert is_greedy([5, 6], [5, 6, 7], budget=16) is True
    assert is_greedy([5, 6], [5, 9, 7], budget=16) is False
    assert is_greedy([5, 6], [5], budget=16) is False  # greedy stopped after 5
    assert is_greedy([5, 6, 7], [5, 6], budget=2) is None  # ran out agreeing
    assert is_greedy(None, [5], budget=16) is None  # boundary broken
    metrics = lm_eval_metrics([-1.0, -2.0], ["A", "B"], [0], [True, False])
    assert metrics["exact_match"] == 1.0
    assert "exact_match" not in lm_eval_metrics([-1.0, -2.0], ["A", "B"], [0], [None, False])
