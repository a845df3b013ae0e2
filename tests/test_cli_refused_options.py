"""Options that cannot be stored as given, or that the run would not read, stop the command first.

Each command here is refused before the weights load (at most a tokenizer is read), so a run
directory is never created.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from readout_audit._cli import main
from readout_audit.judge import MANIFEST_FILE

FIXTURES = Path(__file__).parent / "fixtures" / "judge"
SERVED = "openai:http://127.0.0.1:9/v1#m"
"""A served model spec whose port nothing listens on: a refused command never calls it."""


def invoke(*args: str) -> str:
    result = CliRunner().invoke(main, [*args, "--no-progress"])
    assert result.exit_code == 2, result.output
    return " ".join(result.output.split())


@pytest.fixture
def items(tmp_path: Path) -> Path:
    path = tmp_path / "items.jsonl"
    row = {"id": "a", "prompt": "Two plus two is", "options": [" four", " five"]}
    path.write_text(json.dumps(row) + "\n")
    return path


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999", '{"a": 1, "a": 2}'])
def test_a_template_kwarg_the_manifest_cannot_store_is_refused(tmp_path, items, value):
    out = tmp_path / "run"
    output = invoke(
        "score", "--items", str(items), "--out", str(out), "--template-kwarg", f"x={value}"
    )
    assert "Invalid value for '--template-kwarg': x:" in output
    assert not (out / "manifest.json").exists()


def test_a_template_kwarg_given_twice_is_refused(tmp_path, items):
    args = ["--template-kwarg", "x=1", "--template-kwarg", "x=2"]
    output = invoke("score", "--items", str(items), "--out", str(tmp_path / "run"), *args)
    assert "Invalid value for '--template-kwarg': x is given twice" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--concurrency", "2"], "--concurrency is not read by a local model (smollm2-135m)"),
        (
            ["--api-key-env", "KEY", "--no-echo"],
            "--api-key-env, --echo/--no-echo are not read by a local model",
        ),
        (
            ["--model", SERVED, "--device", "cpu"],
            f"--device is not read by a served model ({SERVED})",
        ),
    ],
)
def test_a_model_option_the_model_would_not_read_is_refused(tmp_path, items, args, message):
    output = invoke("score", "--items", str(items), "--out", str(tmp_path / "run"), *args)
    assert message in output


@pytest.fixture
def pope(tmp_path: Path) -> tuple[Path, Path]:
    """A POPE question file and its image folder, holding a real JPEG."""
    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (4, 4), "red").save(images / "red.jpg", format="JPEG")
    path = tmp_path / "coco_pope_random.json"
    row = {"question_id": 1, "image": "red.jpg", "text": "Is it red?", "label": "yes"}
    path.write_text(json.dumps(row) + "\n")
    return path, images


def test_images_without_items_are_refused(tmp_path, pope):
    output = invoke("audit", "yesno", "--images", str(pope[1]), "--out", str(tmp_path / "run"))
    assert "--images is not read without --items" in output


def test_images_for_a_served_model_are_refused(tmp_path, pope):
    path, images = pope
    args = ["--items", str(path), "--images", str(images), "--model", SERVED]
    output = invoke("audit", "yesno", *args, "--out", str(tmp_path / "run"))
    assert f"--images is not read by a served model ({SERVED})" in output


@pytest.mark.model  # reads the embedded model's tokenizer, never its weights
def test_images_for_a_text_model_are_refused_before_the_weights_load(tmp_path, pope):
    path, images = pope
    out = tmp_path / "run"
    args = ["audit", "yesno", "--items", str(path), "--images", str(images), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "field 'images': is not read: the model reads text only" in result.output
    assert not (out / "manifest.json").exists()


def test_legacy_ids_with_no_legacy_are_refused(tmp_path):
    args = ["--no-legacy", "--legacy-ids", "1,2", "--out", str(tmp_path / "run")]
    assert "--legacy-ids is not read with --no-legacy" in invoke("audit", "yesno", *args)


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An inventory with a local judge (f3) and a served one (f4)."""
    out = tmp_path_factory.mktemp("inventory") / "inv"  # no other test's inventory beside it
    args = [
        "judge", "build", "--out", str(out),
        "--gsm8k", str(FIXTURES / "gsm8k_test_head.jsonl"),
        "--drop", str(FIXTURES / "drop_rows.jsonl"),
        "--configuration", "f3=FINAL3@smollm2-135m",
        "--configuration", "f4=FINAL4@openai:http://127.0.0.1:9/v1#smollm2",
        "--per-dataset", "1", "--preflight-per-dataset", "1",
    ]  # fmt: skip
    assert CliRunner().invoke(main, args).exit_code == 0
    assert (out / MANIFEST_FILE).exists()
    return out


@pytest.mark.parametrize(
    ("configuration", "args", "message"),
    [
        (
            "f3",
            ["--endpoint", "http://127.0.0.1:9/v1"],
            "--endpoint is not read by a local judge (smollm2-135m), only by a served one",
        ),
        (
            "f3",
            ["--max-spend-tokens", "10", "--concurrency", "2"],
            "--concurrency, --max-spend-tokens are not read by a local judge",
        ),
        ("f4", ["--batch-size", "2"], "--batch-size is not read by a served judge"),
    ],
)
def test_judge_run_refuses_the_other_kind_of_judges_options(
    tmp_path, inventory, configuration, args, message
):
    out = tmp_path / "run"
    run = ["judge", "run", str(inventory), "--phase", "preflight", "--out", str(out)]
    output = invoke(*run, "--configuration", configuration, *args)
    assert message in output
    assert not out.exists()


@pytest.mark.parametrize(("option", "value"), [("--prior", "nan,0.5,0.5"), ("--grid", "-1,inf,1")])
def test_recover_refuses_numbers_the_manifest_cannot_store(tmp_path, option, value):
    args = ["audit", "recover", "--generate", "controlled-logic", "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(main, [*args, option, value, "--n-perm", "200", "--no-progress"])
    assert result.exit_code == 2 and "must be finite numbers" in result.output


@pytest.mark.parametrize(
    ("option", "value"),
    [("--max-spend-usd", "nan"), ("--request-timeout", "inf"), ("--usd-per-mtok-prompt", "nan")],
)
def test_a_served_number_that_is_not_finite_is_refused(tmp_path, items, option, value):
    args = ["score", "--items", str(items), "--model", SERVED, "--out", str(tmp_path / "run")]
    output = invoke(*args, option, value)
    assert f"Invalid value for '{option}': '{value}' is not a finite number" in output


def test_a_refused_option_names_the_served_model_without_its_password(tmp_path, items):
    spec = "openai:http://user:hunter2@127.0.0.1:9/v1#m"
    args = ["score", "--items", str(items), "--model", spec, "--out", str(tmp_path / "run")]
    output = invoke(*args, "--device", "cpu")
    assert "--device is not read by a served model" in output and "hunter2" not in output
    assert "http://[redacted]@127.0.0.1:9/v1#m" in output


def test_a_ledger_for_a_local_scorer_is_refused(tmp_path):
    output = invoke("lift", "toy", "--ledger", str(tmp_path / "l.sqlite"))
    assert "--ledger is not read by a local scorer" in output
    assert not (tmp_path / "l.sqlite").exists()


def test_conformance_of_a_local_spec_is_refused_before_the_reference_loads(tmp_path, monkeypatch):
    from readout_audit.model import _gate

    def never(*args, **kwargs):
        raise AssertionError("the reference model was loaded")

    monkeypatch.setattr(_gate, "load_model", never)
    result = CliRunner().invoke(
        main, ["conformance", "--model", "smollm2-135m", "--out", str(tmp_path / "c")]
    )
    assert result.exit_code == 1, result.output
    assert "field 'model': conformance checks a served model: openai:<url>#<name>" in result.output
    assert not (tmp_path / "c" / "conformance.json").exists()
