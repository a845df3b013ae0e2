"""The splits of a recovery run from source strings, or a generated synthetic deduction set."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._exceptions import InputError
from readout_audit._util import INT_MAX, OneOf, Seed, option_hint
from readout_audit.data import (
    CONTROLLED_SPLITS,
    LogicItem,
    generate_controlled_logic,
    generate_paper_logic,
    load_logic_file,
    load_logic_source,
    named_source,
)
from readout_audit.recover._audit import RecoverSplits
from readout_audit.recover._probes import PROBE_ROWS, PROBE_SEEDS

GENERATED_EVALS = ("id", "depth", "lexical")
"""The held-out splits of the generated set, all evaluated unless others are named."""
GENERATED_N = 1000
"""Generated items per fit and held-out split."""
GENERATED_TRAIN_N = PROBE_ROWS * len(PROBE_SEEDS)
"""Generated probe-training items: 2,000 for each of the paper's three probe seeds, which then
fit on disjoint rows (as the paper's seeds draw their own data) rather than on bootstrap
replicates of one draw."""
GENERATORS: dict[str, Callable[[str, int, int], list[LogicItem]]] = {
    "controlled-logic": generate_controlled_logic,
    "paper-logic": generate_paper_logic,
}
"""The synthetic deduction generators by name: this project's balanced design, and the
paper's Appendix B as printed."""


class RecoverSources(BaseModel):
    """Where a recovery run's splits come from: files and splits named, or a generated set."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    items: tuple[Path, ...] = Field(
        default=(), json_schema_extra=option_hint(path="file", repeat=True)
    )
    """Logic items whose metadata names their split (e.g. a generated set), so that --fit,
    --eval and --probe-train can name splits in them (repeatable)."""
    fit: str | None = None
    """The unlabelled in-domain split the offsets are fitted on (labels are dropped): a split
    of --items, a file (Logic-LLM JSON, ProofWriter/FOLIO/ANLI JSONL, item JSONL) or
    ``anli:[DATASET[@REV]:]SPLIT`` (e.g. ``anli:dev_r1``)."""
    evals: tuple[str, ...] = Field(default=(), json_schema_extra=option_hint("--eval", repeat=True))
    """A held-out labelled split, [NAME=]SOURCE as for --fit (repeatable). With --generate:
    comma-separated generator splits [id,depth,lexical; also counterfactual], each also as
    NAME@SEED, drawn from another generator seed (the paper's stress splits: lexical@52,...)."""
    probe_train: str | None = None
    """A labelled split the probes and the bag-of-words baseline train on (SOURCE as for
    --fit); without it no probe or TF-IDF control runs."""
    generate: Annotated[str, OneOf(lambda: sorted(GENERATORS))] | None = None
    """Generate the synthetic deduction splits instead of reading items: controlled-logic
    (balanced so that no surface feature tells the label) or paper-logic (seed 003's
    Appendix B as printed)."""
    n: int = Field(default=GENERATED_N, ge=3, le=100_000, strict=True)
    """Generated items per fit and held-out split."""
    train_n: int = Field(default=GENERATED_TRAIN_N, ge=3, le=100_000, strict=True)
    """Generated probe-training items."""
    generator_seed: Seed = 0
    """Seed of the generated set (a held-out NAME@SEED draws from its own)."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N items of each split (probe training, fit, every held-out split), read
    or generated."""
    allow_download: bool = Field(default=False, json_schema_extra=option_hint(skip=True))
    """Let ``anli:`` sources download from the Hugging Face Hub."""

    def splits(self) -> RecoverSplits:
        """The splits these sources name, read or generated (:func:`recover_splits`)."""
        return recover_splits(
            items=self.items, fit=self.fit, evals=self.evals, probe_train=self.probe_train,
            generate=self.generate, n=self.n, train_n=self.train_n, seed=self.generator_seed,
            allow_download=self.allow_download, limit=self.limit,
        )  # fmt: skip


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
        held_out = _held_out(names, seed)
        return RecoverSplits(
            train=_first(draw("train", train_n, seed), limit),
            fit=draw("fit", n, seed)[:limit],
            evals={name: draw(split, n, at)[:limit] for name, (split, at) in held_out.items()},
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


HELD_OUT = tuple(s for s in CONTROLLED_SPLITS if s not in ("train", "fit"))
"""The generated held-out splits an ``eval`` may name."""


def _held_out(names: Sequence[str], seed: int) -> dict[str, tuple[str, int]]:
    """The named held-out splits as (split, generator seed), keyed by canonical name.

    ``NAME@SEED`` draws NAME at SEED (``lexical@052`` is ``lexical@52``), NAME at ``seed``;
    two names of one draw are refused, so no draw is averaged as two seeds.
    """
    drawn: dict[str, tuple[str, int]] = {}
    for name in names:
        split, at, digits = name.partition("@")
        if split not in HELD_OUT:
            raise InputError(
                f"{_shown(name)} names no generated held-out split; known: {', '.join(HELD_OUT)}, "
                "each also as NAME@SEED (drawn from another generator seed)",
                field="eval",
            )
        key = (split, _seed_of(name, digits) if at else seed)
        earlier = next((n for n, k in drawn.items() if k == key), None)
        if earlier is not None:
            raise InputError(
                f"{_shown(name)} draws the same items as {earlier!r} (split {split}, seed "
                f"{key[1]})",
                field="eval",
            )
        drawn[f"{split}@{key[1]}" if at else split] = key
    return drawn


def _seed_of(name: str, digits: str) -> int:
    """The SEED of ``NAME@SEED``: ASCII digits of an integer in [0, 2^63), as ``--seed``."""
    ascii_digits = digits.isascii() and digits.isdigit()
    if ascii_digits and len(digits.lstrip("0")) <= 19 and int(digits) < 1 << 63:
        return int(digits)
    raise InputError(
        f"{_shown(name)}: SEED of NAME@SEED must be an integer in [0, 2^63) in ASCII digits",
        field="eval",
    )


def _shown(name: str) -> str:
    """A split name as an error quotes it, a long one cut to its first 40 characters."""
    return repr(name) if len(name) <= 40 else f"{name[:40]!r}... ({len(name):,} characters)"


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
