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

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory._build import ChosenSources, Inventory, assemble_inventory
from readout_audit.judge.inventory._candidates import bridges, cue_candidate, random_letters
from readout_audit.judge.inventory._inventory import Configuration, interleave_key, plan_request
from readout_audit.judge.inventory._select import SelectedSource
from readout_audit.judge.inventory._sources import Source, normalise_question
from readout_audit.judge.protocol import _switch as design
from readout_audit.judge.protocol._cells import Distance, Presentation
from readout_audit.judge.protocol._planned import PlannedRequest
from readout_audit.judge.protocol._studies import STUDY_PRESENTATION

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
    for configuration in configurations:
        if configuration.contract != "FINAL3":
            raise InputError(
                f"{configuration.name}: the reference switch grades with FINAL3, not "
                f"{configuration.contract}",
                field="configuration",
            )
    selected: list[SelectedSource] = []
    requests: list[PlannedRequest] = []
    for index, (x, y, distance) in enumerate(switch_pairs(seed, items)):
        source_id = f"refswitch:{seed}:{index}"
        question = QUESTION.format(code=item_code(seed, index))
        worlds = {
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
        selected.append(worlds["x"])
        for configuration in configurations:
            for cell, world, _ in design.switch_cells():
                candidate, target = _candidate(cell, x, y, worlds["x"].letters)
                chosen = worlds[world]
                requests.append(
                    plan_request(
                        "confirmation", configuration, chosen, cell, presentation, candidate, target
                    )
                )
    requests.sort(key=lambda r: interleave_key(seed, r.request_id))
    chosen_sources = ChosenSources(
        selected=selected,
        banks=[],
        priors=[],
        exclusions={},
        per_dataset=items,
        preflight_per_dataset=0,
    )
    per_source = len(design.switch_cells())
    counts = {
        "sources": {"preflight": 0, "confirmation": items},
        "requests": {"preflight": 0, "confirmation": len(requests), "total": len(requests)},
        "per_source": {"preflight": 0, "confirmation": per_source},
        "configurations": dict(sorted(Counter(r.configuration for r in requests).items())),
    }
    study = {
        "name": design.SWITCH_STUDY,
        "items": items,
        "bridges": list(design.SWITCH_BRIDGES),
        "worlds": list(design.WORLDS),
        "passes": 2,
        "comparisons": {name: list(pair) for name, pair in design.COMPARISONS.items()},
        "family": [f"{c.name} {name}" for c in configurations for name in design.COMPARISONS],
        "presentation": presentation,
    }
    return assemble_inventory(
        requests,
        chosen_sources,
        selected,
        configurations,
        seed=seed,
        counts=counts,
        study=study,
    )
