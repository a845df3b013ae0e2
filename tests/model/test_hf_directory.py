"""``hf:`` specs on files the test writes: a local directory and an offline Hugging Face cache."""

from __future__ import annotations

import shutil

import huggingface_hub
import numpy as np
import pytest
import torch
from transformers import AutoModelForCausalLM

from readout_audit import ModelNotAvailableError, load_model

REVISION = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(scope="module")
def saved_directory(model, tmp_path_factory):
    """The embedded model written as an ordinary transformers directory (safetensors)."""
    directory = tmp_path_factory.mktemp("hf") / "smollm2-local"
    # A GGUF-loaded model refuses to serialise itself; copy its weights into a plain one.
    plain = AutoModelForCausalLM.from_config(model._model.config, dtype=torch.float32)
    plain.load_state_dict(model._model.state_dict())
    plain.save_pretrained(directory)
    model.codec._tok.save_pretrained(directory)
    return directory


def _same_next_token_distribution(a, b, budget) -> None:
    context = a.codec.encode("<|im_start|>user\nName a colour.<|im_end|>\n<|im_start|>assistant\n")
    assert b.codec.encode(a.codec.decode(context)) == context
    np.testing.assert_allclose(
        a.next_token_logprobs([context])[0].full,
        b.next_token_logprobs([context])[0].full,
        atol=budget(len(context)),
        rtol=0,
    )


def test_local_directory(model, saved_directory, float32_budget):
    local = load_model(f"hf:{saved_directory}")
    assert local.info.spec == f"hf:{saved_directory}"
    assert [f.path for f in local.info.files] == ["model.safetensors"]
    assert local.codec.chat_template_sha256 == model.codec.chat_template_sha256
    _same_next_token_distribution(model, local, float32_budget)


def test_hub_id_from_an_offline_cache(
    model, saved_directory, tmp_path, monkeypatch, float32_budget
):
    repo = tmp_path / "hub" / "models--readout-audit--tiny-smollm2"
    snapshot = repo / "snapshots" / REVISION
    shutil.copytree(saved_directory, snapshot)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(REVISION)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    by_ref = load_model("hf:readout-audit/tiny-smollm2")
    _same_next_token_distribution(model, by_ref, float32_budget)
    pinned = load_model(f"hf:readout-audit/tiny-smollm2@{REVISION}")
    assert pinned.info.spec.endswith(f"@{REVISION}")
    with pytest.raises(ModelNotAvailableError, match="not available offline"):
        load_model("hf:readout-audit/tiny-smollm2@fedcba9876543210fedcba9876543210fedcba98")
