"""``readout audit recover`` on files in each layout, its errors, and ``readout compare``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit.data import generate_controlled_logic, load_logic_file

pytestmark = pytest.mark.cost(20)

QUESTION = "Based on the above information, is the following statement true, false, or unknown?"
FAST = ["--n-perm", "200", "--n-boot", "200", "--no-progress", "--plain"]
N = 6
"""Items per file of the model run, kept small since each run scores one forward per distinct
prompt: each label twice (once at each generated depth). The probes need two labels in each
seed's bootstrap replicate of the training file's rows, and for the default seeds (42, 123, 456)
every replicate of these 6 rows holds at least two."""


def _logic_llm(path, items):
    """Items in Logic-LLM's multiple-choice layout (options A True, B False, C Unknown)."""
    letters = {"true": "A", "false": "B", "unknown": "C"}
    rows = [
        {
            "id": f"T{i // 3}_Q{i % 3}",
            "context": item.context,
            "question": f"{QUESTION} {item.statement}",
            "options": ["A) True", "B) False", "C) Unknown"],
            "answer": letters[item.label],
        }
        for i, item in enumerate(items)
    ]
    path.write_text(json.dumps(rows))


def test_layouts_are_found_from_the_content(tmp_path):
    items = generate_controlled_logic("id", 6, 1)
    _logic_llm(tmp_path / "a.json", items)
    assert [i.label for i in load_logic_file(tmp_path / "a.json")] == [i.label for i in items]
    own = tmp_path / "b.jsonl"
    own.write_text("".join(i.model_dump_json() + "\n" for i in items))
    assert [i.model_dump() for i in load_logic_file(own)] == [i.model_dump() for i in items]
    theory = {
        "id": "RelNeg-1",
        "theory": "Bob is big.",
        "questions": {"Q1": {"question": "Bob is big.", "answer": True, "QDep": 0}},
    }
    (tmp_path / "c.jsonl").write_text(json.dumps(theory) + "\n")
    assert load_logic_file(tmp_path / "c.jsonl")[0].depth == 0
    anli = {"uid": "u1", "premise": "A cat sat.", "hypothesis": "A cat sat.", "label": 0}
    (tmp_path / "d.jsonl").write_text(json.dumps(anli) + "\n")
    assert load_logic_file(tmp_path / "d.jsonl")[0].label == "true"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--eval", "x.json"], "give a fit split and at least one eval split"),
        (["--generate", "controlled-logic", "--fit", "x"], "replaces items, fit and probe_train"),
        (["--fit", "nowhere", "--eval", "nowhere"], "'nowhere' is neither a file nor a split"),
        (["--generate", "controlled-logic", "--configurations", "main/xyz"], "PROMPT/VERBALIZER"),
        (["--generate", "controlled-logic", "--prior", "0.5,0.5"], "prior"),
        (["--generate", "controlled-logic", "--grid", "1,2"], "LOW,HIGH,STEP"),
        (["--items", "missing.json", "--fit", "x", "--eval", "y"], "does not exist"),
        (["--generate", "controlled-logic", "--grid", "-100,100,0.001"], "--grid: 200,001^2"),
    ],
)
def test_bad_input_is_named_before_the_model_loads(tmp_path, arguments, message):
    result = CliRunner().invoke(
        main, ["audit", "recover", "--out", str(tmp_path / "r"), *arguments, *FAST]
    )
    assert result.exit_code != 0 and message in result.output, result.output


@pytest.mark.model
def test_a_run_on_files_and_a_comparison_of_two_verbalizers(tmp_path):
    _logic_llm(tmp_path / "dev.json", generate_controlled_logic("fit", N, 2))
    _logic_llm(tmp_path / "test.json", generate_controlled_logic("id", N, 2))
    common = ["--probe-train", str(tmp_path / "dev.json"), "--fit", str(tmp_path / "dev.json")]
    common += ["--eval", f"held={tmp_path / 'test.json'}", *FAST]
    runs = []
    for configuration in ("main/words", "main/capitalised"):
        out = tmp_path / configuration.replace("/", "-")
        result = CliRunner().invoke(
            main,
            ["audit", "recover", *common, "--configurations", configuration, "--out", str(out)],
        )
        assert result.exit_code == 0, result.output
        assert "Held-out accuracy by readout" in result.output
        assert "Count-preserving permutation null" in result.output
        runs.append(out)
    run = read_run(runs[0])
    assert {r.split for r in run.records} == {"train", "fit", "held"}
    assert run.manifest.config["splits"]["held"]["n"] == N
    result = CliRunner().invoke(main, ["compare", *map(str, runs), "--plain"])
    assert result.exit_code == 0, result.output
    assert "corrected accuracy (held)" in result.output and "raw accuracy (held)" in result.output
