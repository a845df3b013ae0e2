"""A finished fine-tuning opened as the SFT rung's scorer: its scorer with the adapter merged.

The scorer named in ``sft.json`` is loaded again (its weights' hashes must be those it was
trained from) and the adapter merged into it, once its files' hashes are those ``sft.json``
recorded when the training finished (an adapter swapped for another training's is refused);
the run's manifest records the fine-tuning's manifest hash, the adapter's files and the
held-out papers. A fine-tuning that never checked its held-out cuts against its examples (an
older readout's) is refused.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util._lock import lock_holder
from readout_audit.lift._sft_scorer import SftScorer
from readout_audit.lift.sft._folder import check_adapter, check_folder
from readout_audit.lift.sft._manifest import (
    ADAPTER,
    SFT_MANIFEST,
    ScorerIdentity,
    SftManifest,
    read_manifest,
)
from readout_audit.model import load_model


def read_sft(directory: str | Path) -> SftManifest:
    """A finished fine-tuning's manifest, its adapter checked against it, or one error."""
    directory = Path(directory)
    path = directory / SFT_MANIFEST
    if not path.is_file():
        raise InputError(
            f"holds no {SFT_MANIFEST}: not a readout lift sft directory", source=str(directory)
        )
    check_folder(directory)
    writer = lock_holder(directory)
    if writer is not None:
        raise RunDirectoryError(f"{directory} is being trained by process {writer}; wait for it")
    manifest = read_manifest(path)
    if manifest.steps_done != manifest.config.steps:
        raise InputError(
            f"the fine-tuning has not finished its {manifest.config.steps} steps; rerun "
            "readout lift sft on it to finish",
            source=str(directory),
        )
    if manifest.held_out_targets is None:
        raise InputError(
            "records no check of its held-out cuts against the training examples (an older "
            "readout's fine-tuning): train it again into a new folder",
            source=str(path),
            field="held_out_targets",
        )
    check_adapter(directory / ADAPTER, manifest.adapter_files, path)
    return manifest


def open_sft_scorer(
    directory: str | Path,
    *,
    device: str = "auto",
    dtype: str = "auto",
    allow_download: bool = False,
) -> SftScorer:
    """Load the fine-tuned scorer of a finished ``readout lift sft`` directory.

    ``device`` and ``dtype`` as :func:`load_model` takes them: the other rungs' scorer's, so
    the rungs are read alike.
    """
    manifest = read_sft(directory)
    scorer = ScorerIdentity.model_validate(manifest.scorer)
    spec = scorer.spec
    adapter = Path(directory) / ADAPTER
    model = load_model(
        spec, device=device, dtype=dtype, allow_download=allow_download, adapter=adapter
    )
    trained_from = [(f.path, f.sha256) for f in scorer.files]
    loaded = [(f.path, f.sha256) for f in model.info.files[: len(trained_from)]]
    if loaded != trained_from:
        raise InputError(
            f"the scorer {spec!r} no longer has the weights this adapter was trained on",
            source=str(directory),
            field="scorer",
        )
    added = model.info.files[len(trained_from) :]
    if {f.path: f.sha256 for f in added} != manifest.adapter_files:
        raise InputError(
            f"changed while it was loaded: not the files {SFT_MANIFEST} records",
            source=str(adapter),
        )
    text = (Path(directory) / SFT_MANIFEST).read_bytes()
    return SftScorer(
        model=model,
        held_out=frozenset(manifest.split.held_out),
        trained=frozenset(manifest.examples),
        checked=dict(manifest.held_out_targets or {}),
        overlap=frozenset(manifest.held_out_overlap),
        setup=dict(manifest.setup),
        identity={
            "sft_manifest_sha256": hashlib.sha256(text).hexdigest(),
            "scorer": spec,
            "steps": manifest.steps_done,
            "split_seed": manifest.split.seed,
            "held_out_overlap": dict(manifest.held_out_overlap),
            "adapter_files": [{"path": f.path, "sha256": f.sha256} for f in added],
        },
    )
