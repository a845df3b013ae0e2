"""What ``lift toy`` and ``lift example`` print, from the library a notebook calls too."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.lift import ExampleDetail, ToyRow, example_detail, example_text, toy_table
from readout_audit.log import Manifest, Run

HEADER = "case      condition         raw  clipLL_2  vs. empty  P(recovery)"


def test_the_toy_table_prints_each_row_then_the_checks_verdict():
    clip = {"context": -1.0, "exact": -0.005, "reordered": -0.5, "wrong-symbol": -0.8}
    clip["empty"] = -1.2
    rows = [
        ToyRow(
            case="c", condition=name, raw=2 * value, clip2=value, vs_empty=value + 1.2,
            recovery=0.9 if name == "exact" else None,
        )
        for name, value in clip.items()
    ]  # fmt: skip
    lines = toy_table(rows).splitlines()
    assert lines[0] == HEADER
    # raw -0.010, clipLL_2 -0.005, vs. empty -0.005 + 1.2 = +1.195, P(recovery) 0.900
    assert lines[2] == "c         exact          -0.010    -0.005     +1.195        0.900"
    assert lines[5] == "c         empty          -2.400    -1.200     +0.000            –"
    # the exact forecast beats both controls and clears the -0.10 floor: a pass
    assert lines[6] == (
        "PASS: the exact forecast scores ≥ -0.005 (clipLL_2) and beats the empty scaffold "
        "and the context-only condition in all 1 cases"
    )


def detail(prompt: str) -> ExampleDetail:
    condition = {"condition": "empty", "prompt": prompt, "clip2": -1.0, "raw": -2.5}
    return ExampleDetail.model_validate(
        {
            "cut_id": "p:eq1", "paper": "p", "predictor_prompt": prompt, "target": "a+b",
            "scored_target": "a+b$$", "forecasts": {"s": "a"},
            "conditions": [{**condition, "vs_empty": None, "vs_context": 0.25}],
        }
    )  # fmt: skip


def test_an_example_elides_the_middle_of_a_long_prompt_unless_shown_whole():
    prompt = "a" * 1500 + "#" * 1000 + "z" * 1500
    text = example_text(detail(prompt))
    elided = "a" * 1500 + "\n[… 1,000 characters omitted; --full shows them …]\n" + "z" * 1500
    assert text.count(elided) == 2 and "#" not in text
    assert example_text(detail(prompt), full=True).count(prompt) == 2
    assert text.splitlines()[-1] == f"{'empty':<28}    -1.000   -2.500          –    +0.250"


def test_a_run_without_cuts_is_named_as_no_lift_run(tmp_path):
    run: Run = Run(tmp_path, Manifest(kind="lift", model={}, config={}), [], None)
    with pytest.raises(InputError, match="holds no cuts: not a lift run") as raised:
        example_detail(run)
    assert str(tmp_path) in str(raised.value)
