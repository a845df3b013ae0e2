"""Recovery splits: fit and held-out items never shared; probe training overlap reported."""

from __future__ import annotations

import pytest

from readout_audit import InputError, generate_controlled_logic
from readout_audit.recover import RecoverSplits
from readout_audit.recover._analysis import recover_checks


def _splits(**changes):
    roles = {
        "train": generate_controlled_logic("train", 8, 3),
        "fit": generate_controlled_logic("fit", 8, 3),
        "evals": {"lexical": generate_controlled_logic("lexical", 8, 3)},
    }
    return RecoverSplits(**{**roles, **changes})


def test_a_held_out_split_sharing_items_with_the_fit_split_is_refused():
    fit = generate_controlled_logic("fit", 8, 3)
    held_out = [*generate_controlled_logic("lexical", 8, 3), fit[2]]
    with pytest.raises(InputError, match=rf"'lexical' shares 1 item.*{fit[2].id}"):
        _splits(fit=fit, evals={"lexical": held_out})
    # the same statement in the same context under another id, spaced and cased otherwise
    renamed = fit[5].model_copy(
        update={"id": "other", "statement": "  " + fit[5].statement.upper() + " "}
    )
    with pytest.raises(InputError, match="the same text: other"):
        _splits(fit=fit, evals={"id": [renamed]})
    # one id for two different items (separately generated splits restart their ids): allowed
    namesake = generate_controlled_logic("lexical", 8, 3)[0].model_copy(update={"id": fit[0].id})
    assert _splits(fit=fit, evals={"id": [namesake]}).train_overlap() == {}


def test_probe_training_items_in_a_held_out_split_are_counted_and_warned():
    train = generate_controlled_logic("train", 8, 3)
    splits = _splits(
        train=train, evals={"lexical": [*train[:3], *generate_controlled_logic("lexical", 4, 3)]}
    )
    assert splits.train_overlap() == {"lexical": 3}
    assert _splits().train_overlap() == {}
    checks = {c.name: c for c in recover_checks([], [], 0.9, splits.train_overlap())}
    assert (
        checks["probe_overlap"].verdict == "warn" and "lexical 3" in checks["probe_overlap"].finding
    )
    assert "probe_overlap" not in {c.name for c in recover_checks([], [], 0.9, {})}
