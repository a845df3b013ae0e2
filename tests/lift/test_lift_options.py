"""The lift commands' options are their settings' fields: help, refusals, a notebook's call."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from readout_audit import InputError
from readout_audit._cli import main
from readout_audit._cli._lift import lift_group
from readout_audit.kind import RunSettings
from readout_audit.lift import CutRun, CutSettings, LiftScoreRun, PredictRun, score_cut_file

COMMANDS = {"cut": (CutRun, CutSettings), "score": (LiftScoreRun,), "predict": (PredictRun,)}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_option_of_a_field_reads_that_fields_docstring(name):
    command = lift_group.commands[name]
    options = {p.name: p for p in command.params if isinstance(p, click.Option)}
    fields = {f: i for model in COMMANDS[name] for f, i in model.model_fields.items()}
    # the shared model options set the run settings every kind takes (their own docstrings)
    shared = [f for f in fields if f in options and f not in RunSettings.model_fields]
    assert len(shared) >= 7
    for field in shared:
        docstring = fields[field].description
        assert docstring, f"{name} --{field} has no docstring"
        assert options[field].help == " ".join(docstring.replace("``", "").split())


def test_cut_help_reads_the_papers_admission_rule():
    help_text = " ".join(CliRunner().invoke(main, ["lift", "cut", "--help"]).output.split())
    assert (
        "--min-cuts INTEGER RANGE Admit a paper only when it offers at least this many "
        "qualifying cuts (the paper's rule: ten); a paper with fewer gives none. "
        "[default: 10; 1<=x<2^63]"
    ) in help_text


def score(tmp_path: Path, *options: str):
    cuts = tmp_path / "cuts.jsonl"
    cuts.write_text("")
    args = ["lift", "score", "--cuts", str(cuts), "--out", str(tmp_path / "run"), *options]
    return CliRunner().invoke(main, args)


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--contrast", "a"), "Invalid value for '--contrast': expected A,B, got 'a'"),
        (("--contrast", "a,b,c"), "Invalid value for '--contrast': expected A,B, got 'a,b,c'"),
        (("--multipliers", "1,0"), "'--multipliers': 0 is not in the range 1<=x<2^63"),
        (("--multipliers", "1,x"), "expected comma-separated ints, got '1,x'"),
    ],
)
def test_a_bad_score_option_is_a_usage_error_naming_it(tmp_path, options, said):
    result = score(tmp_path, *options)
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split())
    assert not (tmp_path / "run").exists()


class NeverOpened:
    """A scorer choice that fails the test if the scorer is opened."""

    device, dtype, allow_download = "cpu", "float32", False

    def open(self, preflight=None):
        raise AssertionError("the scorer was opened before its output was checked")


def test_a_notebooks_score_run_checks_its_out_before_the_scorer_opens(tmp_path):
    taken = tmp_path / "run"
    taken.write_text("a file, not a run directory")
    run = LiftScoreRun(cuts=tmp_path / "cuts.jsonl", out=taken, contrasts=["a,b"])
    assert run.contrasts == (("a", "b"),) and run.multipliers == (1, 3)
    with pytest.raises(InputError, match="is a file, not a run directory"):
        score_cut_file(run, NeverOpened())
