"""A Hugging Face model and tokenizer already in memory (a notebook's) as a scoring model."""

from __future__ import annotations

import hashlib
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.model._backend import ModelFile, ModelInfo, ScoringModel

PARAMETERS = "<parameters in memory>"
"""The file name a wrapped model's parameter fingerprint is recorded under."""


def parameters_fingerprint(model: Any) -> ModelFile:
    """SHA-256 over the parameters' names, dtypes, shapes and bytes, in the state dict's order.

    A wrapped model has no file to hash; this identifies its weights as a file's hash would.
    """
    import torch

    digest, size = hashlib.sha256(), 0
    for name, tensor in model.state_dict().items():
        data = tensor.detach().cpu().contiguous().view(-1).view(torch.uint8)
        digest.update(f"{name}|{tensor.dtype}|{tuple(tensor.shape)}|".encode())
        digest.update(data.numpy().tobytes())
        size += data.numel()
    return ModelFile(path=PARAMETERS, sha256=digest.hexdigest(), size=size)


def wrap_model(model: Any, tokenizer: Any, *, name: str | None = None) -> ScoringModel:
    """Score with a ``transformers`` causal LM and its tokenizer as they are, not loaded again.

    The model keeps its device and dtype (it is put in eval mode). The manifest records
    ``name`` (default: the model's ``name_or_path``), the spec ``loaded:<name>``, its dtype,
    device and chat template hash, and a SHA-256 of its parameters in place of file hashes.
    """
    from readout_audit.model._codec import TextCodec
    from readout_audit.model._transformers import TransformersModel

    if not hasattr(model, "state_dict") or not hasattr(model, "config"):
        raise InputError(
            f"expected a transformers model, got {type(model).__name__}", field="model"
        )
    if not callable(tokenizer) or not callable(getattr(tokenizer, "convert_tokens_to_ids", None)):
        raise InputError(
            f"expected a transformers tokenizer, got {type(tokenizer).__name__}",
            field="tokenizer",
        )
    config = model.config
    label = name or str(getattr(config, "_name_or_path", "") or type(model).__name__)
    text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
    rows = model.get_input_embeddings().num_embeddings
    if len(tokenizer) > rows:
        raise InputError(
            f"the tokenizer knows {len(tokenizer):,} tokens, but the model embeds only {rows:,}: "
            "not the model's own tokenizer",
            field="tokenizer",
        )
    window = getattr(text_config, "max_position_embeddings", None)
    codec = TextCodec(tokenizer, name=type(tokenizer).__name__, context_window=window)
    first = next(model.parameters())
    info = ModelInfo(
        spec=f"loaded:{label}",
        name=label,
        files=(parameters_fingerprint(model),),
        dtype=str(first.dtype).removeprefix("torch."),
        context_window=window,
        tokenizer=f"{type(tokenizer).__name__} ({label})",
        chat_template_sha256=codec.chat_template_sha256,
        device=str(first.device),
    )
    return TransformersModel(model, codec, info)
