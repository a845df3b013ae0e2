"""The splits of a recovery run from source strings, or a generated synthetic deduction set."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from readout_audit._exceptions import InputError
from readout_audit.data import (
    CONTROLLED_SPLITS,
    LogicItem,
    generate_controlled_logic,
    generate_paper_logic,
)
from readout_audit.data._sources import load_logic_file, load_logic_source, named_source
from readout_audit.recover._audit import RecoverSplits
from readout_audit.recover._seeds import seeded_name

GENERATED_EVALS = ("id", "depth", "lexical")
"""The held-out splits of the generated set, all evaluated unless others are named."""
GENERATED_N = 1000
"""Generated items per fit and held-out split."""
GENERATED_TRAIN_N = 2000
"""Generated probe-training items."""
GENERATORS: dict[str, Callable[[str, int, int], list[LogicItem]]] = {
    "controlled-logic": generate_controlled_logic,
    "paper-logic": generate_paper_logic,
}
"""The synthetic deduction generators by name: this project's balanced design, and the
paper's Appendix B as printed."""


def recover_splits(
    *,
    items: Sequence[Path] = (),
    fit: str | None = None,
    evals: Sequence[str] = (),
    probe_train: str | None = None,
    generate: str | None = None,
    n: int = GENERATED_N,
    train_n: int = GENERATED_TRAIN_N,
    seed: int = 0,
    allow_download: bool = False,
    limit: int | None = None,
) -> RecoverSplits:
    """The run's splits, read from sources or generated.

    With ``generate`` (a name of :data:`GENERATORS`): the generated set, ``n`` items per split
    and ``train_n`` probe-training items, ``evals`` naming its splits (comma-separated allowed);
    ``NAME@SEED`` draws held-out split NAME from generator seed SEED instead of ``seed``, the
    fit and training splits unchanged (the paper's stress splits). Otherwise
    ``fit``, ``evals`` (``NAME=SOURCE`` or SOURCE) and ``probe_train`` are sources of
    :func:`~readout_audit.data.load_logic_source`; a split name reads the pooled ``items``.
    ``limit`` keeps the first ``limit`` items of each split (probe training, fit, every
    held-out split), read or generated.
    """
    if generate is not None:
        if fit or probe_train or items:
            raise InputError("replaces items, fit and probe_train", field="generate")
        if generate not in GENERATORS:
            raise InputError(
                f"unknown generator {generate!r}; known: {', '.join(GENERATORS)}",
                field="generate",
            )
        draw = GENERATORS[generate]
        names = [name for e in evals for name in e.split(",")] or list(GENERATED_EVALS)
        return RecoverSplits(
            train=_first(draw("train", train_n, seed), limit),
            fit=draw("fit", n, seed)[:limit],
            evals={name: _generated(draw, name, n, seed)[:limit] for name in names},
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


def _generated(
    draw: Callable[[str, int, int], list[LogicItem]], name: str, n: int, seed: int
) -> list[LogicItem]:
    """A generated held-out split by name: NAME at ``seed``, or NAME@SEED at SEED."""
    split, split_seed = seeded_name(name) or (name, seed)
    if split not in CONTROLLED_SPLITS or split in ("train", "fit"):
        held_out = [s for s in CONTROLLED_SPLITS if s not in ("train", "fit")]
        raise InputError(
            f"{name!r} names no generated held-out split; known: {', '.join(held_out)}, each "
            "also as NAME@SEED (drawn from another generator seed)",
            field="eval",
        )
    return draw(split, n, split_seed)


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
