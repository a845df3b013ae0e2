"""What is safe to cache between invocations: file hashes and GGUF files converted for torch.

Converting a GGUF file (parsing its tokenizer, de-quantising its weights) takes most of a
start-up; the converted weights (float32 safetensors) and tokenizer are kept under the user's
cache directory, keyed by the GGUF's SHA-256, whose own cache entry is keyed by the file's
path, size and modification time. ``READOUT_AUDIT_CACHE`` moves the cache; ``off`` disables it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from readout_audit._util import decode_json

CACHE_ENV = "READOUT_AUDIT_CACHE"
_COMPLETE = "complete.json"


def cache_dir() -> Path | None:
    """The cache directory (``$READOUT_AUDIT_CACHE``, else the XDG cache), or None when off."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "readout-audit"


def _hash_bytes(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes, remembered for the same path, size and modification time."""
    root = cache_dir()
    stat = path.stat()
    key = f"{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    index = root / "hashes.json" if root is not None else None
    known: dict[str, str] = {}
    if index is not None and index.is_file():
        try:
            known = decode_json(index.read_text(encoding="utf-8"))
        except (ValueError, OSError):  # JSON, Unicode and bounds errors are ValueErrors
            known = {}  # a damaged index is rebuilt
    if key in known:
        return known[key]
    digest = _hash_bytes(path)
    if index is not None:
        known[key] = digest
        _write_atomic(index, json.dumps(known, indent=1))
    return digest


def _write_atomic(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs time


def converted(sha256: str) -> Path | None:
    """The converted copy of the GGUF file with this hash, if a complete one is cached."""
    root = cache_dir()
    if root is None:
        return None
    folder = root / "gguf" / sha256
    return folder if (folder / _COMPLETE).is_file() else None


def store_converted(sha256: str, model: Any, tokenizer: Any, source: Path) -> Path | None:
    """Keep a GGUF model's weights (float32, as converted) and tokenizer for the next start.

    Returns the folder, or None when the cache is off or unwritable.

    Written to a temporary folder and renamed, so a reader never sees half a copy.
    """
    root = cache_dir()
    if root is None:
        return None
    from safetensors.torch import save_model

    target = root / "gguf" / sha256
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{sha256[:12]}-"))
        model.config.save_pretrained(work)
        model.generation_config.save_pretrained(work)
        save_model(model, str(work / "model.safetensors"), metadata={"format": "pt"})
        tokenizer.save_pretrained(work)
        (work / _COMPLETE).write_text(json.dumps({"source": str(source), "sha256": sha256}))
        if target.exists():  # another process finished first
            shutil.rmtree(work, ignore_errors=True)
        else:
            os.replace(work, target)
    except OSError:
        return None
    return target
