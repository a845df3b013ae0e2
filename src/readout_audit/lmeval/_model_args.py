"""lm-eval's ``--model_args`` for a GGUF file, so that ``lm_eval`` runs on the embedded model."""

from __future__ import annotations

from pathlib import Path

from readout_audit.model import embedded_gguf_path


def lm_eval_model_args(gguf: str | Path | None = None) -> str:
    """``pretrained=FOLDER,gguf_file=NAME`` for lm-eval's ``hf`` model (default: the embedded one).

    lm-eval's HFLM loads a GGUF file through ``transformers`` from its folder and file name; the
    file's path alone, or this package's converted cache, is not something it loads.
    """
    path = Path(gguf) if gguf is not None else embedded_gguf_path()
    if "," in str(path) or "=" in str(path):
        raise ValueError(f"lm-eval's --model_args cannot hold a path with ',' or '=': {path}")
    return f"pretrained={path.parent},gguf_file={path.name}"
