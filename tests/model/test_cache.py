"""The start-up cache: a GGUF file converted once, then loaded in seconds, to the same model."""

from __future__ import annotations

import json

import numpy as np
import pytest

from readout_audit import load_model
from readout_audit.data import Item
from readout_audit.model._cache import CACHE_ENV, cache_dir, sha256_file
from readout_audit.model._embedded import embedded_gguf_path
from readout_audit.prompt import render

pytestmark = pytest.mark.cost(15)


def test_file_hashes_are_remembered_by_path_size_and_mtime(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    data = tmp_path / "weights.bin"
    data.write_bytes(b"abc")
    expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # sha256("abc")
    assert sha256_file(data) == expected
    index = json.loads((tmp_path / "cache" / "hashes.json").read_text())
    assert list(index.values()) == [expected]
    data.write_bytes(b"abcd")  # a new size (and time) is a new key, never a stale hash
    assert sha256_file(data) == "88d4266fd4e6338d13b845fcf289579d209c897823b9217da3e161936f031589"
    monkeypatch.setenv(CACHE_ENV, "off")
    assert cache_dir() is None and sha256_file(data).startswith("88d4")


@pytest.mark.model
def test_a_converted_gguf_loads_to_the_same_model(model, tmp_path, monkeypatch, float32_budget):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    cold = load_model()  # converts the GGUF file and keeps the result
    digest = sha256_file(embedded_gguf_path())
    folder = tmp_path / "cache" / "gguf" / digest
    assert (folder / "complete.json").is_file() and (folder / "model.safetensors").is_file()
    warm = load_model()  # from the converted copy
    assert warm.info == cold.info == model.info  # same file hashes, tokenizer, template hash
    item = Item(
        id="q", messages=[{"role": "user", "content": "Name a colour."}], options=[" red", " blue"]
    )
    ids = render(item, warm.codec).token_ids
    assert ids == render(item, cold.codec).token_ids
    a = cold.next_token_logprobs([ids])[0]
    b = warm.next_token_logprobs([ids])[0]
    # the same weights: two loads agree to float32 rounding (which differs between CPUs)
    np.testing.assert_allclose(a.full, b.full, atol=float32_budget(len(ids)), rtol=0)
    assert a.argmax()[0] == b.argmax()[0]
    assert warm.codec.stop_ids == cold.codec.stop_ids
