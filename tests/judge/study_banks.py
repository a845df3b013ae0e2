"""Synthetic source banks and study inventories at the paper's sizes, for the study tests."""

from __future__ import annotations

from functools import cache

from readout_audit.judge import PAPER_SEED, Inventory, parse_configuration
from readout_audit.judge.inventory import (
    Source,
    SourceBank,
    build_decomposition_inventory,
    build_repeat_inventory,
    normalise_question,
)


def bank(dataset: str, n: int, start: int = 100) -> SourceBank:
    """``n`` numeric sources of one dataset, each in its own cluster."""
    sources = []
    for i in range(n):
        question = f"How many units does {dataset} record {i} count?"
        sources.append(
            Source(
                id=f"{dataset}:{i}",
                dataset=dataset,
                cluster=f"{dataset}-passage-{i}",
                question=question,
                references=(float(start + i),),
                evidence=f"Record {i} of {dataset} counts {start + i} units.",
                normalised_question=normalise_question(question),
            )
        )
    return SourceBank(dataset=dataset, sources=sources, rows=n)


BANKS = (bank("drop", 130), bank("halueval", 130, start=1900))
JEV = [
    parse_configuration(text, PAPER_SEED + i)
    for i, text in enumerate(
        ("jev-hall=HALL@smollm2-135m", "jev-hallr=HALL_R@smollm2-135m", "jev=FINAL3@smollm2-135m")
    )
]
"""One judge under the decomposition's three contracts."""
REPEAT_JUDGES = [
    parse_configuration("jev=FINAL3@smollm2-135m", PAPER_SEED),
    parse_configuration("liquid=FINAL3@smollm2-135m", PAPER_SEED + 1),
]


@cache
def decomposition() -> Inventory:
    """The paper-size decomposition: 240 sources × 14 cells × 3 contracts."""
    return build_decomposition_inventory(BANKS, JEV, seed=PAPER_SEED, per_dataset=120)


@cache
def repeat_panel() -> Inventory:
    """The paper-size repeat panel on it: 56 DROP and 24 HaluEval sources, two judges."""
    return build_repeat_inventory(decomposition(), REPEAT_JUDGES)
