"""A model already in memory (a notebook's) scores like the loaded spec; a run can be redone."""

from __future__ import annotations

import hashlib

import pytest

from readout_audit import (
    Item,
    RunDirectoryError,
    read_run,
    score,
    score_item,
    wrap_model,
)
from readout_audit._exceptions import InputError
from readout_audit.model._wrap import PARAMETERS

pytestmark = pytest.mark.cost(10)

ITEMS = [
    Item(id="q", prompt="The capital of France is", options=[" Paris", " Lyon"]),
    Item(id="r", messages=[{"role": "user", "content": "Is ice cold?"}], options=["Yes", "No"]),
]


def test_a_wrapped_model_reads_what_the_loaded_spec_reads(
    model, torch_model, hf_tokenizer, float32_budget
):
    wrapped = wrap_model(torch_model, hf_tokenizer)
    assert wrapped.info.spec.startswith("loaded:") and wrapped.info.dtype == "float32"
    assert wrapped.info.chat_template_sha256 == model.info.chat_template_sha256
    for item in ITEMS:
        a, b = score_item(model, item, greedy_tokens=4), score_item(wrapped, item, greedy_tokens=4)
        assert a.rendered_sha256 == b.rendered_sha256 and a.greedy.text == b.greedy.text
        assert a.option_mass is not None and b.option_mass is not None
        assert abs(a.option_mass - b.option_mass) <= float32_budget(a.n_tokens)


def test_the_fingerprint_hashes_every_parameter(torch_model, hf_tokenizer):
    info = wrap_model(torch_model, hf_tokenizer, name="mine").info
    (fingerprint,) = info.files
    assert fingerprint.path == PARAMETERS and info.spec == "loaded:mine"
    digest, size = hashlib.sha256(), 0  # independently: names, dtypes, shapes, raw bytes
    for name, tensor in torch_model.state_dict().items():
        raw = tensor.detach().cpu().numpy().tobytes()
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode() + raw)
        size += len(raw)
    assert fingerprint.sha256 == digest.hexdigest() and fingerprint.size == size


def test_anything_else_is_refused(hf_tokenizer, torch_model):
    with pytest.raises(InputError, match="expected a transformers model, got str"):
        wrap_model("gpt2", hf_tokenizer)
    with pytest.raises(InputError, match="expected a transformers tokenizer, got int"):
        wrap_model(torch_model, 3)


def test_overwrite_redoes_a_run_whose_items_changed(torch_model, hf_tokenizer, tmp_path):
    wrapped, out = wrap_model(torch_model, hf_tokenizer), tmp_path / "run"
    score(wrapped, ITEMS[:1], out, greedy_tokens=2)
    (out / "artifacts").mkdir()
    (out / "artifacts" / "stale.json").write_text("{}")
    with pytest.raises(RunDirectoryError, match="holds a run of another configuration"):
        score(wrapped, ITEMS[1:], out, greedy_tokens=2)  # a notebook cell run again, edited
    score(wrapped, ITEMS[1:], out, greedy_tokens=2, overwrite=True)
    run = read_run(out)
    assert [r.item_id for r in run.records] == ["r"] and len(run.manifest.invocations) == 1
    assert not (out / "artifacts").exists()
    kept = tmp_path / "not-a-run"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    score(wrapped, ITEMS[:1], kept, greedy_tokens=2, overwrite=True)  # no manifest: kept
    assert (kept / "notes.txt").read_text() == "mine"
