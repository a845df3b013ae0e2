"""Build any registered study's inventory by name: what ``readout judge build --study`` calls."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory import (
    SWITCH_ITEMS,
    Configuration,
    Inventory,
    Priors,
    SourceBank,
    decomposition_presentation,
)
from readout_audit.judge.protocol import Presentation
from readout_audit.judge.studies._study import Study, StudyInputs, get_study


def _check_presentation(
    study: Study, presentation: Presentation | None, reused: Inventory | None
) -> None:
    """Refuse a presentation a study does not take, or one its decomposition lacks."""
    if presentation is None:
        return
    if "presentation" not in study.reads:
        raise InputError(
            f"the {study.name} study runs both presentations; only a robustness study takes one",
            field="presentation",
        )
    if reused is not None and decomposition_presentation(reused) != presentation:
        raise InputError(
            f"the repeat panel keeps its decomposition's {decomposition_presentation(reused)} "
            f"presentation, not {presentation}: its requests are the decomposition's",
            field="presentation",
        )


def _check_inputs(study: Study, inputs: StudyInputs) -> None:
    """Refuse inputs the study does not read, before any source is read."""
    if study.sourced != bool(inputs.banks):
        wanted = "needs" if study.sourced else "reads no"
        raise InputError(f"the {study.name} study {wanted} dataset sources", field="dataset")
    if study.reuses != (inputs.reused is not None):
        raise InputError(
            "the repeat panel, and it alone, reuses a decomposition inventory",
            field="from-inventory",
        )
    if inputs.panel is not None and not study.reuses:
        raise InputError("only the repeat panel takes a panel", field="panel")
    if inputs.per_dataset is not None and not study.sourced:
        raise InputError(
            f"the {study.name} study draws no sources per dataset", field="per-dataset"
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
    found = get_study(study)
    inputs = StudyInputs(
        configurations,
        seed,
        banks=banks,
        per_dataset=per_dataset,
        preflight_per_dataset=preflight_per_dataset,
        priors=priors,
        items=items,
        reused=reused,
        panel=panel,
        presentation=presentation,
    )
    _check_inputs(found, inputs)
    found.check_configurations(configurations)
    _check_presentation(found, presentation, reused)
    return found.build(inputs)
