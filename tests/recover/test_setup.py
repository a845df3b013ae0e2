import pytest

from readout_audit._exceptions import InputError
from readout_audit.data import LogicItem
from readout_audit.recover._setup import (
    ALL_CONFIGURATIONS,
    Configuration,
    RecoverSetup,
    configurations_named,
)

ITEM = LogicItem(
    id="t1",
    context="Ivo is a marn. Every marn is bright.",
    statement="Ivo is bright.",
    label="true",
)


def test_main_configuration_renders_the_slot_and_candidates():
    item = Configuration("main", "words").item(ITEM, chat=True)
    assert item.messages is not None and item.stem == "Answer: <answer>"
    assert item.messages[0].content == (
        "Ivo is a marn. Every marn is bright.\n\nBased on the above information, is the "
        "following statement true, false, or unknown?\nStatement: Ivo is bright.\n\n"
        "Give your answer inside <answer></answer> tags."
    )
    assert item.options == ("true</answer>", "false</answer>", "unknown</answer>")


def test_listed_options_and_raw_prompts():
    item = Configuration("plain", "abc-options").item(ITEM, chat=False)
    assert item.prompt == (
        "Ivo is a marn. Every marn is bright.\n\nOptions:\nA) true\nB) false\nC) unknown\n\n"
        "Question: is it A, B, or C that Ivo is bright?\nAnswer inside <answer></answer> "
        "tags.\n\n"
    )
    assert item.options == ("A</answer>", "B</answer>", "C</answer>")


def test_twenty_configurations_main_first_and_bad_names():
    named = configurations_named("all")
    assert len(named) == len(ALL_CONFIGURATIONS) == 20 and named[0].name == "main/words"
    assert {c.name for c in named} == {c.name for c in ALL_CONFIGURATIONS}
    with pytest.raises(InputError, match="PROMPT/VERBALIZER"):
        configurations_named("main/nope")


def test_setup_validation_and_layers():
    assert RecoverSetup().resolved_layers(31) == (15, 30)
    assert RecoverSetup(layers=(0, -1)).resolved_layers(31) == (0, 30)
    with pytest.raises(InputError, match="outside"):
        RecoverSetup(layers=(31,)).resolved_layers(31)
    with pytest.raises(InputError, match="prior"):
        RecoverSetup(prior=(0.5, 0.5))
    with pytest.raises(InputError, match="repeat"):
        RecoverSetup(configurations=(Configuration("main", "words"),) * 2)
