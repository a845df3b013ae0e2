"""The reference-switch inventory (seed 004, Section 6): one candidate graded in two worlds.

Synthetic items pair an earlier value X with a final value Y (positive three-digit numbers,
half near, half far, X below Y as often as above it). Each candidate is ``X``, a bridge (blank,
colon, R, R followed by a colon) and ``Final answer: Y.``; in world ``x`` the trusted reference
assigns X (the candidate is incorrect), in world ``y`` it assigns Y (correct). The candidate's
bytes are the same in both worlds: only the reference list changes. Every cue cell runs in two
passes (identical bodies, distinct ids); four clean controls (a bare final X or Y under each
reference) run once. 24 items give 480 requests per configuration.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.judge import protocol as design
from readout_audit.judge.inventory._build import ChosenSources, Inventory, assemble_inventory
from readout_audit.judge.inventory._candidates import bridges, cue_candidate, random_letters
from readout_audit.judge.inventory._inventory import Configuration, interleave_key, plan_request
from readout_audit.judge.inventory._select import SelectedSource
from readout_audit.judge.inventory._sources import Source, normalise_question
from readout_audit.judge.protocol import STUDY_PRESENTATION, Distance, PlannedRequest, Presentation

SWITCH_ITEMS = 24
MAX_SWITCH_ITEMS = 10_000
"""More items than this is a typo, not a study: 200,000 requests per configuration."""
GAPS: dict[Distance, tuple[int, int]] = {"near": (1, 9), "far": (100, 400)}
"""|X − Y| of a near and of a far pair."""
QUESTION = (
    "For synthetic item {code}, what numeric value is assigned by the trusted reference? "
    "The supplied reference defines the assignment."
)


def switch_pairs(seed: int, n: int = SWITCH_ITEMS) -> list[tuple[int, int, Distance]]:
    """``n`` pairs (X, Y, distance): balanced near/far, and within each X < Y half the time."""
    if n < 4 or n % 4 or n > MAX_SWITCH_ITEMS:
        raise InputError(
            f"the study needs a multiple of 4 items, at most {MAX_SWITCH_ITEMS:,}, got {n}",
            field="items",
        )
    rng = random.Random(seed)
    pairs: list[tuple[int, int, Distance]] = []
    for i in range(n):
        distance: Distance = "near" if i % 2 == 0 else "far"
        gap = rng.randint(*GAPS[distance])
        low = rng.randint(100, 999 - gap)
        x, y = (low, low + gap) if (i // 2) % 2 == 0 else (low + gap, low)
        pairs.append((x, y, distance))
    return pairs


def item_code(seed: int, index: int) -> str:
    """A synthetic item's name: ``K`` and ten hex digits of SHA-256 of ``seed:index``."""
    return "K" + hashlib.sha256(f"{seed}:{index}".encode()).hexdigest()[:10]


def _candidate(cell: str, x: int, y: int, letters: str) -> tuple[str, str]:
    """A cell's candidate and, given its world, its target label."""
    name, world, _ = design.parse_cell(cell)
    if name.startswith("final_"):
        value = x if name == "final_x" else y
        right = name == f"final_{world}"
        return f"Final answer: {value}.", "correct" if right else "incorrect"
    candidate = cue_candidate(str(x), bridges(letters)[name], str(y))
    return candidate, "correct" if world == "y" else "incorrect"


def _check_final3(configurations: Sequence[Configuration]) -> None:
    """The reference switch grades every configuration with FINAL3."""
    for configuration in configurations:
        if configuration.contract != "FINAL3":
            raise InputError(
                f"{configuration.name}: the reference switch grades with FINAL3, not "
                f"{configuration.contract}",
                field="configuration",
            )


def _worlds(seed: int, index: int, x: int, y: int, distance: Distance) -> dict[str, SelectedSource]:
    """One synthetic item as a source in each world: the reference assigns X, or Y."""
    source_id = f"refswitch:{seed}:{index}"
    question = QUESTION.format(code=item_code(seed, index))
    return {
        world: SelectedSource(
            source=Source(
                id=source_id,
                dataset="refswitch",
                cluster=source_id,
                question=question,
                references=(float(value),),
                evidence="",
                normalised_question=normalise_question(question),
            ),
            phase="confirmation",
            distance=distance,
            wrong=float(y if world == "x" else x),
            letters=random_letters(seed, source_id),
        )
        for world, value in (("x", x), ("y", y))
    }


def _item_requests(
    worlds: dict[str, SelectedSource],
    x: int,
    y: int,
    configurations: Sequence[Configuration],
    presentation: Presentation,
) -> list[PlannedRequest]:
    """Every configuration's requests of one item: each cell in its world."""
    letters = worlds["x"].letters
    requests = []
    for configuration in configurations:
        for cell, world, _ in design.switch_cells():
            candidate, target = _candidate(cell, x, y, letters)
            requests.append(
                plan_request(
                    "confirmation",
                    configuration,
                    worlds[world],
                    cell,
                    presentation,
                    candidate,
                    target,
                )
            )
    return requests


def _switch_counts(items: int, requests: Sequence[PlannedRequest]) -> dict[str, dict[str, int]]:
    """Sources and requests per phase, calls per source, requests per configuration."""
    return {
        "sources": {"preflight": 0, "confirmation": items},
        "requests": {"preflight": 0, "confirmation": len(requests), "total": len(requests)},
        "per_source": {"preflight": 0, "confirmation": len(design.switch_cells())},
        "configurations": dict(sorted(Counter(r.configuration for r in requests).items())),
    }


def _switch_study(
    items: int, configurations: Sequence[Configuration], presentation: Presentation
) -> dict[str, Any]:
    """The study's identity: its design, its family and its one presentation."""
    return {
        "name": design.SWITCH_STUDY,
        "items": items,
        "bridges": list(design.SWITCH_BRIDGES),
        "worlds": list(design.WORLDS),
        "passes": 2,
        "comparisons": {name: list(pair) for name, pair in design.COMPARISONS.items()},
        "family": [f"{c.name} {name}" for c in configurations for name in design.COMPARISONS],
        "presentation": presentation,
    }


def build_switch_inventory(
    configurations: Sequence[Configuration],
    *,
    seed: int,
    items: int = SWITCH_ITEMS,
    presentation: Presentation = STUDY_PRESENTATION,
) -> Inventory:
    """The study's frozen inventory: every configuration × item × cell, interleaved.

    Every request is in the study's one ``presentation``.
    """
    _check_final3(configurations)
    selected: list[SelectedSource] = []
    requests: list[PlannedRequest] = []
    for index, (x, y, distance) in enumerate(switch_pairs(seed, items)):
        worlds = _worlds(seed, index, x, y, distance)
        selected.append(worlds["x"])
        requests += _item_requests(worlds, x, y, configurations, presentation)
    requests.sort(key=lambda r: interleave_key(seed, r.request_id))
    chosen_sources = ChosenSources(
        selected=selected,
        banks=[],
        priors=[],
        exclusions={},
        per_dataset=items,
        preflight_per_dataset=0,
    )
    return assemble_inventory(
        requests,
        chosen_sources,
        selected,
        configurations,
        seed=seed,
        counts=_switch_counts(items, requests),
        study=_switch_study(items, configurations, presentation),
    )
