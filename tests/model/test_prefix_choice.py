"""Prefix sharing chosen by device: on where a forward costs its tokens, off where it costs its
launches, and either forced by ``--prefix-sharing``."""

import pytest
from click.testing import CliRunner

from readout_audit import InputError, read_run
from readout_audit._cli import main
from readout_audit.model import _gate, load_model, open_model, shares_prefixes


@pytest.mark.parametrize(
    ("setting", "device", "shared"),
    [
        ("auto", "cpu", True),
        ("auto", "cuda", False),
        ("auto", "mps", False),
        ("on", "cuda", True),
        ("off", "cpu", False),
    ],
)
def test_auto_shares_on_the_cpu_only_and_a_setting_overrides_it(setting, device, shared):
    assert shares_prefixes(setting, device) is shared


def test_an_unknown_setting_is_refused_naming_the_option():
    with pytest.raises(ValueError, match="one of auto, on, off, got 'sometimes'"):
        shares_prefixes("sometimes", "cpu")
    with pytest.raises(InputError, match="unknown prefix sharing 'sometimes'") as caught:
        load_model(prefix_sharing="sometimes")
    assert caught.value.field == "prefix-sharing"
    with pytest.raises(InputError, match="placed by its server: prefix_sharing"):
        open_model("openai:http://127.0.0.1:9/v1#m", prefix_sharing="off")


@pytest.mark.model
def test_the_default_model_shares_on_the_cpu_and_the_option_turns_it_off(
    model, tmp_path, monkeypatch
):
    assert model.share_prefixes is True
    asked = {}

    def load(spec, *, preflight=None, **options):
        asked.update(options)
        preflight(model.codec)
        return model

    monkeypatch.setattr(_gate, "load_model", load)
    out = tmp_path / "off"
    args = ["demo", "--out", str(out), "--greedy-tokens", "1", "--no-progress"]
    result = CliRunner().invoke(main, [*args, "--prefix-sharing", "off"])
    assert result.exit_code == 0, result.output
    assert asked["prefix_sharing"] == "off" and len(read_run(out).records) == 10
    served = ["--model", "openai:http://127.0.0.1:9/v1#m", "--prefix-sharing", "on"]
    refused = CliRunner().invoke(main, [*args[:2], str(tmp_path / "s"), *args[3:], *served])
    assert refused.exit_code == 2 and "--prefix-sharing is not read by a served" in refused.output
    assert load_model(prefix_sharing="off").share_prefixes is False
