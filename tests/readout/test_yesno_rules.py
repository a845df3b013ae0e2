"""Yes/no rules on hand-built values: token sets, the strict max-logit rule, string parsing."""

from __future__ import annotations

import pytest

from readout_audit.readout._options import OptionEncoding
from readout_audit.readout._yesno import (
    LLAMA_PAIR,
    LLAMA_SET,
    TokenSets,
    max_logit_decision,
    parse_yes_no,
    sets_from_encodings,
)


def test_llama_ids_are_the_papers():
    assert LLAMA_PAIR == (3582, 1217)
    assert LLAMA_SET == ((3582, 8241, 4874, 3869), (1217, 3782, 694, 1939))


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
    ("text", "first", "answer", "offset", "in_first"),
    [
        ("Yes, it is.", 3, "yes", 0, True),
        (" No.", 3, "no", 1, True),
        ("I think the answer is no.", 1, "no", 22, False),
        ("Nothing is known; yes.", 7, "yes", 18, False),  # "No" inside "Nothing" is no word
        ("Maybe.", 5, None, None, False),
    ],
)
def test_string_parse(text, first, answer, offset, in_first):
    parsed = parse_yes_no(text, first)
    assert (parsed.answer, parsed.offset, parsed.in_first_token) == (answer, offset, in_first)
    assert parsed.decision == (answer or "yes")  # POPE reads an unparsed text as yes
