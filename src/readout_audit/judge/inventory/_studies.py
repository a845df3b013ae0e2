"""The natural-source studies' inventories (seed 004): decomposition, repeat panel, pilot.

Each source gets a wrong final value Y and a wrong earlier value Z beside its reference X
(:func:`prefixed_values`); a cue candidate is an earlier line (X or Z), a bridge and
``Final answer: Y.``, so its required verdict is always the negative one.

- decomposition: six bridges × two prefixes and the bare X and bare Y controls, graded by each
  judge under HALL, HALL_R and FINAL3 (14 calls per source and configuration; 240 sources).
- repeat panel: a subset of a decomposition's sources (the first per dataset in its sampling
  order, 56 DROP and 24 HaluEval by default) under FINAL3: R and R: with both prefixes in three
  passes, blank with both prefixes once, the four clean controls, and the first source's four
  controls again at the opening and the closing of the stream (1,448 calls for 80 sources).
  Its cue requests are byte-identical to the decomposition's FINAL3 ones.
- formatting pilot: blank, colon, R and R: × two prefixes and the four clean controls under
  FINAL3 (12 calls per source; 16 fresh sources).

Every request of a study is in one presentation (``STUDY_PRESENTATION`` unless chosen), kept
in the settings' study entry; the repeat panel keeps its decomposition's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.judge import protocol as design
from readout_audit.judge.inventory._build import (
    ChosenSources,
    Inventory,
    PriorInventory,
    assemble_inventory,
    choose_sources,
    sha256_json,
)
from readout_audit.judge.inventory._candidates import (
    bridges,
    cell_candidate,
    cue_candidate,
    target_label,
)
from readout_audit.judge.inventory._fresh import study_draw_seed
from readout_audit.judge.inventory._inventory import Configuration, plan_request, stream_key
from readout_audit.judge.inventory._select import SelectedSource
from readout_audit.judge.inventory._sources import Source, SourceBank, normalise_question
from readout_audit.judge.protocol import PRESENTATIONS, PlannedRequest, Presentation

DECOMPOSITION_PER_DATASET = 120
PILOT_PER_DATASET = 8
REPEAT_PANEL = {"drop": 56, "halueval": 24}
"""The repeat panel's sources per dataset: 80, weighted .7/.3."""
Priors = Sequence[tuple[PriorInventory, Sequence[PlannedRequest]]]


def study_candidate(cell: str, chosen: SelectedSource) -> tuple[str, str | None]:
    """A study cell's candidate, and the control its target follows (None: a cue cell)."""
    parsed = design.parse_study_cell(cell)
    if parsed is not None:
        prefix, bridge, _ = parsed
        earlier = chosen.x if prefix == "x" else chosen.z
        if earlier is None:
            raise ValueError(f"{chosen.source.id} has no wrong earlier value Z")
        return cue_candidate(earlier, bridges(chosen.letters)[bridge], chosen.y), None
    control = cell.rpartition(".")[2]
    return cell_candidate(control, chosen.x, chosen.y, chosen.letters), control


def _plan(
    selected: Sequence[SelectedSource],
    configurations: Sequence[Configuration],
    cells: Mapping[str, Sequence[str]],
    seed: int,
    presentation: Presentation,
) -> list[PlannedRequest]:
    """Every configuration × source × cell (``cells`` per source id), in stream order.

    Every request is in the study's one ``presentation``.
    """
    requests = []
    for configuration in configurations:
        for chosen in selected:
            for name in cells[chosen.source.id]:
                candidate, control = study_candidate(name, chosen)
                target = None if control is None else target_label(configuration.grading, control)
                requests.append(
                    plan_request(
                        "confirmation", configuration, chosen, name, presentation, candidate, target
                    )
                )
    return sorted(requests, key=lambda r: stream_key(seed, r))


def _counts(requests: Sequence[PlannedRequest], sources: int, per_source: int) -> dict[str, Any]:
    return {
        "sources": {"preflight": 0, "confirmation": sources},
        "requests": {"preflight": 0, "confirmation": len(requests), "total": len(requests)},
        "per_source": {"preflight": 0, "confirmation": per_source},
        "configurations": dict(sorted(Counter(r.configuration for r in requests).items())),
    }


def require_contracts(configurations: Sequence[Configuration], allowed: Sequence[str]) -> None:
    """Distinct names, each grading under one of the ``allowed`` contracts."""
    names = [c.name for c in configurations]
    if not configurations or len(set(names)) != len(names):
        raise InputError(
            f"expected distinct configuration names, got {names}", field="configuration"
        )
    for configuration in configurations:
        if configuration.contract not in allowed:
            raise InputError(
                f"{configuration.name}: this study grades with {', '.join(allowed)}, not "
                f"{configuration.contract}",
                field="configuration",
            )


def judge_groups(configurations: Sequence[Configuration]) -> dict[str, dict[str, str]]:
    """Per judge (its wire model name), the configuration grading each decomposition contract.

    Every judge must grade under HALL, HALL_R and FINAL3, once each: the reference-field test
    pairs a judge's HALL and HALL_R readings of the same source.
    """
    require_contracts(configurations, design.DECOMPOSITION_CONTRACTS)
    groups: dict[str, dict[str, str]] = {}
    judges: dict[str, str] = {}
    for configuration in configurations:
        if judges.setdefault(configuration.model, configuration.judge) != configuration.judge:
            raise InputError(
                f"{configuration.name}: two judges send the model name {configuration.model!r}",
                field="configuration",
            )
        group = groups.setdefault(configuration.model, {})
        if configuration.contract in group:
            raise InputError(
                f"{configuration.name}: {configuration.model} already grades under "
                f"{configuration.contract} ({group[configuration.contract]})",
                field="configuration",
            )
        group[configuration.contract] = configuration.name
    for model, group in groups.items():
        missing = [c for c in design.DECOMPOSITION_CONTRACTS if c not in group]
        if missing:
            raise InputError(
                f"judge {model} needs a configuration for each of HALL, HALL_R and FINAL3; "
                f"missing {', '.join(missing)}",
                field="configuration",
            )
    return groups


def _family(groups: Iterable[str], contrasts: Sequence[design.Contrast]) -> list[str]:
    """A family's slots: every judge (or configuration) × contrast, by name."""
    return [f"{group} {contrast.name}" for group in groups for contrast in contrasts]


def _weights(study: str, datasets: Sequence[str]) -> dict[str, float]:
    """Equal weights (decomposition, pilot), or planned shares (repeat panel)."""
    if design.STUDY_WEIGHTS[study] is not None:
        present = sorted(set(datasets))
        return {d: 1 / len(present) for d in present}
    counts = Counter(datasets)
    return {d: counts[d] / len(datasets) for d in sorted(counts)}


def _assemble(
    study: str,
    requests: list[PlannedRequest],
    chosen: ChosenSources,
    configurations: Sequence[Configuration],
    seed: int,
    per_source: int,
    design_entry: dict[str, Any],
) -> Inventory:
    weights = _weights(study, [s.source.dataset for s in chosen.selected])
    entry = {"name": study, **design_entry, "dataset_weights": weights}
    return assemble_inventory(
        requests,
        chosen,
        chosen.selected,
        configurations,
        seed=seed,
        counts=_counts(requests, len(chosen.selected), per_source),
        study=entry,
    )


def _sourced(
    study: str,
    banks: Sequence[SourceBank],
    configurations: Sequence[Configuration],
    seed: int,
    per_dataset: int,
    priors: Priors,
    cells: Sequence[str],
    design_entry: dict[str, Any],
    presentation: Presentation,
) -> Inventory:
    """A study on freshly drawn sources (each with its Z): every source in every cell.

    The sources are walked in the study's own order (:func:`study_draw_seed`); the requests
    are interleaved by ``seed``.
    """
    draw = study_draw_seed(seed, study)
    chosen = choose_sources(
        banks,
        seed=draw,
        per_dataset=per_dataset,
        preflight_per_dataset=0,
        priors=priors,
        prefixed=True,
    )
    every = {s.source.id: cells for s in chosen.selected}
    requests = _plan(chosen.selected, configurations, every, seed, presentation)
    entry = {**design_entry, "presentation": presentation, "draw_seed": draw}
    return _assemble(study, requests, chosen, configurations, seed, len(cells), entry)


def build_decomposition_inventory(
    banks: Sequence[SourceBank],
    configurations: Sequence[Configuration],
    *,
    seed: int,
    per_dataset: int = DECOMPOSITION_PER_DATASET,
    priors: Priors = (),
    presentation: Presentation = design.STUDY_PRESENTATION,
) -> Inventory:
    """The decomposition study: 14 cells per source under each judge's three contracts."""
    groups = judge_groups(configurations)
    cells = [
        *(design.cell(p, b) for p in design.PREFIXES for b in design.DECOMPOSITION_BRIDGES),
        *design.DECOMPOSITION_CONTROLS,
    ]
    entry = {
        "bridges": list(design.DECOMPOSITION_BRIDGES),
        "marker": design.MARKER,
        "prefixes": list(design.PREFIXES),
        "judges": groups,
        "primary": _family(groups, design.DECOMPOSITION_PRIMARY),
        "secondary": _family(groups, design.DECOMPOSITION_SECONDARY),
    }
    return _sourced(
        design.DECOMPOSITION_STUDY,
        banks,
        configurations,
        seed,
        per_dataset,
        priors,
        cells,
        entry,
        presentation,
    )


def build_pilot_inventory(
    banks: Sequence[SourceBank],
    configurations: Sequence[Configuration],
    *,
    seed: int,
    per_dataset: int = PILOT_PER_DATASET,
    priors: Priors = (),
    presentation: Presentation = design.STUDY_PRESENTATION,
) -> Inventory:
    """The formatting pilot: eight prefix-by-bridge cells and four clean controls, FINAL3."""
    require_contracts(configurations, ("FINAL3",))
    cells = [
        *(design.cell(p, b) for p in design.PREFIXES for b in design.PILOT_BRIDGES),
        *design.GATED_CONTROLS,
    ]
    names = [c.name for c in configurations]
    entry = {
        "bridges": list(design.PILOT_BRIDGES),
        "prefixes": list(design.PREFIXES),
        "primary": _family(names, design.PILOT_PRIMARY),
        "descriptive": _family(names, (design.PILOT_DESCRIPTIVE,)),
    }
    return _sourced(
        design.PILOT_STUDY,
        banks,
        configurations,
        seed,
        per_dataset,
        priors,
        cells,
        entry,
        presentation,
    )


def _reused_sources(decomposition: Inventory, panel: Mapping[str, int]) -> list[SelectedSource]:
    """The first ``panel[d]`` sources of each dataset of a decomposition, rebuilt and checked.

    A source comes back from its HALL_R request (question, evidence and reference list) and
    must hash to the outcome's entry; its X, Y, Z and letters are the outcome's.
    """
    study = decomposition.settings.study or {}
    if study.get("name") != design.DECOMPOSITION_STUDY:
        found = study.get("name") or "a confirmation"
        raise InputError(
            f"the repeat panel reuses a decomposition inventory, not {found}",
            field="from-inventory",
        )
    states = {
        r.source_id: r.request["state"] for r in decomposition.requests if r.contract == "HALL_R"
    }
    chosen: list[SelectedSource] = []
    for dataset, wanted in panel.items():
        entries = [e for e in decomposition.outcome.sources if e.dataset == dataset][:wanted]
        if len(entries) < wanted:
            raise InputError(
                f"the decomposition has {len(entries)} {dataset} sources; the panel wants {wanted}",
                field="panel",
            )
        for entry in entries:
            state = states[entry.id]
            source = Source(
                id=entry.id,
                dataset=entry.dataset,
                cluster=entry.cluster,
                question=state["question"],
                references=tuple(float(v) for v in state["trusted_reference"]),
                evidence=state["trusted_evidence"],
                normalised_question=normalise_question(state["question"]),
            )
            if sha256_json(source.model_dump(mode="json")) != entry.sha256:
                raise InputError(
                    "does not rebuild from its requests", item_id=entry.id, field="sha256"
                )
            chosen.append(
                SelectedSource(
                    source=source,
                    phase="confirmation",
                    distance=entry.distance,
                    wrong=float(entry.y),
                    letters=entry.letters,
                    earlier_wrong=None if entry.z is None else float(entry.z),
                )
            )
    return chosen


def decomposition_presentation(decomposition: Inventory) -> Presentation:
    """The presentation a decomposition's requests were built in (the repeat panel keeps it)."""
    found = (decomposition.settings.study or {}).get("presentation", "insertion")
    if found not in PRESENTATIONS:
        raise InputError(
            f"expected one of {', '.join(PRESENTATIONS)}, got {found!r}",
            field="study.presentation",
        )
    return found  # type: ignore[no-any-return]


def build_repeat_inventory(
    decomposition: Inventory,
    configurations: Sequence[Configuration],
    *,
    panel: Mapping[str, int] | None = None,
) -> Inventory:
    """The repeat panel on a decomposition's sources, in its interleave seed and presentation.

    A decomposition built before its presentation was recorded was built in insertion order.
    """
    require_contracts(configurations, ("FINAL3",))
    panel = dict(REPEAT_PANEL if panel is None else panel)
    if not panel or any(n < 1 for n in panel.values()):
        raise InputError(f"expected a positive count per dataset, got {panel}", field="panel")
    selected = _reused_sources(decomposition, panel)
    cells = [
        *(
            design.cell(p, b, k)
            for b in design.REPEAT_BRIDGES
            for p in design.PREFIXES
            for k in range(1, design.REPEAT_PASSES + 1)
        ),
        *(design.cell(p, "blank") for p in design.PREFIXES),
        *design.GATED_CONTROLS,
    ]
    fixtures = [
        design.fixture_cell(moment, control)
        for moment in ("open", "close")
        for control in design.GATED_CONTROLS
    ]
    per_source = {s.source.id: cells for s in selected}
    per_source[selected[0].source.id] = [*cells, *fixtures]
    seed = decomposition.settings.seed
    presentation = decomposition_presentation(decomposition)
    requests = _plan(selected, configurations, per_source, seed, presentation)
    outcome = decomposition.outcome
    chosen = ChosenSources(
        selected=selected,
        banks=[],
        priors=[
            PriorInventory(
                name="decomposition",
                sha256=outcome.inventory_sha256,
                sources=len(outcome.sources),
            )
        ],
        exclusions={},
        per_dataset=max(panel.values()),
        preflight_per_dataset=0,
    )
    names = [c.name for c in configurations]
    return _assemble(
        design.REPEAT_STUDY,
        requests,
        chosen,
        configurations,
        seed,
        len(cells),
        {
            "panel": panel,
            "passes": design.REPEAT_PASSES,
            "fixtures": {"source": selected[0].source.id, "cells": fixtures},
            "reused_from": {
                "study": design.DECOMPOSITION_STUDY,
                "inventory_sha256": outcome.inventory_sha256,
            },
            "primary": _family(names, design.REPEAT_PRIMARY),
            "secondary": _family(names, design.REPEAT_SECONDARY),
            "presentation": presentation,
        },
    )
