"""Hostile input to ``readout audit lm-eval``: one error line naming it, nothing on disk changed.

Every hostile file is made here: forged ``--samples`` lines from lm-eval's own logged sample,
task folders holding a FIFO or a broken YAML, tasks whose documents repeat or lack a choice.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hostile import refused, snapshot, user_files

from readout_audit._cli import main

LOGGED = next((Path(__file__).parents[1] / "fixtures" / "lm-eval").glob("samples_*.jsonl"))
"""lm-eval's own --log_samples output (four letters, logged log-likelihoods)."""
NAME = "samples_forged_2026-01-01T00-00-00.000000.jsonl"
DEEP = 100_000


def logged_line() -> dict[str, Any]:
    """The first document of the logged run, as lm-eval wrote it."""
    return json.loads(LOGGED.read_text(encoding="utf-8").splitlines()[0])


def samples(folder: Path, *rows: dict[str, Any]) -> Path:
    """A samples file of ``rows``, one JSON line each."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def task_yaml(folder: Path, name: str, rows: list[dict[str, Any]]) -> Path:
    """A multiple-choice task over ``rows`` (a local JSON-lines file, no hub)."""
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / f"{name}.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    path = folder / f"{name}.yaml"
    path.write_text(
        f"task: {name}\ndataset_path: json\ndataset_kwargs:\n  data_files:\n    test: {data}\n"
        "test_split: test\noutput_type: multiple_choice\n"
        'doc_to_text: "{{question}}\\nAnswer:"\ndoc_to_choice: "{{choices}}"\n'
        "doc_to_target: answer\n",
        encoding="utf-8",
    )
    return path


def audit(*args: object) -> list[object]:
    return ["audit", "lm-eval", *args]


def test_json_never_replaces_an_input_or_a_users_file(tmp_path: Path) -> None:
    mine = user_files(tmp_path / "mine")
    logged = samples(mine / "logged", logged_line())
    tasks = mine / "tasks"
    yaml_file = task_yaml(tasks, "tp_mine", [{"question": "Q", "choices": ["a", "b"], "answer": 0}])
    data = tasks / "tp_mine.jsonl"
    before = snapshot(mine)
    out = tmp_path / "run"
    # its own samples file and task files, even with --force
    for given in ([], ["--force"]):
        refused(audit("--samples", logged, "--json", logged, *given, "--out", out), NAME, "input")
        for target in (yaml_file, data):
            args = ["--tasks", "tp_mine", "--include-path", tasks, "--json", target, *given]
            refused(audit(*args, "--out", out), target.name, "'json'", "input")
    # a file of the user's, without --force; their FIFO whatever is given
    thesis = mine / "thesis.tex"
    refused(audit("--samples", logged, "--json", thesis, "--out", out), str(thesis), "--force")
    for given in ([], ["--force"]):
        refused(audit("--samples", logged, "--json", mine / "pipe", *given, "--out", out), "pipe")
    # inside the run directory the command is about to make
    inside = out / "view.json"
    refused(audit("--samples", logged, "--json", inside, "--out", out), "inside --out")
    assert snapshot(mine) == before
    assert not out.exists()


@pytest.mark.model
def test_json_over_a_file_only_with_force(tmp_path: Path) -> None:
    view = tmp_path / "view.json"
    view.write_text("my own notes\n", encoding="utf-8")
    args = audit("--samples", LOGGED, "--limit", "1", "--json", view, "--out", tmp_path / "run")
    refused(args, "view.json", "exists; pass --force")
    assert view.read_text(encoding="utf-8") == "my own notes\n"
    result = CliRunner().invoke(main, [str(a) for a in [*args, "--force"]])
    assert result.exit_code == 0, result.output
    written = json.loads(view.read_text(encoding="utf-8"))
    assert list(written["results"]) == ["readout_mmlu_geography"]


@pytest.mark.parametrize("value", ["-inf", "inf", "Infinity", "1e999", "nan"])
def test_non_finite_logged_log_likelihoods_are_refused(tmp_path: Path, value: str) -> None:
    good, bad = logged_line(), logged_line()
    bad["doc_id"] = 1
    bad["filtered_resps"][2][0] = value
    path = samples(tmp_path / "logged", good, bad)
    before = snapshot(tmp_path)
    error = refused(audit("--samples", path, "--out", tmp_path / "run"), f"{NAME}:2")
    assert "field 'filtered_resps'" in error and "not a finite log-likelihood" in error
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("2.5", "a log-likelihood above 0 (a probability above 1): 2.5"),
        ("1_0", "not a finite log-likelihood: '1_0'"),
        (" -1.0", "not a finite log-likelihood: ' -1.0'"),
        ("0x1p3", "not a finite log-likelihood: '0x1p3'"),
        ("-١.٥", "not a finite log-likelihood: '-١.٥'"),  # Arabic-Indic digits: ASCII only
        ("-1.5e٣", "not a finite log-likelihood: '-1.5e٣'"),
    ],
)
def test_logged_log_likelihoods_no_model_gives_are_refused(
    tmp_path: Path, value: str, reason: str
) -> None:
    row = logged_line()
    row["filtered_resps"][1][0] = value
    path = samples(tmp_path / "logged", row)
    before = snapshot(tmp_path)
    refused(audit("--samples", path, "--out", tmp_path / "run"), f"{NAME}:1", reason)
    assert snapshot(tmp_path) == before


def forged(change: str) -> dict[str, Any]:
    """The logged line with one malformed structure."""
    row = logged_line()
    args = row["arguments"]
    if change == "deep target":
        row["target"] = "[" * DEEP + "]" * DEEP
    elif change == "request gap":
        args["gen_args_2"] = args.pop("gen_args_1")
        del args["gen_args_3"]
    elif change == "argument gap":
        args["gen_args_0"]["arg_2"] = args["gen_args_0"].pop("arg_1")
    elif change == "request name":
        args["gen_args_x"] = args.pop("gen_args_3")
    elif change == "metrics":
        row["metrics"] = 5
    elif change == "repeated choice":
        args["gen_args_1"]["arg_1"] = args["gen_args_0"]["arg_1"]
    elif change == "empty choice":
        args["gen_args_1"]["arg_1"] = " "
    elif change == "greedy flag":
        row["filtered_resps"][0] = [True, "False"]
    return row


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ("deep target", "target", "nested deeper than 100 levels"),
        ("request gap", "arguments", "no gen_args_1"),
        ("argument gap", "arguments", "no arg_1"),
        ("request name", "arguments", "no gen_args_3"),
        ("metrics", "metrics", "not a list of metric names"),
        ("repeated choice", "arguments", "choice 1 repeats choice 0 ('A')"),
        ("empty choice", "arguments", "choice 1 is empty"),
        ("greedy flag", "filtered_resps", "not a finite log-likelihood"),
    ],
)
def test_forged_samples_lines_are_named(
    tmp_path: Path, change: str, field: str, reason: str
) -> None:
    path = samples(tmp_path / "logged", forged(change))
    error = refused(audit("--samples", path, "--out", tmp_path / "run"), f"{NAME}:1", reason)
    assert f"field '{field}'" in error
    assert not (tmp_path / "run").exists()


def plain_task(folder: Path) -> Path:
    return task_yaml(folder, "tp_ok", [{"question": "Q", "choices": ["a", "b"], "answer": 0}])


def test_a_fifo_in_the_task_folder_is_refused_before_lm_eval_walks_it(tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    plain_task(tasks)
    (tasks / "more").mkdir()
    os.mkfifo(tasks / "more" / "blocker.yaml")
    before = snapshot(tmp_path)
    args = audit("--tasks", "tp_ok", "--include-path", tasks, "--out", tmp_path / "run")
    refused(args, "blocker.yaml", "not a regular file")
    # an included template (lm-eval's own name for one has no .yaml) outside the folder
    os.unlink(tasks / "more" / "blocker.yaml")
    os.mkfifo(tmp_path / "_template")
    with open(tasks / "tp_ok.yaml", "a", encoding="utf-8") as file:
        file.write("include: ../_template\n")
    refused(args, "_template", "not a regular file")
    assert not (tmp_path / "run").exists()
    assert set(snapshot(tmp_path)) == set(before) - {"tasks/more/blocker.yaml"} | {"_template"}


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("task: tp_broken\ndoc_to_choice: [A, B\n", 3, "malformed YAML"),
        ("task: tp_broken\nprocess_docs: !python/name:os.system\n", 2, "malformed YAML"),
        ("task: tp_broken\n" + "x: " + "[" * 200 + "]" * 200 + "\n", None, "nested deeper"),
    ],
)
def test_an_unparsable_task_yaml_is_named(
    tmp_path: Path, text: str, line: int | None, reason: str
) -> None:
    tasks = tmp_path / "tasks"
    plain_task(tasks)
    broken = tasks / "tp_broken.yaml"
    broken.write_text(text, encoding="utf-8")
    where = f"tp_broken.yaml:{line}" if line else "tp_broken.yaml"
    args = audit("--tasks", "tp_broken", "--include-path", tasks, "--out", tmp_path / "run")
    error = refused(args, where, reason)
    assert "knows no task" not in error


@pytest.mark.model
@pytest.mark.parametrize(
    ("choices", "reason"),
    [
        (["x", "x", "y"], "choice 1 repeats choice 0 ('x')"),
        ([], "no choices"),
        (["x", "", "y"], "choice 1 is empty"),
    ],
)
def test_a_document_with_repeated_or_missing_choices_is_named(
    tmp_path: Path, choices: list[str], reason: str
) -> None:
    rows = [
        {"question": "Q1", "choices": ["a", "b"], "answer": 0},
        {"question": "Q2", "choices": choices, "answer": 0},
    ]
    path = task_yaml(tmp_path / "tasks", "tp_bad", rows)
    before = snapshot(tmp_path)
    args = audit("--tasks", "tp_bad", "--include-path", path.parent, "--out", tmp_path / "run")
    error = refused(args, str(path), "item 'tp_bad/1'", "field 'doc_to_choice'", reason)
    assert "Traceback" not in error
    assert snapshot(tmp_path) == before


@pytest.mark.model
def test_lm_eval_errors_name_the_task_and_only_hub_errors_mention_downloads(
    tmp_path: Path,
) -> None:
    # lm-eval itself fails on a first document without choices (an IndexError inside it)
    rows = [{"question": "Q1", "choices": [], "answer": 0}]
    path = task_yaml(tmp_path / "tasks", "tp_none", rows)
    args = audit("--tasks", "tp_none", "--include-path", path.parent, "--out", tmp_path / "run")
    error = refused(args, str(path.parent), "could not build 'tp_none'", "list index out of range")
    assert "--allow-download" not in error
    hub = path.parent / "tp_hub.yaml"
    hub.write_text(
        "task: tp_hub\ndataset_path: readout-audit-tests/not-on-this-machine\n"
        "test_split: test\noutput_type: multiple_choice\ndoc_to_text: '{{question}}'\n"
        "doc_to_choice: '{{choices}}'\ndoc_to_target: answer\n",
        encoding="utf-8",
    )
    args = audit("--tasks", "tp_hub", "--include-path", path.parent, "--out", tmp_path / "run")
    refused(args, "could not build 'tp_hub' (offline: pass --allow-download")


@pytest.mark.model
def test_a_stem_that_merges_two_choices_is_named(tmp_path: Path) -> None:
    row = logged_line()
    row["arguments"]["gen_args_1"]["arg_1"] = "A"  # " A" and "A": one continuation after a stem
    path = samples(tmp_path / "logged", row)
    args = audit("--samples", path, "--stem", " The answer is", "--out", tmp_path / "run")
    refused(args, "item 'forged/0'", "field 'stem'", "read as stem: choice 1 repeats choice 0")
    assert not (tmp_path / "run").exists()


@pytest.mark.model
def test_a_context_too_long_to_tokenise_is_named_before_the_tokenizer_sees_it(
    tmp_path: Path,
) -> None:
    row = logged_line()
    context = "Q " * 300_000  # 600,000 characters: more than SmolLM2's 8,192 tokens × 64 can use
    for arguments in row["arguments"].values():
        arguments["arg_0"] = context
    path = samples(tmp_path / "logged", row)
    args = audit("--samples", path, "--out", tmp_path / "run")
    refused(args, "item 'forged/0'", "field 'context'", "600,00", "not tokenised")
    assert not (tmp_path / "run").exists()


def test_an_include_that_is_no_task_yaml_is_named_with_the_file_that_includes_it(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "passwd"
    outside.write_text("root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534::/:/bin/false\n")
    tasks = tmp_path / "tasks"
    path = plain_task(tasks)
    with open(path, "a", encoding="utf-8") as file:
        file.write(f"include: {outside}\n")
    before = snapshot(tmp_path)
    args = audit("--tasks", "tp_ok", "--include-path", tasks, "--out", tmp_path / "run")
    error = refused(args, f"{path}, field 'include'", f"includes {outside}", "no task YAML")
    assert "knows no task" not in error
    assert snapshot(tmp_path) == before


GOLD_OUT_OF_RANGE = [{"question": "Q1", "choices": ["a", "b"], "answer": 0},
                     {"question": "Q2", "choices": ["a", "b"], "answer": 7}]  # fmt: skip


@pytest.mark.model
@pytest.mark.parametrize(
    ("rows", "fewshot", "item"),
    [
        (GOLD_OUT_OF_RANGE, 0, "tp_gold/1"),
        (GOLD_OUT_OF_RANGE, 1, "tp_gold/few-shot 1"),
        (GOLD_OUT_OF_RANGE[::-1], 0, "tp_gold/0"),  # the one lm-eval checks as it builds the task
    ],
)
def test_a_gold_index_out_of_range_names_the_task_the_document_and_the_field(
    tmp_path: Path, rows: list[dict[str, object]], fewshot: int, item: str
) -> None:
    path = task_yaml(tmp_path / "tasks", "tp_gold", rows)
    if fewshot:  # the examples drawn from the same rows: lm-eval indexes their choices by gold
        dev = f"    dev: {path.with_suffix('.jsonl')}\n    test: "
        text = path.read_text(encoding="utf-8").replace("    test: ", dev)
        path.write_text(text + "fewshot_split: dev\nnum_fewshot: 1\n", encoding="utf-8")
    before = snapshot(tmp_path)
    args = audit("--tasks", "tp_gold", "--include-path", path.parent, "--out", tmp_path / "run")
    error = refused(args, f"item '{item}'", "field 'doc_to_target'", "the gold 7 names none")
    assert "list index out of range" not in error
    assert snapshot(tmp_path) == before
