"""Which sources an inventory uses: seeded, one per cluster, fresh against earlier inventories.

Each dataset's eligible sources (none sharing an id, a cluster or a normalised question with an
earlier inventory) are walked in the order of SHA-256 of compact JSON ``[seed, "source", id]``.
A source is admitted unless its cluster or normalised question is already admitted or its wrong
value Y matches an accepted reference; preflight sources come first, then confirmation ones,
and within each phase and dataset the mutations alternate near, far, near, ...
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory._candidates import (
    canonical_number,
    mutated,
    prefixed_values,
    random_letters,
)
from readout_audit.judge.inventory._sources import Source, SourceBank, normalise_question
from readout_audit.judge.protocol import Distance, Phase, PlannedRequest, compact_json

EXCLUSION_REASONS = (
    "prior_id",
    "prior_cluster",
    "prior_question",
    "cluster_repeat",
    "question_repeat",
    "mutation_matches_reference",
)
"""Why a loaded source is not used: shared with an earlier inventory (counted over the whole
bank), or, among the sources walked, a second question of an admitted cluster, a repeated
normalised question, or a wrong value equal to an accepted reference."""


@dataclass
class PriorSources:
    """What earlier inventories used: source ids, (dataset, cluster) pairs, normalised questions."""

    ids: set[str] = field(default_factory=set)
    clusters: set[tuple[str, str]] = field(default_factory=set)
    questions: set[str] = field(default_factory=set)

    def add(self, requests: Iterable[PlannedRequest]) -> None:
        """Record every source of an earlier inventory's requests."""
        for request in requests:
            self.ids.add(request.source_id)
            self.clusters.add((request.dataset, request.cluster))
            self.questions.add(normalise_question(str(request.request["state"]["question"])))

    def reason(self, source: Source) -> str | None:
        """Why an earlier inventory excludes ``source`` (its first matching reason), or None."""
        if source.id in self.ids:
            return "prior_id"
        if (source.dataset, source.cluster) in self.clusters:
            return "prior_cluster"
        if source.normalised_question in self.questions:
            return "prior_question"
        return None


class SelectedSource(BaseModel):
    """A source admitted to one phase, with its mutation and its random string."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: Source
    phase: Phase
    distance: Distance
    wrong: float
    """The wrong final value Y."""
    letters: str
    """The source's title-case six-letter string R."""
    earlier_wrong: float | None = None
    """The constructed wrong earlier value Z of a study whose candidates vary the prefix."""

    @property
    def x(self) -> str:
        """The correct earlier value X as candidates show it (the first accepted reference)."""
        return canonical_number(self.source.references[0])

    @property
    def y(self) -> str:
        """The wrong final value Y as candidates show it."""
        return canonical_number(self.wrong)

    @property
    def z(self) -> str | None:
        """The wrong earlier value Z as candidates show it (None outside prefix studies)."""
        return None if self.earlier_wrong is None else canonical_number(self.earlier_wrong)


def source_order_key(seed: int, source_id: str) -> str:
    """The sampling order of sources: SHA-256 of compact JSON ``[seed, "source", source_id]``."""
    return hashlib.sha256(compact_json([seed, "source", source_id]).encode()).hexdigest()


@dataclass
class _Walk:
    """The sources admitted so far across datasets, and the reasons others were passed over."""

    seed: int
    prefixed: bool = False
    """Construct Z and Y with :func:`prefixed_values` instead of Y alone."""
    clusters: set[tuple[str, str]] = field(default_factory=set)
    questions: set[str] = field(default_factory=set)

    def admit(
        self, bank: SourceBank, wanted: dict[Phase, int], excluded: Counter[str]
    ) -> list[SelectedSource]:
        """A bank's preflight then confirmation sources, counting what it passes over."""
        chosen: list[SelectedSource] = []
        ordered = sorted(bank.sources, key=lambda s: source_order_key(self.seed, s.id))
        needed = wanted["preflight"] + wanted["confirmation"]
        admitted: Counter[Phase] = Counter()
        for source in ordered:
            if len(chosen) == needed:
                break
            if (source.dataset, source.cluster) in self.clusters:
                excluded["cluster_repeat"] += 1
                continue
            if source.normalised_question in self.questions:
                excluded["question_repeat"] += 1
                continue
            phase: Phase = "preflight" if len(chosen) < wanted["preflight"] else "confirmation"
            distance: Distance = "near" if admitted[phase] % 2 == 0 else "far"
            x = source.references[0]
            z, wrong = (
                prefixed_values(x, distance) if self.prefixed else (None, mutated(x, distance))
            )
            if wrong in source.references or z in source.references:
                excluded["mutation_matches_reference"] += 1
                continue
            self.clusters.add((source.dataset, source.cluster))
            self.questions.add(source.normalised_question)
            letters = random_letters(self.seed, source.id)
            admitted[phase] += 1
            chosen.append(
                SelectedSource(
                    source=source,
                    phase=phase,
                    distance=distance,
                    wrong=wrong,
                    letters=letters,
                    earlier_wrong=z,
                )
            )
        if len(chosen) < needed:
            raise InputError(
                f"only {len(chosen)} sources can be admitted; {needed} are needed "
                f"({wanted['preflight']} preflight or development, "
                f"{wanted['confirmation']} confirmation)",
                source=bank.dataset,
            )
        return chosen


def select_sources(
    banks: Sequence[SourceBank],
    seed: int,
    per_dataset: int,
    preflight_per_dataset: int,
    prior: PriorSources | None = None,
    *,
    prefixed: bool = False,
) -> tuple[list[SelectedSource], dict[str, dict[str, int]]]:
    """Each dataset's preflight and confirmation sources, and per dataset the exclusion counts.

    ``prefixed``: each source also gets a wrong earlier value Z (:func:`prefixed_values`).
    """
    datasets = [bank.dataset for bank in banks]
    if len(set(datasets)) != len(datasets):
        raise InputError(f"each dataset once, got {datasets}", field="dataset")
    prior = prior or PriorSources()
    walk = _Walk(seed, prefixed)
    wanted: dict[Phase, int] = {"preflight": preflight_per_dataset, "confirmation": per_dataset}
    selected: list[SelectedSource] = []
    exclusions: dict[str, dict[str, int]] = {}
    for bank in banks:
        excluded: Counter[str] = Counter()
        fresh = []
        for source in bank.sources:
            reason = prior.reason(source)
            if reason is None:
                fresh.append(source)
            else:
                excluded[reason] += 1
        eligible = SourceBank(bank.dataset, fresh, bank.rows, bank.skipped)
        selected += walk.admit(eligible, wanted, excluded)
        exclusions[bank.dataset] = {reason: excluded[reason] for reason in EXCLUSION_REASONS}
    return selected, exclusions
