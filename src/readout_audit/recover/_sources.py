"""The splits of a recovery run from source strings, or the generated controlled-logic set."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from readout_audit._exceptions import InputError
from readout_audit.data._controlled_logic import generate_controlled_logic
from readout_audit.data._logic import LogicItem
from readout_audit.data._sources import load_logic_file, load_logic_source, named_source
from readout_audit.recover._audit import RecoverSplits

GENERATED_EVALS = ("id", "depth", "lexical")
"""The held-out splits of the generated set, all evaluated unless others are named."""
GENERATED_N = 1000
"""Generated items per fit and held-out split."""
GENERATED_TRAIN_N = 2000
"""Generated probe-training items."""


def recover_splits(
    *,
    items: Sequence[Path] = (),
    fit: str | None = None,
    evals: Sequence[str] = (),
    probe_train: str | None = None,
    generate: bool = False,
    n: int = GENERATED_N,
    train_n: int = GENERATED_TRAIN_N,
    seed: int = 0,
    allow_download: bool = False,
    limit: int | None = None,
) -> RecoverSplits:
    """The run's splits, read from sources or generated.

    With ``generate``: the controlled-logic set, ``n`` items per split and ``train_n``
    probe-training items, ``evals`` naming its splits (comma-separated allowed). Otherwise
    ``fit``, ``evals`` (``NAME=SOURCE`` or SOURCE) and ``probe_train`` are sources of
    :func:`~readout_audit.data.load_logic_source`; a split name reads the pooled ``items``.
    ``limit`` keeps the first ``limit`` items of each split (probe training, fit, every
    held-out split), read or generated.
    """
    if generate:
        if fit or probe_train or items:
            raise InputError("replaces items, fit and probe_train", field="generate")
        names = [name for e in evals for name in e.split(",")] or list(GENERATED_EVALS)
        return RecoverSplits(
            train=_first(generate_controlled_logic("train", train_n, seed), limit),
            fit=generate_controlled_logic("fit", n, seed)[:limit],
            evals={name: generate_controlled_logic(name, n, seed)[:limit] for name in names},
        )
    if fit is None or not evals:
        raise InputError("give a fit split and at least one eval split (or generate)", field="fit")
    pooled = [item for path in items for item in load_logic_file(path)]
    named = dict(named_source(e) for e in evals)

    def load(source: str) -> list[LogicItem]:
        return load_logic_source(source, pooled, allow_download=allow_download)

    return RecoverSplits(
        train=_first(load(probe_train), limit) if probe_train else (),
        fit=load(fit)[:limit],
        evals={name: load(source)[:limit] for name, source in named.items()},
    )


def _first(train: list[LogicItem], limit: int | None) -> list[LogicItem]:
    """The first ``limit`` probe-training items, refused when they hold one label of several.

    The probes and the bag-of-words baseline need two labels: said here, before the model
    loads, rather than once the hidden states are read.
    """
    kept = train[:limit]
    labels = {item.label for item in kept}
    if len(labels) == 1 and len({item.label for item in train}) > 1:
        raise InputError(
            f"the first {limit} probe-training items hold only the label {labels.pop()!r}, and "
            "the probes need two: raise --limit",
            field="limit",
        )
    return kept
