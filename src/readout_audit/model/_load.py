"""Model specs and their loader: ``smollm2-135m``, ``hf:<id-or-dir>[@rev]``, ``gguf:<path>``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError, ModelNotAvailableError
from readout_audit.model._backend import ModelFile, ModelInfo, ScoringModel
from readout_audit.model._embedded import EMBEDDED_SPEC, embedded_gguf_path

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt")
_DTYPES = ("float32", "float64", "bfloat16", "float16")


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec."""

    kind: str
    """``embedded``, ``hf`` or ``gguf``."""
    location: str
    """Hub id, local directory or GGUF path (empty for the embedded model)."""
    revision: str | None = None

    def __str__(self) -> str:
        if self.kind == "embedded":
            return EMBEDDED_SPEC
        suffix = f"@{self.revision}" if self.revision else ""
        return f"{self.kind}:{self.location}{suffix}"


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse a model spec string, with a clear error for anything else."""
    if spec == EMBEDDED_SPEC:
        return ModelSpec("embedded", "")
    kind, sep, rest = spec.partition(":")
    if sep and kind == "gguf" and rest:
        return ModelSpec("gguf", rest)
    if sep and kind == "hf" and rest:
        location, at, revision = rest.partition("@")
        if not location or (at and not revision):
            raise InputError(f"malformed hf spec {spec!r}; expected hf:<hub-id-or-dir>[@revision]")
        return ModelSpec("hf", location, revision or None)
    raise InputError(
        f"unknown model spec {spec!r}; expected {EMBEDDED_SPEC!r}, 'hf:<hub-id-or-dir>[@revision]' "
        "or 'gguf:<path>'",
        field="model",
    )


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _model_files(paths: list[Path]) -> tuple[ModelFile, ...]:
    return tuple(
        ModelFile(path=p.name, sha256=sha256_file(p), size=p.stat().st_size) for p in sorted(paths)
    )


def _resolve_hf_directory(spec: ModelSpec, allow_download: bool) -> Path:
    """The local directory holding an ``hf:`` model's files, downloading only when allowed."""
    local = Path(spec.location).expanduser()
    if local.is_dir():
        return local
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(
            snapshot_download(
                spec.location, revision=spec.revision, local_files_only=not allow_download
            )
        )
    except LocalEntryNotFoundError:
        raise ModelNotAvailableError(
            f"{spec} is not available offline: it is neither a local directory nor in the Hugging "
            "Face cache; download it first, or pass --allow-download (allow_download=True)"
        ) from None
    except Exception as error:
        raise ModelNotAvailableError(f"cannot load {spec}: {error}") from error


def load_model(
    spec: str = EMBEDDED_SPEC, *, allow_download: bool = False, dtype: str = "float32"
) -> ScoringModel:
    """Load a model spec as a scoring backend (local files only unless ``allow_download``)."""
    parsed = parse_model_spec(spec)
    if dtype not in _DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; expected one of {', '.join(_DTYPES)}")
    if parsed.kind == "embedded":
        gguf = embedded_gguf_path()
        return _load_transformers(str(parsed), gguf.parent, gguf.name, [gguf], dtype)
    if parsed.kind == "gguf":
        gguf = Path(parsed.location).expanduser()
        if not gguf.is_file():
            raise ModelNotAvailableError(f"{spec}: no such GGUF file")
        return _load_transformers(str(parsed), gguf.parent, gguf.name, [gguf], dtype)
    directory = _resolve_hf_directory(parsed, allow_download)
    weights = [p for p in directory.iterdir() if p.suffix in _WEIGHT_SUFFIXES and p.is_file()]
    return _load_transformers(str(parsed), directory, None, weights, dtype)


def is_vision_language(directory: Path, gguf_file: str | None) -> bool:
    """Whether the checkpoint is an image-text-to-text model (a processor and pixel inputs)."""
    if gguf_file is not None:
        return False
    from transformers import AutoConfig
    from transformers.models.auto.modeling_auto import MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES

    try:
        config = AutoConfig.from_pretrained(str(directory), local_files_only=True)
    except (OSError, ValueError):
        return False
    return config.model_type in MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES


def _load_transformers(
    spec: str, directory: Path, gguf_file: str | None, weights: list[Path], dtype: str
) -> ScoringModel:
    import torch
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForImageTextToText,
        AutoProcessor,
        AutoTokenizer,
    )

    from readout_audit.model._codec import TextCodec
    from readout_audit.model._transformers import TransformersModel
    from readout_audit.model._vision import VisionCodec

    kwargs: dict[str, Any] = {"local_files_only": True}
    if gguf_file is not None:
        kwargs["gguf_file"] = gguf_file
    vision = is_vision_language(directory, gguf_file)
    try:
        if vision:
            processor = AutoProcessor.from_pretrained(str(directory), **kwargs)  # type: ignore[no-untyped-call]
            tokenizer = processor.tokenizer
            model = AutoModelForImageTextToText.from_pretrained(
                str(directory), dtype=getattr(torch, dtype), **kwargs
            )
        else:
            tokenizer = AutoTokenizer.from_pretrained(str(directory), **kwargs)
            model = AutoModelForCausalLM.from_pretrained(
                str(directory), dtype=getattr(torch, dtype), **kwargs
            )
    except (OSError, ValueError) as error:
        raise ModelNotAvailableError(f"cannot load {spec}: {error}") from error
    window = getattr(model.config.get_text_config(), "max_position_embeddings", None)
    name = str(getattr(model.config, "_name_or_path", "") or directory.name)
    codec = (
        VisionCodec(processor, name=type(processor).__name__, context_window=window)
        if vision
        else TextCodec(tokenizer, name=type(tokenizer).__name__, context_window=window)
    )
    info = ModelInfo(
        spec=spec,
        name=gguf_file or name,
        files=_model_files(weights),
        dtype=dtype,
        context_window=window,
        tokenizer=f"{type(tokenizer).__name__} ({gguf_file or directory.name})",
        chat_template_sha256=codec.chat_template_sha256,
    )
    return TransformersModel(model, codec, info)
