"""Recovery splits: fit and held-out items never shared; probe training overlap reported."""

from __future__ import annotations

import pytest

from readout_audit import InputError
from readout_audit.data import generate_controlled_logic, generate_paper_logic
from readout_audit.recover import RecoverSplits, recover_splits
from readout_audit.recover._checks import recover_checks


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


def test_generated_splits_at_other_seeds_and_the_papers_generator():
    splits = recover_splits(
        generate="paper-logic", n=9, train_n=9, seed=3, evals=["id,lexical@52", "lexical@62"]
    )
    assert list(splits.evals) == ["id", "lexical@52", "lexical@62"]
    assert splits.evals["lexical@52"] == generate_paper_logic("lexical", 9, 52)
    assert splits.evals["id"] == generate_paper_logic("id", 9, 3)
    assert splits.fit == generate_paper_logic("fit", 9, 3)  # fit and train stay at the run's seed
    assert {i.metadata["generator"] for i in splits.train} == {"paper-logic"}
    # the unlabelled fit split loses its labels and the metadata field that tells them
    fit = [item for name, role, items in splits.roles() if role == "fit" for item in items]
    assert all(i.label is None and "polarity" not in i.metadata for i in fit)
    assert all("polarity" in i.metadata for i in splits.evals["id"])
    for bad in ("fit@52", "train", "nonsense@4"):
        with pytest.raises(InputError, match=f"'{bad}' names no generated held-out split"):
            recover_splits(generate="controlled-logic", n=6, evals=[bad])
    with pytest.raises(InputError, match=r"'lexical@x': SEED of NAME@SEED must be an integer"):
        recover_splits(generate="controlled-logic", n=6, evals=["lexical@x"])
    with pytest.raises(InputError, match="unknown generator 'logic'"):
        recover_splits(generate="logic", n=6)
