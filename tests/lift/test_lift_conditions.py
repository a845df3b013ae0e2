"""The scorer's prompts are the paper's scaffolds, character for character."""

from __future__ import annotations

import math

import pytest
from lift_cuts import equation_cut, prose_cut

from readout_audit import InputError
from readout_audit.lift._conditions import (
    LiftSetup,
    conditions,
    equation_scaffold,
    prose_scaffold,
    target_text,
)


def test_equation_scaffold_is_the_papers_first_and_same_equation():
    cut = equation_cut()
    z = r"\hbar\omega(n+\tfrac12)"
    expected = (
        "% First equation:\n\\begin{align}\n"
        "H &= \\frac{p^2}{2m} + \\frac{1}{2} m \\omega^2 x^2 \\\\\n"
        "E_n &= \\hbar\\omega(n+\\tfrac12)\n"
        "\\end{align}\n\n% Same equation:\n\\begin{align}\n"
        "H &= \\frac{p^2}{2m} + \\frac{1}{2} m \\omega^2 x^2 \\\\\nE_n &= "
    )
    assert equation_scaffold(cut, z) == expected
    assert target_text(cut, LiftSetup()) == cut.target + "\n\\end{align}"
    assert target_text(cut, LiftSetup(closing=False)) == cut.target


def test_recent_context_controls_spend_b_and_three_b_characters():
    cut = equation_cut()
    found = {c.name: c for c in conditions(cut, {"a": "x"}, LiftSetup())}
    assert list(found) == ["empty", "context", "context3", "forecast/a", "oracle"]
    b = len(cut.target) + 40
    tail = f"\n\\begin{{align}}\n{cut.prefix}"
    assert found["context"].prompt == cut.context[-b:] + tail
    assert found["context3"].prompt == cut.context[-math.ceil(3 * b) :] + tail
    assert not found["context"].scaffold and found["forecast/a"].scaffold
    assert found["oracle"].prompt == equation_scaffold(cut, cut.target)
    assert found["empty"].prompt == equation_scaffold(cut, "")
    assert found["forecast/a"].forecast == "x"


def test_prose_scaffold_comments_the_notes_and_repeats_the_window():
    cut = prose_cut()
    setup = LiftSetup(window=30, z_budget=14)
    window = cut.context[-30:]
    prompt = prose_scaffold(cut, "first line\n\nsecond line", setup)
    assert prompt == (
        f"{window}\n% Notes about what's next:\n% first line\n%\n% se\n"
        f"% Returning to paper text:\n{window}\n\n"
    )
    found = {c.name: c for c in conditions(cut, {}, LiftSetup())}
    assert list(found) == ["empty", "context", "oracle"]
    assert found["context"].prompt == cut.context[-3000:] + "\n\n"
    assert target_text(cut, LiftSetup()) == cut.target


@pytest.mark.parametrize("setting", ["", "a/b"])
def test_a_setting_name_must_be_a_plain_name(setting):
    with pytest.raises(InputError, match="setting"):
        conditions(equation_cut(), {setting: "x"}, LiftSetup())
