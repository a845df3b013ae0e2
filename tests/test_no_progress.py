"""``progress="off"`` (what ``--no-progress`` passes) silences every stage of every kind.

"off" is a non-empty string: an audit that read it as a truth value showed its stages'
progress anyway (P(True)'s answer step did).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from readout_audit import (
    ANSWER,
    Item,
    MCItem,
    QAItem,
    YesNoItem,
    audit_options,
    audit_ptrue,
    audit_yesno,
    score,
)
from readout_audit.lmeval import audit_lm_eval, read_samples
from readout_audit.progress import as_mode
from readout_audit.recover import RecoverSetup, audit_recover, recover_splits

LOGGED = Path(__file__).resolve().parents[1] / "examples" / "lm-eval" / "logged"

pytestmark = pytest.mark.model


def test_a_mode_is_taken_as_it_is_and_a_bool_as_asked():
    assert as_mode("off") == "off" and as_mode("lines") == "lines" and as_mode(False) == "off"
    assert as_mode(True) in ("bar", "lines")


def runs(model, out):
    """Each kind's smallest run, progress off; P(True)'s item has no answer (its answer step)."""
    yield lambda: score(
        model, [Item(id="a", prompt="2 + 2 =", options=(" 4", " 5"))], out / "score",
        greedy_tokens=2, progress="off",
    )  # fmt: skip
    yield lambda: audit_options(
        model, [MCItem(id="q", question="Which is a fruit?", choices=("Apple", "Stone"),
                       answer="A")],
        ANSWER, out / "options", variants=["production"], greedy_tokens=2, progress="off",
    )  # fmt: skip
    yield lambda: audit_ptrue(
        model, [QAItem(id="p", question="What is the capital of France?", gold=("Paris",))],
        out / "ptrue", progress="off",
    )  # fmt: skip
    yield lambda: audit_yesno(
        model, [YesNoItem(id="y", question="Is the sky blue?", label="yes")], out / "yesno",
        progress="off",
    )  # fmt: skip
    yield lambda: audit_lm_eval(
        model, read_samples(LOGGED, limit=1), out / "lm-eval", source={"samples": str(LOGGED)},
        greedy_tokens=2, progress="off",
    )  # fmt: skip
    yield lambda: audit_recover(
        model, recover_splits(
            generate="controlled-logic", n=30, train_n=60, evals=["id"], limit=8
        ),
        out / "recover", setup=RecoverSetup(n_perm=20, n_boot=20), progress="off",
    )  # fmt: skip


def test_no_stage_of_any_kind_writes_progress_when_it_is_off(model, tmp_path, capsys):
    for run in runs(model, tmp_path):
        run()
        err = capsys.readouterr().err
        assert err == "", err
