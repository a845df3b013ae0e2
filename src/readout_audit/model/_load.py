"""Model specs and their loader: ``smollm2-135m``, ``hf:<id-or-dir>[@rev]``, ``gguf:<path>``."""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from readout_audit._exceptions import InputError, ModelNotAvailableError
from readout_audit._util import THREADS_MAX, hub_hint
from readout_audit.model._backend import ModelFile, ModelInfo, ScoringModel
from readout_audit.model._cache import converted, sha256_file, store_converted
from readout_audit.model._device import resolve_device, resolve_dtype

if TYPE_CHECKING:
    from readout_audit.model._codec import TextCodec
    from readout_audit.model._transformers import TransformersModel
from readout_audit.model._embedded import EMBEDDED_SPEC, embedded_gguf_path
from readout_audit.model._prefix import PREFIX_SHARING, shares_prefixes

_WEIGHT_SUFFIXES = (".safetensors", ".bin", ".gguf", ".pt")
_UNREADABLE = (OSError, ValueError, KeyError, IndexError, struct.error)
"""What transformers raises on files it cannot read (a truncated GGUF file, a missing config)."""
Preflight = Callable[["TextCodec"], None]
"""Checks that need the tokenizer but not the weights (items against the context window)."""


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
    except LocalEntryNotFoundError as error:
        cause = f" ({error.__cause__ or error})" if allow_download else ""
        raise ModelNotAvailableError(
            f"{spec} is not available offline: it is neither a local directory nor in the Hugging "
            f"Face cache; {hub_hint(allow_download)}{cause}"
        ) from None
    except Exception as error:
        raise ModelNotAvailableError(f"cannot load {spec}: {error}") from error


@dataclass(frozen=True)
class Placement:
    """Where and how a model is loaded."""

    device: str = "cpu"
    """A resolved torch device (see :func:`resolve_device`)."""
    dtype: str = "float32"
    device_map: str | None = None
    """``auto``: let accelerate spread the model over the available devices."""
    trust_remote_code: bool = False


def load_model(
    spec: str = EMBEDDED_SPEC,
    *,
    allow_download: bool = False,
    dtype: str = "auto",
    device: str = "auto",
    device_map: str | None = None,
    trust_remote_code: bool = False,
    threads: int | None = None,
    cache_budget_mb: int | None = None,
    prefix_sharing: str = "auto",
    preflight: Preflight | None = None,
    adapter: str | Path | None = None,
) -> ScoringModel:
    """Load a model spec as a scoring backend (local files only unless ``allow_download``).

    ``device``: auto (cuda if available, else mps, else cpu), cpu, cuda, cuda:N or mps;
    ``dtype``: auto (bfloat16 on a GPU, float32 otherwise) or a torch dtype name;
    ``device_map="auto"`` spreads a model too large for one GPU (accelerate's placement).
    ``trust_remote_code`` runs a checkpoint's own modelling code (off unless asked).
    ``threads`` sets torch's CPU threads for the whole process (default: one per core).
    ``cache_budget_mb`` bounds one forward's key-value cache (default 1024): a batch that would
    exceed it is scored in chunks, with the same numbers.
    ``prefix_sharing``: on, off or auto (on the CPU only): encode the prefixes a batch shares
    once; the numbers agree within rounding either way.
    ``preflight(codec)`` runs once the tokenizer is loaded and before the weights are, so a
    check that needs only the tokenizer (items against the context window) fails early.
    ``adapter``: a LoRA adapter directory (peft's format, e.g. ``readout lift sft``'s
    ``adapter/``) merged into the weights; its files' hashes join the model's in the manifest.
    """
    parsed = parse_model_spec(spec)
    if prefix_sharing not in PREFIX_SHARING:
        raise InputError(
            f"unknown prefix sharing {prefix_sharing!r}; expected {', '.join(PREFIX_SHARING)}",
            field="prefix-sharing",
        )
    set_threads(threads)
    if device_map not in (None, "auto"):
        raise InputError(f"unknown device map {device_map!r}; expected auto", field="device-map")
    resolved = resolve_device(device)
    place = Placement(resolved, resolve_dtype(dtype, resolved), device_map, trust_remote_code)
    directory, gguf_file, weights = locate_files(parsed, allow_download)
    if adapter is not None and not (Path(adapter) / "adapter_config.json").is_file():
        raise InputError("is not a LoRA adapter directory", source=str(adapter), field="adapter")
    model = _load_transformers(str(parsed), directory, gguf_file, weights, place, preflight)
    if adapter is not None:
        model = _with_adapter(model, Path(adapter))
    if cache_budget_mb is not None:
        if cache_budget_mb < 1:
            raise InputError(
                f"the cache budget must be at least 1 MB, got {cache_budget_mb}",
                field="cache_budget_mb",
            )
        model.cache_budget = cache_budget_mb * 2**20
    model.share_prefixes = shares_prefixes(prefix_sharing, place.device.partition(":")[0])
    return model


def _with_adapter(model: TransformersModel, adapter: Path) -> TransformersModel:
    """The model with a LoRA adapter merged into its weights, the adapter's files recorded."""
    from peft import PeftModel
    from safetensors import SafetensorError

    from readout_audit.model._transformers import TransformersModel

    try:
        merged = PeftModel.from_pretrained(model.module, str(adapter)).merge_and_unload()
    except (*_UNREADABLE, RuntimeError, TypeError, SafetensorError) as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
        raise InputError(
            f"cannot be merged into {model.info.spec} as a LoRA adapter: {reason}",
            source=str(adapter),
            field="adapter",
        ) from None
    files = _model_files([p for p in adapter.iterdir() if p.is_file()])
    info = replace(model.info, files=(*model.info.files, *files))
    return TransformersModel(merged, model.codec, info)


def set_threads(threads: int | None) -> None:
    """Set torch's CPU threads for the process (None leaves torch's default, one per core)."""
    if threads is None:
        return
    if type(threads) is not int or not 1 <= threads <= THREADS_MAX:
        raise InputError(
            f"threads must be from 1 to this machine's {THREADS_MAX} cores, got {threads!r}",
            field="threads",
        )
    import torch

    torch.set_num_threads(threads)


def locate_files(parsed: ModelSpec, allow_download: bool) -> tuple[Path, str | None, list[Path]]:
    """A spec's directory, its GGUF file name (None for a checkpoint directory) and weights."""
    if parsed.kind in ("embedded", "gguf"):
        gguf = embedded_gguf_path() if parsed.kind == "embedded" else Path(parsed.location)
        gguf = gguf.expanduser()
        if not gguf.is_file():
            raise ModelNotAvailableError(f"{parsed}: no such GGUF file")
        return gguf.parent, gguf.name, [gguf]
    directory = _resolve_hf_directory(parsed, allow_download)
    weights = [p for p in directory.iterdir() if p.suffix in _WEIGHT_SUFFIXES and p.is_file()]
    return directory, None, weights


def load_codec(
    spec: str, *, allow_download: bool = False, trust_remote_code: bool = False
) -> tuple[TextCodec, tuple[ModelFile, ...]]:
    """Only the tokenizer (and chat template) of a model spec, with its files' hashes.

    A served model is scored through its own tokenizer, loaded here without the weights.
    """
    from transformers import AutoConfig, AutoTokenizer

    from readout_audit.model._codec import TextCodec

    parsed = parse_model_spec(spec)
    directory, gguf_file, weights = locate_files(parsed, allow_download)
    files = _model_files(weights)
    cached = converted(files[0].sha256) if gguf_file is not None else None
    kwargs: dict[str, Any] = {"local_files_only": True, "trust_remote_code": trust_remote_code}
    if gguf_file is not None and cached is None:
        kwargs["gguf_file"] = gguf_file
    source = str(cached or directory)
    try:
        config = AutoConfig.from_pretrained(source, **kwargs)
        tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
    except _UNREADABLE as error:
        raise ModelNotAvailableError(f"cannot read the tokenizer of {parsed}: {error}") from error
    window = getattr(config.get_text_config(), "max_position_embeddings", None)
    name = f"{type(tokenizer).__name__} ({gguf_file or directory.name})"
    return TextCodec(tokenizer, name=name, context_window=window), files


@dataclass(frozen=True)
class _Checkpoint:
    """Where a transformers model loads from: its directory, or the conversion of its GGUF file."""

    spec: str
    directory: Path
    gguf_file: str | None
    cached: Path | None
    """A GGUF file converted at an earlier start: it loads in seconds."""
    kwargs: dict[str, Any]

    @property
    def source(self) -> str:
        """What transformers reads: the conversion where there is one, else the directory."""
        return str(self.cached or self.directory)

    def unreadable(self, error: Exception) -> ModelNotAvailableError:
        """The error for files transformers could not read, naming a GGUF file it read."""
        if self.gguf_file is not None and self.cached is None:
            return ModelNotAvailableError(
                f"cannot load {self.spec}: {self.directory / self.gguf_file} is truncated or not "
                f"a GGUF file this version of transformers reads ({type(error).__name__}: {error})"
            )
        return ModelNotAvailableError(f"cannot load {self.spec}: {error}")


def _load_transformers(
    spec: str,
    directory: Path,
    gguf_file: str | None,
    weights: list[Path],
    place: Placement,
    preflight: Preflight | None = None,
) -> TransformersModel:
    """The tokenizer first, so ``preflight`` runs before the weights load; then the weights."""
    from readout_audit.model._transformers import TransformersModel

    kwargs: dict[str, Any] = {
        "local_files_only": True,
        "trust_remote_code": place.trust_remote_code,
    }
    files = _model_files(weights)
    cached = converted(files[0].sha256) if gguf_file is not None else None
    if gguf_file is not None and cached is None:
        kwargs["gguf_file"] = gguf_file
    checkpoint = _Checkpoint(spec, directory, gguf_file, cached, kwargs)
    config, tokenizer, codec, vision = _read_codec(checkpoint)
    if preflight is not None:
        preflight(codec)
    model = _read_weights(checkpoint, config, vision, place)
    if gguf_file is not None and cached is None and place.dtype == "float32":
        store_converted(files[0].sha256, model, tokenizer, directory / gguf_file)
    placement = _place(model, place)
    name = str(getattr(config, "_name_or_path", "") or directory.name)
    info = ModelInfo(
        spec=spec,
        name=gguf_file or name,
        files=files,
        dtype=place.dtype,
        context_window=codec.context_window,
        tokenizer=f"{type(tokenizer).__name__} ({gguf_file or directory.name})",
        chat_template_sha256=codec.chat_template_sha256,
        device=str(next(model.parameters()).device),
        placement=placement,
        trust_remote_code=place.trust_remote_code,
    )
    return TransformersModel(model, codec, info)


def _read_codec(checkpoint: _Checkpoint) -> tuple[Any, Any, TextCodec, bool]:
    """The configuration, the tokenizer, its codec and whether the model reads images.

    An image-text model's codec wraps its processor, loaded only then: the processor module
    imports every image processor.
    """
    from transformers import AutoConfig, AutoTokenizer
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES as IMAGE_TEXT_TO_TEXT,
    )

    from readout_audit.model._codec import TextCodec
    from readout_audit.model._vision import VisionCodec

    source, kwargs = checkpoint.source, checkpoint.kwargs
    try:
        config = AutoConfig.from_pretrained(source, **kwargs)
        vision = checkpoint.gguf_file is None and config.model_type in IMAGE_TEXT_TO_TEXT
        window = getattr(config.get_text_config(), "max_position_embeddings", None)
        if vision:
            from transformers import AutoProcessor

            processor = AutoProcessor.from_pretrained(source, **kwargs)  # type: ignore[no-untyped-call]
            tokenizer = processor.tokenizer
        else:
            tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
    except _UNREADABLE as error:
        raise checkpoint.unreadable(error) from error
    codec = (
        VisionCodec(processor, name=type(processor).__name__, context_window=window)
        if vision
        else TextCodec(tokenizer, name=type(tokenizer).__name__, context_window=window)
    )
    codec.width = getattr(config.get_text_config(), "hidden_size", None)
    return config, tokenizer, codec, vision


def _read_weights(checkpoint: _Checkpoint, config: Any, vision: bool, place: Placement) -> Any:
    """The model's weights in the placement's dtype, spread by its device map if it has one."""
    import torch
    from transformers import AutoModelForCausalLM

    auto: Any = AutoModelForCausalLM
    if vision:
        from transformers import AutoModelForImageTextToText

        auto = AutoModelForImageTextToText
    extra = {"device_map": place.device_map} if place.device_map is not None else {}
    try:
        return auto.from_pretrained(
            checkpoint.source,
            config=config,
            dtype=getattr(torch, place.dtype),
            use_kernels=False,  # torch's own code: no kernel fetched from the hub, offline too
            **checkpoint.kwargs,
            **extra,
        )
    except _UNREADABLE as error:
        raise checkpoint.unreadable(error) from error


def _place(model: Any, place: Placement) -> dict[str, str] | None:
    """Move the model to the placement's device; where accelerate spread it, its device map."""
    import torch

    placement = getattr(model, "hf_device_map", None)
    if place.device_map is not None and not placement:  # accelerate kept it on one device
        placement = {"": str(next(model.parameters()).device)}
    if place.device_map is None and place.device != "cpu":
        model.to(torch.device(place.device))
    return {k: str(v) for k, v in placement.items()} if placement else None
