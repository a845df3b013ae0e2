"""Yes/no rules on hand-built values: token sets, the strict max-logit rule, string parsing."""

from __future__ import annotations

import pytest

from readout_audit.readout._options import OptionEncoding
from readout_audit.readout._yesno import (
    LLAMA_PAIR,
    LLAMA_SET,
    NO_FORMS,
    YES_FORMS,
    TokenSets,
    algorithm1_diagnostic,
    listing1_sets,
    max_logit_decision,
    parse_yes_no,
    sets_from_encodings,
    yes_no_form,
)


def test_llama_ids_are_the_papers():
    assert LLAMA_PAIR == (3582, 1217)
    assert LLAMA_SET == ((3582, 8241, 4874, 3869), (1217, 3782, 694, 1939))


def test_default_forms_are_the_papers_four_and_four():
    assert YES_FORMS == ("yes", "Yes", " yes", " Yes")
    assert NO_FORMS == ("no", "No", " no", " No")


def test_listing1_sets_on_the_embedded_tokenizer(model):
    """Each form encoded alone; SmolLM2 spells all eight as one token (ids checked by hand)."""
    sets = listing1_sets(model.codec, YES_FORMS, NO_FORMS)
    assert sets.yes == (10407, 10539, 9805, 9230)  # yes, Yes, Ġyes, ĠYes
    assert sets.no == (4607, 5230, 787, 2838)  # no, No, Ġno, ĠNo
    assert sets.multi_token == ()
    upper = listing1_sets(model.codec, ("YES", " YES"), ("NO", " NO"))
    assert upper.yes == () and upper.multi_token == (("YES", (73, 2097)), (" YES", (718, 2097)))
    assert upper.no == (13465, 10921)  # NO, ĠNO


@pytest.mark.parametrize(
    ("surface", "form"),
    [
        ("Yes", "yes"),
        (" yes", "yes"),
        ("YES", "yes"),
        ("\u2581Yes", "yes"),  # SentencePiece's word-boundary marker
        ("\u0120No", "no"),  # byte-level BPE's
        ("\nno ", "no"),
        ("Yes,", None),
        ("Nope", None),
        ("yes no", None),
        ("The", None),
    ],
)
def test_yes_no_form(surface, form):
    assert yes_no_form(surface) == form


def test_algorithm1_on_a_hand_built_sample():
    """Seven first tokens against LLaMA-2's Y and N: six are outside, four of them yes/no forms."""
    first = [5230, 5230, 10539, 504, 9230, 2838, 3869, 5230]
    surfaces = {5230: "No", 10539: "Yes", 504: "The", 9230: " Yes", 2838: "\u0120No", 3869: " Yes"}
    fixed = TokenSets(yes=LLAMA_SET[0], no=LLAMA_SET[1])
    found = algorithm1_diagnostic(first, surfaces, fixed)
    assert found["Y"] == [3582, 8241, 4874, 3869] and found["N"] == [1217, 3782, 694, 1939]
    assert list(found["missing"]) == ["5230", "10539", "504", "9230", "2838"]  # 3869 is in Y
    assert found["missing"]["5230"] == {"token": "No", "form": "no", "count": 3}
    assert found["missing"]["504"] == {"token": "The", "form": None, "count": 1}
    assert found["proposed_yes"] == [9230, 10539] and found["proposed_no"] == [2838, 5230]
    extended = fixed.extended(found["proposed_yes"], found["proposed_no"])
    assert extended.yes == (3582, 8241, 4874, 3869, 9230, 10539)
    assert extended.no == (1217, 3782, 694, 1939, 2838, 5230)
    assert algorithm1_diagnostic(first, surfaces, extended)["missing"] == {
        "504": {"token": "The", "form": None, "count": 1}
    }
    unchecked = algorithm1_diagnostic(first, surfaces, None)
    assert unchecked["missing"] == {} and unchecked["proposed_yes"] == []
    assert unchecked["emitted"]["5230"]["count"] == 3


def test_sets_keep_single_token_forms_and_report_the_rest():
    encodings = [
        OptionEncoding("yes", (10,)),
        OptionEncoding(" Yes", (11,)),
        OptionEncoding("YES", (12, 13)),
        OptionEncoding("no", (20,)),
        OptionEncoding(" no", None),
        OptionEncoding("No", (20,)),  # two forms, one id: kept once
    ]
    sets = sets_from_encodings(encodings, ["yes", "yes", "yes", "no", "no", "no"])
    assert sets.yes == (10, 11) and sets.no == (20,)
    assert sets.multi_token == (("YES", (12, 13)), (" no", None))
    assert sets.ids == (10, 11, 20)
    assert sets.extended(yes=[30, 10], no=[40]).yes == (10, 11, 30)


def test_sets_reject_an_id_in_both():
    with pytest.raises(ValueError, match=r"\[5\] are in both"):
        TokenSets(yes=(5, 6), no=(5,))


@pytest.mark.parametrize(
    ("logprobs", "expected"),
    [
        ({1: -0.1, 2: -5.0, 3: -1.0, 4: -2.0}, "yes"),
        ({1: -3.0, 2: -5.0, 3: -1.0, 4: -2.0}, "no"),
        ({1: -1.0, 2: -5.0, 3: -1.0, 4: -2.0}, "no"),  # a tie reads no (strict rule)
        ({1: None, 2: -5.0, 3: -9.0, 4: None}, "yes"),  # partial distributions: known ids only
        ({1: None, 2: None, 3: -1.0, 4: -2.0}, None),  # no yes id known: undecided
    ],
)
def test_max_logit_rule(logprobs, expected):
    assert max_logit_decision(logprobs, TokenSets(yes=(1, 2), no=(3, 4))) == expected


@pytest.mark.parametrize(
    ("text", "first", "rule", "answer", "offset", "in_first"),
    [
        ("Yes, it is.", 3, "substring", "yes", 0, True),
        (" No.", 3, "substring", "no", 1, True),
        ("I think the answer is no.", 1, "substring", "no", 22, False),
        # the paper's first yes/no substring: "No" inside "Nothing" reads no
        ("Nothing is known; yes.", 7, "substring", "no", 0, True),
        ("I know it; yes.", 1, "substring", "no", 3, False),  # "know" holds "no"
        ("Nothing is known; yes.", 7, "word", "yes", 18, False),  # a standalone word only
        ("Eyes open. No.", 1, "word", "no", 11, False),
        ("Eyes open. No.", 1, "substring", "yes", 1, False),
        ("Maybe.", 5, "substring", None, None, False),
    ],
)
def test_string_parse(text, first, rule, answer, offset, in_first):
    parsed = parse_yes_no(text, first, rule)
    assert (parsed.answer, parsed.offset, parsed.in_first_token) == (answer, offset, in_first)
    assert parsed.decision == (answer or "yes")  # POPE reads an unparsed text as yes
