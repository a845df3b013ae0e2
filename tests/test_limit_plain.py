"""``--limit N`` keeps the first N of what each command reads; ``--plain`` draws ASCII tables."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit.judge.inventory._file import read_inventory
from readout_audit.lift import read_cuts
from readout_audit.lift._forecasts import read_forecasts
from readout_audit.log._run import read_run
from readout_audit.recover._sources import recover_splits

pytestmark = pytest.mark.cost(25)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TEX = ROOT / "tests" / "fixtures" / "tex"
BOX_DRAWING = ("┃", "│", "━", "─", "┏", "╇")
"""Characters of the tables' unicode borders, absent from ASCII ones."""


def invoke(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def assert_plain(output: str) -> None:
    """ASCII borders (``+---+``, ``|``), no colour or other escape sequence."""
    assert "\x1b[" not in output
    assert not any(char in output for char in BOX_DRAWING)
    assert "|" in output and "-+-" in output


def _commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    """Every leaf command under ``group``, by its words after ``readout``."""
    context = click.Context(group)
    found: dict[str, click.Command] = {}
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        assert command is not None
        if isinstance(command, click.Group):
            found |= _commands(command, f"{prefix}{name} ")
        else:
            found[f"{prefix}{name}"] = command
    return found


def test_readme_names_exactly_the_commands_that_take_limit():
    sentence = (ROOT / "README.md").read_text().split("`--limit N`\nkeeps", 1)[1]
    sentence = sentence.split("; `demo`", 1)[0]
    named = set(sentence.split("`")[1::2])
    with_limit = {
        name
        for name, command in _commands(main).items()
        if any("--limit" in getattr(param, "opts", ()) for param in command.params)
    }
    assert named == with_limit


def test_recover_limit_keeps_the_first_items_of_each_split():
    splits = recover_splits(
        generate="controlled-logic", n=6, train_n=9, evals=["id,lexical"], limit=4
    )
    assert len(splits.train) == len(splits.fit) == 4
    assert {name: len(items) for name, items in splits.evals.items()} == {"id": 4, "lexical": 4}
    whole = recover_splits(generate="controlled-logic", n=6, train_n=9, evals=["id"])
    assert [i.id for i in splits.fit] == [i.id for i in whole.fit][:4]


def test_recover_limit_leaving_one_training_label_is_refused_before_the_model(tmp_path):
    out = tmp_path / "run"
    args = ["audit", "recover", "--generate", "controlled-logic", "--n", "4", "--train-n", "8"]
    result = CliRunner().invoke(main, [*args, "--limit", "1", "--out", str(out)])
    assert result.exit_code == 1
    assert "the probes need two: raise --limit" in result.output
    assert "loading" not in result.output and not out.exists()


@pytest.mark.model
def test_recover_runs_on_the_first_items_of_each_split_with_plain_tables(tmp_path):
    out = tmp_path / "run"
    output = invoke(
        "audit", "recover", "--generate", "controlled-logic", "--n", "6", "--train-n", "9",
        "--eval", "id", "--n-perm", "100", "--n-boot", "100", "--limit", "5", "--plain",
        "--no-progress", "--out", str(out),
    )  # fmt: skip
    splits = read_run(out).manifest.config["splits"]
    assert {name: split["n"] for name, split in splits.items()} == {"train": 5, "fit": 5, "id": 5}
    assert_plain(output)


def test_lift_cut_limit_reads_the_first_papers(tmp_path):
    cuts = tmp_path / "cuts.jsonl"
    sources = [str(TEX / "testmath.tex"), str(TEX / "aipsamp.tex")]
    output = invoke("lift", "cut", *sources, "--min-cuts", "1", "--limit", "1", "--out", str(cuts))
    assert "admitted 1 of 1 papers" in output
    assert {cut.paper for cut in read_cuts(cuts)} == {"testmath"}


@pytest.fixture(scope="module")
def two_cuts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cuts = tmp_path_factory.mktemp("cuts") / "cuts.jsonl"
    invoke("lift", "cut", str(TEX / "testmath.tex"), "--per-paper", "2", "--out", str(cuts))
    assert len(read_cuts(cuts)) == 2
    return cuts


@pytest.mark.model
def test_lift_predict_limit_forecasts_the_first_cuts(two_cuts, tmp_path):
    z = tmp_path / "z.jsonl"
    invoke("lift", "predict", "--cuts", str(two_cuts), "--out", str(z), "--limit", "1",
           "--max-new-tokens", "1", "--no-progress")  # fmt: skip
    assert [f.cut_id for f in read_forecasts(z)] == [read_cuts(two_cuts)[0].id]


@pytest.mark.model
def test_lift_score_limit_scores_the_first_cuts_and_their_forecasts(two_cuts, tmp_path):
    cuts = read_cuts(two_cuts)
    z = tmp_path / "z.jsonl"
    z.write_text("".join(json.dumps({"cut_id": c.id, "z": c.target[:20]}) + "\n" for c in cuts))
    out = tmp_path / "run"
    output = invoke("lift", "score", "--cuts", str(two_cuts), "--forecasts", str(z), "--setting",
                    "half", "--no-toy", "--no-oracle", "--limit", "1", "--plain", "--no-progress",
                    "--out", str(out))  # fmt: skip
    run = read_run(out)
    assert {r.item_id for r in run.records} == {cuts[0].id}
    assert set(run.artifacts["forecasts"]) == {cuts[0].id}
    assert_plain(output)


def test_judge_build_limit_reads_the_first_rows_of_each_dataset(tmp_path):
    out = tmp_path / "inventory"
    output = invoke(
        "judge", "build", "--gsm8k", str(EXAMPLES / "judge" / "gsm8k_test_head.jsonl"),
        "--drop", str(EXAMPLES / "judge" / "drop_rows.jsonl"), "--per-dataset", "1",
        "--preflight-per-dataset", "1", "--configuration", "local3=FINAL3@smollm2-135m",
        "--limit", "3", "--out", str(out),
    )  # fmt: skip
    assert "gsm8k: 3 rows" in output and "drop: 3 rows" in output
    banks = {bank.dataset: bank.rows for bank in read_inventory(out).settings.banks}
    assert banks == {"gsm8k": 3, "drop": 3}
