import pytest

from readout_audit._exceptions import InputError
from readout_audit.data import LogicItem, generate_controlled_logic
from readout_audit.recover import (
    ALL_CONFIGURATIONS,
    Configuration,
    OffsetGrid,
    RecoverSetup,
    RecoverSources,
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


def test_setup_takes_the_values_its_options_give():
    setup = RecoverSetup(configurations="main/abc,terse/words", grid=(-1.0, 1.0, 0.5))
    assert [c.name for c in setup.configurations] == ["main/abc", "terse/words"]
    assert setup.grid == OffsetGrid(-1.0, 1.0, 0.5)
    assert setup.grid.values().tolist() == [-1.0, -0.5, 0.0, 0.5, 1.0]
    everything = RecoverSetup(configurations=("all",)).configurations
    assert [c.name for c in everything] == [c.name for c in configurations_named("all")]


@pytest.mark.parametrize(
    ("values", "field", "message"),
    [
        ({"configurations": "main/nope"}, "configurations", "PROMPT/VERBALIZER"),
        ({"grid": (-100.0, 100.0, 0.001)}, "grid", "use a coarser grid"),  # 200,001^2 vectors
        ({"grid": (1.0, -1.0, 0.1)}, "grid", "high ≥ low"),
        ({"max_tokens": 15}, "max-tokens", "greater than or equal to 16"),
        ({"probe_seeds": ()}, "probe-seeds", "at least one probe seed"),
        ({"seed": -1}, "seed", "greater than or equal to 0"),
    ],
)
def test_a_refused_setup_value_names_its_option(values, field, message):
    with pytest.raises(InputError, match=message) as caught:
        RecoverSetup(**values)
    assert caught.value.field == field


def test_sources_draw_the_generated_set_at_the_generator_seed():
    splits = RecoverSources(
        generate="controlled-logic", evals=("id",), n=6, train_n=9, generator_seed=7, limit=4
    ).splits()
    assert list(splits.fit) == generate_controlled_logic("fit", 6, 7)[:4]
    assert list(splits.evals["id"]) == generate_controlled_logic("id", 6, 7)[:4]
    assert list(splits.train) == generate_controlled_logic("train", 9, 7)[:4]
