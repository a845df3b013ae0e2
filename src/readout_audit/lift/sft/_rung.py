"""A finished fine-tuning opened as the SFT rung's scorer: its scorer with the adapter merged.

The scorer named in the fine-tuning's manifest is loaded again (its weights' hashes must be
those it was trained from) and the adapter merged into it, once its files' hashes are those
``adapter.json`` recorded when the training finished (an adapter swapped for another
training's is refused); the run's manifest records the fine-tuning's identity hash, the
adapter's files and the held-out papers.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util import lock_holder
from readout_audit.lift._sft_scorer import SftScorer
from readout_audit.lift.sft._folder import check_adapter, check_folder
from readout_audit.lift.sft._manifest import (
    ADAPTER,
    ADAPTER_FILES,
    SFT_MANIFEST,
    ScorerIdentity,
    validated,
)
from readout_audit.lift.sft._stage import FineTuning, read_fine_tuning
from readout_audit.model import load_model


def read_sft(directory: str | Path) -> FineTuning:
    """A finished fine-tuning, its scorer and adapter checked against its manifest, or one error."""
    directory = Path(directory)
    check_folder(directory)  # an earlier version's folder (sft.json) is refused here
    path = directory / SFT_MANIFEST
    if not path.is_file():
        raise InputError(
            f"holds no {SFT_MANIFEST}: not a readout lift sft directory", source=str(directory)
        )
    writer = lock_holder(directory)
    if writer is not None:
        raise RunDirectoryError(f"{directory} is being trained by process {writer}; wait for it")
    tuning = read_fine_tuning(directory)
    validated(ScorerIdentity, tuning.scorer, path, "model.")
    if not tuning.finished:
        raise InputError(
            f"the fine-tuning has not finished its {tuning.config.total_steps} steps; rerun "
            "readout lift sft on it to finish",
            source=str(directory),
        )
    check_adapter(directory / ADAPTER, tuning.adapter_files)
    return tuning


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
    tuning = read_sft(directory)
    scorer = ScorerIdentity.model_validate(tuning.scorer)
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
    if {f.path: f.sha256 for f in added} != tuning.adapter_files:
        raise InputError(
            f"changed while it was loaded: not the files {ADAPTER_FILES} records",
            source=str(adapter),
        )
    plan = tuning.plan
    identity = json.dumps(tuning.identity, sort_keys=True, separators=(",", ":"))
    return SftScorer(
        model=model,
        held_out=frozenset(plan.split.held_out),
        trained=frozenset(plan.examples),
        checked=dict(plan.held_out_targets),
        overlap=frozenset(plan.held_out_overlap),
        setup=dict(plan.setup),
        identity={
            "sft_sha256": hashlib.sha256(identity.encode()).hexdigest(),
            "scorer": spec,
            "steps": len(tuning.losses),
            "split_seed": plan.split.seed,
            "held_out_overlap": dict(plan.held_out_overlap),
            "adapter_files": [{"path": f.path, "sha256": f.sha256} for f in added],
        },
    )
