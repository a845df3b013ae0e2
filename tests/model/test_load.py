"""Model specs and the errors for models that are not available offline."""

from __future__ import annotations

import pytest

from readout_audit import InputError, ModelNotAvailableError, load_model
from readout_audit.model import ModelSpec, ServedSettings, open_model, parse_model_spec


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("smollm2-135m", ModelSpec("embedded", "")),
        ("hf:org/name", ModelSpec("hf", "org/name")),
        ("hf:org/name@abc123", ModelSpec("hf", "org/name", "abc123")),
        ("hf:./local/dir", ModelSpec("hf", "./local/dir")),
        ("gguf:/models/x.gguf", ModelSpec("gguf", "/models/x.gguf")),
    ],
)
def test_parse_model_spec(spec, expected):
    parsed = parse_model_spec(spec)
    assert parsed == expected
    assert str(parsed) == spec


@pytest.mark.parametrize("spec", ["gpt-5", "hf:", "hf:org/name@", "gguf:", "openai"])
def test_bad_specs_are_rejected(spec):
    with pytest.raises(InputError, match="spec"):
        parse_model_spec(spec)


def test_hub_model_not_cached_is_a_clear_offline_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(ModelNotAvailableError, match="not available offline"):
        load_model("hf:readout-audit-tests/no-such-model")


def test_missing_gguf_file(tmp_path):
    with pytest.raises(ModelNotAvailableError, match="no such GGUF file"):
        load_model(f"gguf:{tmp_path / 'absent.gguf'}")


def test_unknown_dtype():
    with pytest.raises(InputError, match="dtype"):
        load_model("smollm2-135m", dtype="int3")


def test_a_truncated_gguf_file_is_named(tmp_path, monkeypatch):
    from readout_audit.model._embedded import embedded_gguf_path

    monkeypatch.setenv("READOUT_AUDIT_CACHE", "off")
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(embedded_gguf_path().read_bytes()[:4_000_000])
    with pytest.raises(ModelNotAvailableError, match=r"cut.gguf is truncated or not a GGUF file"):
        load_model(f"gguf:{cut}")


@pytest.mark.parametrize(
    ("spec", "options", "field"),
    [
        ("smollm2-135m", {"conformance": "c.json"}, "conformance"),
        ("smollm2-135m", {"served": ServedSettings()}, "served"),
        ("smollm2-135m", {"allow_nonconforming": True}, "allow_nonconforming"),
        ("openai:http://127.0.0.1:9/v1#m", {"device": "cpu"}, "device"),
        ("openai:http://127.0.0.1:9/v1#m", {"trust_remote_code": True}, "trust_remote_code"),
    ],
)
def test_open_model_refuses_what_the_other_kind_of_model_would_not_read(spec, options, field):
    """Refused before anything loads or any request is sent (port 9 answers nothing)."""
    with pytest.raises(InputError, match=f"field '{field}'"):
        open_model(spec, **options)


def test_open_model_opens_a_served_spec_through_its_gate():
    with pytest.raises(InputError, match=r"field 'tokenizer'.*--conformance"):
        open_model("openai:http://127.0.0.1:9/v1#m")  # no tokenizer nor verdict: nothing sent


@pytest.mark.model
def test_models_load_without_hub_kernels(monkeypatch):
    # transformers fetches kernels from the hub for a model that uses them once it trains (a
    # traceback offline on CUDA): every load asks for torch's own code
    import transformers

    from readout_audit.model import _load

    asked = []
    real = transformers.AutoModelForCausalLM.from_pretrained

    def spy(*args, **kwargs):
        asked.append(kwargs.get("use_kernels"))
        return real(*args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", spy)
    model = _load.load_model("smollm2-135m")
    assert asked == [False] and model.module.use_kernels is False


def test_training_turns_a_models_hub_kernels_off():
    from readout_audit.lift.sft._train import without_hub_kernels

    class Kernelized:
        """A model using hub kernels: turning them off goes through its setter."""

        use_kernels = True

    module = Kernelized()
    without_hub_kernels(module)
    assert module.use_kernels is False
    without_hub_kernels(object())  # a module with no kernels at all is left as it is
