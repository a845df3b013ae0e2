"""The five studies of seed 004, registered: the confirmation study and four robustness ones."""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit._exceptions import InputError
from readout_audit.judge.analysis import (
    analyse_decomposition,
    analyse_pilot,
    analyse_repeat,
    analyse_switch,
    decomposition_section,
    pilot_section,
    repeat_section,
    switch_section,
)
from readout_audit.judge.inventory import (
    DECOMPOSITION_PER_DATASET,
    PILOT_PER_DATASET,
    Configuration,
    Inventory,
    build_decomposition_inventory,
    build_inventory,
    build_pilot_inventory,
    build_repeat_inventory,
    build_switch_inventory,
    judge_groups,
    require_contracts,
)
from readout_audit.judge.protocol import (
    CONFIRMATION_STUDY,
    DECOMPOSITION_STUDY,
    PILOT_STUDY,
    REPEAT_STUDY,
    STUDY_PRESENTATION,
    SWITCH_STUDY,
)
from readout_audit.judge.studies._study import Study, StudyInputs, register_study

CONFIRMATION_PER_DATASET = 100


def _final3(configurations: Sequence[Configuration]) -> None:
    """Refuse a judge that does not grade under the FINAL3 contract (a robustness study's)."""
    require_contracts(configurations, ("FINAL3",))


def _repeat(inputs: StudyInputs) -> Inventory:
    """The repeat panel: its decomposition's requests again (``reused``, checked given)."""
    if inputs.reused is None:
        raise InputError(
            "the repeat panel reuses a decomposition inventory", field="from-inventory"
        )
    return build_repeat_inventory(inputs.reused, inputs.configurations, panel=inputs.panel)


CONFIRMATION = register_study(
    Study(
        CONFIRMATION_STUDY,
        build=lambda i: build_inventory(
            i.banks,
            i.configurations,
            seed=i.seed,
            per_dataset=i.per_dataset or CONFIRMATION_PER_DATASET,
            preflight_per_dataset=i.preflight_per_dataset,
            priors=i.priors,
        ),
        check_configurations=lambda configurations: None,
        sourced=True,
        reads=frozenset({"preflight_per_dataset"}),
    )
)
DECOMPOSITION = register_study(
    Study(
        DECOMPOSITION_STUDY,
        build=lambda i: build_decomposition_inventory(
            i.banks,
            i.configurations,
            seed=i.seed,
            per_dataset=i.per_dataset or DECOMPOSITION_PER_DATASET,
            priors=i.priors,
            presentation=i.presentation or STUDY_PRESENTATION,
        ),
        check_configurations=judge_groups,
        sourced=True,
        analyse=lambda records, settings, family: analyse_decomposition(records, settings),
        section=decomposition_section,
    )
)
REPEAT = register_study(
    Study(
        REPEAT_STUDY,
        build=_repeat,
        check_configurations=_final3,
        reuses=True,
        analyse=analyse_repeat,
        section=repeat_section,
    )
)
PILOT = register_study(
    Study(
        PILOT_STUDY,
        build=lambda i: build_pilot_inventory(
            i.banks,
            i.configurations,
            seed=i.seed,
            per_dataset=i.per_dataset or PILOT_PER_DATASET,
            priors=i.priors,
            presentation=i.presentation or STUDY_PRESENTATION,
        ),
        check_configurations=_final3,
        sourced=True,
        analyse=analyse_pilot,
        section=pilot_section,
    )
)
SWITCH = register_study(
    Study(
        SWITCH_STUDY,
        build=lambda i: build_switch_inventory(
            i.configurations,
            seed=i.seed,
            items=i.items,
            presentation=i.presentation or STUDY_PRESENTATION,
        ),
        check_configurations=_final3,
        reads=frozenset({"items", "presentation"}),
        analyse=lambda records, settings, family: analyse_switch(
            records, family, seed=settings.seed(family[0], family) if family else 0
        ),
        section=switch_section,
    )
)
