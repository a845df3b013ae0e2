"""The judge protocol's vocabulary (seed 004): presentations, phases, candidate cells."""

from __future__ import annotations

from typing import Literal

Presentation = Literal["insertion", "sorted"]
PRESENTATIONS: tuple[Presentation, ...] = ("insertion", "sorted")
"""``insertion``: dictionaries in the order they are built; ``sorted``: recursively key-sorted."""

Phase = Literal["preflight", "confirmation", "development"]
PHASES: tuple[Phase, ...] = ("preflight", "confirmation")
"""The protocol's phases; a cue search's stages are ``development`` then ``confirmation``."""

Distance = Literal["near", "far"]
"""The wrong final value's mutation: ``near`` Y = X + 1, ``far`` Y = X + max(2|X|, 40)."""

PRIMARY_CELLS = ("random", "random_colon")
"""The cue pair of the primary interaction: bridge R and bridge R followed by a colon."""
CONTROL_CELLS = ("bare_correct", "bare_wrong", "wrong_final_only", "revision")
"""The four unambiguous controls whose gates qualify a configuration."""
REPEAT_CELLS = {"random_repeat": "random", "random_colon_repeat": "random_colon"}
"""Identical-body repeats of the primary cells, under their own request ids."""
FIXTURE_CELLS = ("no_answer", "unresolved")
"""Preflight diagnostics: a reply with no answer, and one that commits to two values."""

CONFIRMATION_CELLS = (*PRIMARY_CELLS, *CONTROL_CELLS, *REPEAT_CELLS)
"""Eight cells per source, in both presentations: sixteen calls per source and configuration."""
PREFLIGHT_CELLS = (*CONTROL_CELLS, *FIXTURE_CELLS)
"""Six cells per preflight source, in both presentations."""
