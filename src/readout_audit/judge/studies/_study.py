"""A judge study as one registered object: its inventory, its analysis and its report section."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.judge.analysis import JudgeAnalysisSettings, StudyResult
from readout_audit.judge.inventory import Configuration, Inventory, Priors, SourceBank
from readout_audit.judge.protocol import JudgeRecord, Presentation
from readout_audit.report import Section


@dataclass(frozen=True)
class StudyInputs:
    """What ``readout judge build`` hands a study: each study reads the part it needs."""

    configurations: Sequence[Configuration]
    seed: int
    banks: Sequence[SourceBank] = ()
    per_dataset: int | None = None
    preflight_per_dataset: int = 10
    priors: Priors = ()
    items: int = 0
    reused: Inventory | None = None
    panel: Mapping[str, int] | None = None
    presentation: Presentation | None = None


Analyse = Callable[[Sequence[JudgeRecord], JudgeAnalysisSettings, list[str]], StudyResult]
"""A study's analysis: its records, the run's settings and the family's configurations."""


@dataclass(frozen=True)
class Study:
    """One study of seed 004: how its inventory is built, checked, analysed and reported.

    ``sourced``: draws fresh sources from datasets, refused beside any inventory it overlaps
    (one built from it aside); ``reuses``: rebuilt from a decomposition inventory (the repeat
    panel); ``reads``: the optional build inputs it takes (``items``, ``preflight_per_dataset``,
    ``presentation``). ``analyse`` and ``section`` are None for the confirmation study, whose
    tables are the summary's own.
    """

    name: str
    build: Callable[[StudyInputs], Inventory]
    check_configurations: Callable[[Sequence[Configuration]], Any]
    sourced: bool = False
    reuses: bool = False
    reads: frozenset[str] = frozenset({"presentation"})
    analyse: (
        Callable[[Sequence[JudgeRecord], JudgeAnalysisSettings, list[str]], StudyResult] | None
    ) = None
    section: Callable[[Any], Section] | None = None


STUDIES: dict[str, Study] = {}
"""Every registered study by name: ``readout judge build --study NAME`` chooses among them."""


def register_study(study: Study) -> Study:
    """Register a study under its name; a second study of the same name is refused."""
    if study.name in STUDIES:
        raise ValueError(f"a judge study named {study.name!r} is already registered")
    STUDIES[study.name] = study
    return study


def get_study(name: str) -> Study:
    """The registered study of that name, or an error naming the registered ones."""
    found = STUDIES.get(name)
    if found is None:
        raise InputError(f"{name!r} is not one of {', '.join(STUDIES)}", field="study")
    return found
