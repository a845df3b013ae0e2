"""Build any study's inventory by name: what ``readout judge build --study NAME`` calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory._build import Inventory, build_inventory
from readout_audit.judge.inventory._inventory import Configuration
from readout_audit.judge.inventory._sources import SourceBank
from readout_audit.judge.inventory._studies import (
    DECOMPOSITION_PER_DATASET,
    PILOT_PER_DATASET,
    Priors,
    build_decomposition_inventory,
    build_pilot_inventory,
    build_repeat_inventory,
    decomposition_presentation,
    judge_groups,
    require_contracts,
)
from readout_audit.judge.inventory._switch import SWITCH_ITEMS, build_switch_inventory
from readout_audit.judge.protocol._cells import Presentation
from readout_audit.judge.protocol._studies import (
    CONFIRMATION_STUDY,
    DECOMPOSITION_STUDY,
    PILOT_STUDY,
    REPEAT_STUDY,
    STUDY_PRESENTATION,
)
from readout_audit.judge.protocol._switch import SWITCH_STUDY

STUDIES = (CONFIRMATION_STUDY, DECOMPOSITION_STUDY, REPEAT_STUDY, PILOT_STUDY, SWITCH_STUDY)
FRESH_STUDIES = (DECOMPOSITION_STUDY, PILOT_STUDY)
"""The studies that draw their own fresh sources: refused beside an inventory they overlap."""
SOURCED_STUDIES = (CONFIRMATION_STUDY, DECOMPOSITION_STUDY, PILOT_STUDY)
"""The studies that draw sources from datasets; the repeat panel reuses a decomposition's and
the reference switch generates its items."""
CONFIRMATION_PER_DATASET = 100


def check_configurations(study: str, configurations: Sequence[Configuration]) -> None:
    """Refuse configurations the study cannot grade, before any source is read."""
    if study == DECOMPOSITION_STUDY:
        judge_groups(configurations)
    elif study != CONFIRMATION_STUDY:
        require_contracts(configurations, ("FINAL3",))


def _check_presentation(
    study: str, presentation: Presentation | None, reused: Inventory | None
) -> None:
    """Refuse a presentation for the confirmation study, or one its decomposition lacks."""
    if presentation is None:
        return
    if study == CONFIRMATION_STUDY:
        raise InputError(
            "the confirmation study runs both presentations; only a robustness study takes one",
            field="presentation",
        )
    if reused is not None and decomposition_presentation(reused) != presentation:
        raise InputError(
            f"the repeat panel keeps its decomposition's {decomposition_presentation(reused)} "
            f"presentation, not {presentation}: its requests are the decomposition's",
            field="presentation",
        )


def build_study_inventory(
    study: str,
    configurations: Sequence[Configuration],
    *,
    seed: int,
    banks: Sequence[SourceBank] = (),
    per_dataset: int | None = None,
    preflight_per_dataset: int = 10,
    priors: Priors = (),
    items: int = SWITCH_ITEMS,
    reused: Inventory | None = None,
    panel: Mapping[str, int] | None = None,
    presentation: Presentation | None = None,
) -> Inventory:
    """The named study's frozen inventory; ``per_dataset`` defaults to the paper's size.

    ``presentation``: a robustness study's one presentation (None: ``STUDY_PRESENTATION``, or
    for the repeat panel its decomposition's); the confirmation study runs both.
    """
    if study not in STUDIES:
        raise InputError(f"{study!r} is not one of {', '.join(STUDIES)}", field="study")
    if (study in SOURCED_STUDIES) != bool(banks):
        wanted = "needs" if study in SOURCED_STUDIES else "reads no"
        raise InputError(f"the {study} study {wanted} dataset sources", field="dataset")
    if (study == REPEAT_STUDY) != (reused is not None):
        raise InputError(
            "the repeat panel, and it alone, reuses a decomposition inventory",
            field="from-inventory",
        )
    if panel is not None and study != REPEAT_STUDY:
        raise InputError("only the repeat panel takes a panel", field="panel")
    if per_dataset is not None and study not in SOURCED_STUDIES:
        raise InputError(f"the {study} study draws no sources per dataset", field="per-dataset")
    check_configurations(study, configurations)
    _check_presentation(study, presentation, reused)
    chosen = presentation or STUDY_PRESENTATION
    if study == SWITCH_STUDY:
        return build_switch_inventory(configurations, seed=seed, items=items, presentation=chosen)
    if reused is not None:  # the repeat panel, as checked above
        return build_repeat_inventory(reused, configurations, panel=panel)
    if study == DECOMPOSITION_STUDY:
        return build_decomposition_inventory(
            banks,
            configurations,
            seed=seed,
            per_dataset=per_dataset or DECOMPOSITION_PER_DATASET,
            priors=priors,
            presentation=chosen,
        )
    if study == PILOT_STUDY:
        return build_pilot_inventory(
            banks,
            configurations,
            seed=seed,
            per_dataset=per_dataset or PILOT_PER_DATASET,
            priors=priors,
            presentation=chosen,
        )
    return build_inventory(
        banks,
        configurations,
        seed=seed,
        per_dataset=per_dataset or CONFIRMATION_PER_DATASET,
        preflight_per_dataset=preflight_per_dataset,
        priors=priors,
    )
