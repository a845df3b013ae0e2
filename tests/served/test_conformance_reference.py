"""``readout conformance --reference``: the weights run here, so a served or unknown spec is
refused by that option's name before any endpoint is asked or any model loads."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from hostile import refused

from readout_audit import ConformanceRun
from readout_audit._cli import main

SERVED = "openai:http://127.0.0.1:9/v1#m"


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        ("openai:http://user:secret@127.0.0.1:9/v1#m", "is a served model"),
        (SERVED, "is a served model"),
        ("llama-7b", "unknown model spec 'llama-7b'"),
        ("hf:", "unknown model spec 'hf:'"),
    ],
)
def test_a_reference_that_is_not_run_here_blames_reference(tmp_path, reference, reason):
    args = ["conformance", "--model", SERVED, "--reference", reference, "--out", tmp_path / "c"]
    error = refused(args, "--reference: ", reason)
    assert "field 'model'" not in error and "secret" not in error
    assert CliRunner().invoke(main, [str(a) for a in args]).exit_code == 2
    assert not (tmp_path / "c").exists()
    with pytest.raises(ValueError, match=reason):
        ConformanceRun(spec=SERVED, reference=reference, out=tmp_path / "c")
