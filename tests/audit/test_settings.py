"""Each audit's typed settings: what a notebook builds and the ``readout audit`` options read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from readout_audit.data import load_yesno_source
from readout_audit.options import OptionsSettings
from readout_audit.prompt import ANSWER, FORECAST
from readout_audit.ptrue import PTrueSettings
from readout_audit.yesno import YesNoSettings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MC = str(EXAMPLES / "mc.jsonl")


def test_options_settings_read_the_spec_the_quick_rungs_and_the_first_items():
    settings = OptionsSettings(items=MC, spec="answer", variants=("quick",), limit=2)
    assert settings.spec.spec is ANSWER and settings.spec.variants == {}
    assert settings.variants == ("production", "stem", "space_appended")
    assert [item.id for item in settings.loaded] == ["garden", "bread"]
    assert OptionsSettings(items=MC).spec.spec is FORECAST  # the default, read as a name
    assert OptionsSettings(items=MC).variants is None  # every rung


def test_options_settings_read_a_spec_file_and_refuse_an_unknown_name():
    read = OptionsSettings(items=MC, spec=EXAMPLES / "spec.toml").spec
    assert read.spec.name == "easy-or-not" and "sets no target" in read.warnings[0]
    with pytest.raises(ValidationError, match="a spec file must end in"):
        OptionsSettings(items=MC, spec="forcast")


def test_ptrue_settings_read_the_items_and_the_leakage_warning(tmp_path):
    folder = tmp_path / "mmlu"
    folder.mkdir()
    shutil.copy(EXAMPLES / "mmlu" / "everyday_science_test.csv", folder)
    settings = PTrueSettings(items=str(folder), shots_from=str(folder), shots=1, limit=1)
    items, warnings = settings.source_read.items, settings.source_read.warnings
    assert [item.id for item in items] == ["everyday_science_test/1"]  # its first row
    assert warnings[0].startswith("1 of the 1 evaluated items are also rows the few-shot")
    default = PTrueSettings(items=str(folder))
    assert (default.shots, default.seed) == (5, 1)  # lm-polygraph's n_shot and seed
    with pytest.raises(ValidationError, match="greater than or equal to 0"):
        PTrueSettings(items=str(folder), seed=-1)


def test_yesno_settings_set_up_listing_1_with_the_extra_forms_and_llama_2s_ids():
    setup = YesNoSettings(yes_forms=("Yeah", "yes"), no_forms=("Nope",)).setup()
    assert setup.yes_forms == ("yes", "Yes", " yes", " Yes", "Yeah")  # Listing 1's, then ours
    assert setup.no_forms == ("no", "No", " no", " No", "Nope")
    assert setup.legacy_pair == (3582, 1217)
    assert setup.legacy_set == ((3582, 8241, 4874, 3869), (1217, 3782, 694, 1939))
    given = YesNoSettings(legacy_ids=(10407, 5230)).setup()
    assert given.legacy_pair == (10407, 5230) and given.legacy_set == setup.legacy_set
    off = YesNoSettings(legacy=False).setup()
    assert off.legacy_pair is None and off.legacy_set is None


def test_yesno_settings_refuse_what_the_run_would_not_read(tmp_path):
    with pytest.raises(ValidationError, match="not read with legacy off"):
        YesNoSettings(legacy=False, legacy_set=((1,), (2,)))
    with pytest.raises(ValidationError, match="images are not read without items"):
        YesNoSettings(images=tmp_path)
    demo = [item.id for item in load_yesno_source(None)[:3]]
    assert [item.id for item in YesNoSettings(limit=3).loaded] == demo
