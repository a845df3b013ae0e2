"""Devices and precision: resolved before loading, recorded in the manifest, never a silent CPU."""

from __future__ import annotations

import json

import pytest
import torch
from click.testing import CliRunner

from readout_audit import InputError, Item, load_model, read_run, score
from readout_audit._cli import main
from readout_audit.model._device import resolve_device, resolve_dtype

needs_no_gpu = pytest.mark.skipif(
    torch.cuda.is_available(), reason="checks the error on a machine without CUDA"
)


def test_auto_is_the_best_device_present_and_float32_on_the_cpu():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    if not torch.cuda.is_available() and torch.backends.mps.is_available():
        expected = "mps"
    assert resolve_device("auto") == expected
    assert resolve_device("cpu") == "cpu"
    assert resolve_dtype("auto", "cpu") == "float32"
    assert resolve_dtype("auto", "mps") == "float32"
    assert resolve_dtype("float64", "cpu") == "float64"


@pytest.mark.parametrize("device", ["tpu", "cuda:x", "gpu0", ""])
def test_unknown_devices_are_named(device):
    with pytest.raises(InputError, match="unknown device"):
        resolve_device(device)


@needs_no_gpu
@pytest.mark.parametrize("device", ["cuda", "cuda:1"])
def test_a_missing_gpu_is_an_error_naming_it(device):
    with pytest.raises(InputError, match=f"device '{device}' is not available"):
        resolve_device(device)


@needs_no_gpu
def test_cli_with_cuda_on_a_cpu_machine_is_one_line_before_loading(tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "a", "prompt": "x", "options": [" y"]}) + "\n")
    result = CliRunner().invoke(
        main, ["score", "--items", str(items), "--out", str(tmp_path / "run"), "--device", "cuda"]
    )
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [
        "Error: field 'device': device 'cuda' is not available: this machine has no usable "
        f"CUDA GPU (torch {torch.__version__}, "
        + (f"CUDA {torch.version.cuda})" if torch.version.cuda else "a CPU-only build)")
    ]
    assert not (tmp_path / "run").exists()


@pytest.mark.model
def test_device_map_places_the_model_and_the_manifest_records_it(model, tmp_path):
    placed = load_model(device="cpu", device_map="auto")
    assert placed.info.placement == {"": "cpu"} and placed.info.device == "cpu"
    items = [Item(id="q", prompt="The capital of France is", options=[" Paris", " Lyon"])]
    a = score(model, items, tmp_path / "plain", greedy_tokens=2).directory
    b = score(placed, items, tmp_path / "placed", greedy_tokens=2).directory
    plain, mapped = read_run(a), read_run(b)
    assert plain.manifest.model["device"] == "cpu" and plain.manifest.model["placement"] is None
    assert mapped.manifest.model["placement"] == {"": "cpu"}
    assert mapped.manifest.model["trust_remote_code"] is False
    # the same weights on the same device: identical log-likelihoods
    assert mapped.records[0].option_logprobs == plain.records[0].option_logprobs
