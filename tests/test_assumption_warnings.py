"""Warnings for what a command would otherwise assume silently, and the hub-download error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit._exceptions import InputError, ModelNotAvailableError
from readout_audit._util._hub_access import OFFLINE_VARIABLES
from readout_audit.data import load_yesno_source
from readout_audit.data._hub import hub_rows
from readout_audit.data._sources import read_qa_source
from readout_audit.model import load_model
from readout_audit.prompt._spec_file import read_spec_file
from readout_audit.yesno._audit import ignored_images

pytestmark = pytest.mark.cost(20)

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ABSENT = "nobody-here/no-such-model"
"""A hub id in no cache."""


def invoke(*args: str) -> tuple[str, str]:
    """stdout and stderr of a command that succeeds."""
    result = CliRunner().invoke(main, [*args, "--no-progress"])
    assert result.exit_code == 0, result.output
    return result.stdout, result.stderr


def test_items_naming_images_are_counted():
    items = load_yesno_source(EXAMPLES / "pope_format.json")
    assert ignored_images(items) == (
        "4 of the 4 items name an image, which a text-only model ignores: each such question "
        "is asked without its image"
    )
    assert ignored_images(load_yesno_source(None)) is None


@pytest.mark.model
def test_yesno_warns_that_a_text_model_ignores_the_items_images(tmp_path):
    out, err = invoke("audit", "yesno", "--items", str(EXAMPLES / "pope_format.json"),
                      "--limit", "2", "--out", str(tmp_path / "run"))  # fmt: skip
    assert "warning: 2 of the 2 items name an image, which a text-only model ignores" in err
    assert "warning" not in out
    _, err = invoke("audit", "yesno", "--limit", "1", "--out", str(tmp_path / "demo"))
    assert "warning" not in err


def test_a_spec_file_without_target_is_warned_of(tmp_path):
    assert "sets no target" in read_spec_file(EXAMPLES / "spec.toml").warnings[0]
    answer = tmp_path / "answer.toml"
    answer.write_text('[spec]\nname = "mine"\noptions = []\ntarget = "answer"\n')
    assert read_spec_file(answer).warnings == ()


@pytest.mark.model
def test_options_warns_of_a_spec_file_without_target(tmp_path):
    _, err = invoke("audit", "options", "--items", str(EXAMPLES / "mc.jsonl"), "--spec",
                    str(EXAMPLES / "spec.toml"), "--variants", "production", "--limit", "1",
                    "--out", str(tmp_path / "run"))  # fmt: skip
    assert "warning: " in err and "sets no target" in err
    wanted = "no accuracy table is produced; for accuracy against the items' gold letters add"
    assert f'{wanted} target = "answer"' in " ".join(err.split())


def _mmlu(tmp_path: Path) -> tuple[Path, Path]:
    """The example MMLU test file, and beside it the same rows as a dev file."""
    folder = tmp_path / "mmlu"
    folder.mkdir()
    test = shutil.copy(EXAMPLES / "mmlu" / "everyday_science_test.csv", folder)
    dev = tmp_path / "everyday_science_dev.csv"
    shutil.copy(test, dev)
    return folder, dev


def test_few_shot_examples_from_the_evaluated_rows_are_counted(tmp_path):
    folder, dev = _mmlu(tmp_path)
    own = read_qa_source(str(folder), shots_from=str(folder), shots=2, limit=3)
    assert len(own.items) == 3
    assert own.warnings[0].startswith("3 of the 3 evaluated items are also rows the few-shot")
    copied = read_qa_source(str(folder), shots_from=str(dev), shots=2)  # same rows, other ids
    assert copied.warnings[0].startswith(f"{len(copied.items)} of the {len(copied.items)} ")
    other = dev.with_name("other_dev.csv")
    other.write_text("Q?,a,b,c,d,A\nR?,a,b,c,d,B\n".replace("other", "everyday_science"))
    elsewhere = read_qa_source(str(folder), shots_from=str(other), shots=0)
    assert elsewhere.warnings == ()


@pytest.mark.model
def test_ptrue_warns_that_few_shot_examples_come_from_the_evaluated_items(tmp_path):
    folder, _ = _mmlu(tmp_path)
    _, err = invoke("audit", "ptrue", "--items", str(folder), "--shots-from", str(folder),
                    "--shots", "1", "--limit", "1", "--out", str(tmp_path / "run"))  # fmt: skip
    assert "warning: 1 of the 1 evaluated items are also rows the few-shot examples" in err
    assert "(leakage)" in err


@pytest.fixture
def hub_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """HF_HUB_OFFLINE=1 in the environment, as the hub libraries read it."""
    import huggingface_hub.constants

    for name in OFFLINE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


def test_an_allowed_model_download_names_the_offline_switch(hub_offline):
    with pytest.raises(ModelNotAvailableError) as caught:
        load_model(f"hf:{ABSENT}", allow_download=True)
    message = str(caught.value)
    assert "HF_HUB_OFFLINE=1 is set in the environment" in message
    assert "pass --allow-download" not in message
    with pytest.raises(ModelNotAvailableError, match="pass --allow-download"):
        load_model(f"hf:{ABSENT}")


def test_the_command_line_says_why_an_allowed_download_failed(hub_offline, tmp_path):
    args = ["score", "--items", str(EXAMPLES / "items.jsonl"), "--out", str(tmp_path / "run")]
    result = CliRunner().invoke(main, [*args, "--model", f"hf:{ABSENT}", "--allow-download"])
    assert result.exit_code == 1
    assert "downloading is allowed but failed: HF_HUB_OFFLINE=1" in result.output
    assert "pass --allow-download" not in result.output


def test_an_allowed_dataset_download_names_the_offline_switch(hub_offline):
    with pytest.raises(InputError) as caught:
        hub_rows(ABSENT, None, "test", None, allow_download=True)
    assert "HF_HUB_OFFLINE=1 is set" in str(caught.value)
    assert "pass --allow-download" not in str(caught.value)
