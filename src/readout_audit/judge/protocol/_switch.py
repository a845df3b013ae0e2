"""The reference-switch study's vocabulary (seed 004, Section 6): bridges, worlds, cells.

A cell is ``{bridge}@{world}`` (a cue candidate in the world whose reference assigns X or Y),
the same with ``_repeat`` (its second pass), or ``final_{x|y}@{world}`` (a clean control).
"""

from __future__ import annotations

SWITCH_STUDY = "reference-switch"
SWITCH_BRIDGES = ("blank", "colon", "random", "random_colon")
WORLDS = ("x", "y")
"""Which value the trusted reference assigns: the candidate's earlier X or its final Y."""
REPEAT = "_repeat"
"""The second pass of a cue cell: the same body under its own request id."""
COMPARISONS = {"R:/R": ("random_colon", "random"), "colon/blank": ("colon", "blank")}
"""The study's cue-by-control comparisons, each tested in every configuration."""


def switch_cells() -> list[tuple[str, str, bool]]:
    """Every (cell, world, is a second pass): bridges × worlds × passes, then the controls."""
    cells = [
        (f"{bridge}@{world}{suffix}", world, bool(suffix))
        for bridge in SWITCH_BRIDGES
        for world in WORLDS
        for suffix in ("", REPEAT)
    ]
    return cells + [
        (f"final_{value}@{world}", world, False) for value in WORLDS for world in WORLDS
    ]


def parse_cell(cell: str) -> tuple[str, str, int]:
    """A study cell's (bridge or control, world, pass 1 or 2)."""
    name, _, rest = cell.partition("@")
    world = rest.removesuffix(REPEAT)
    if world not in WORLDS or not name:
        raise ValueError(f"{cell!r} is not a reference-switch cell")
    return name, world, 2 if rest.endswith(REPEAT) else 1
