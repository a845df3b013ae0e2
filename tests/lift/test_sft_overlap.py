"""Held-out papers clean by content: a held-out target a training example holds is not read."""

from __future__ import annotations

import pytest
from lift_cuts import equation_cut

from readout_audit._exceptions import InputError
from readout_audit.lift import LiftSetup
from readout_audit.lift._sft_scorer import rung_cuts
from readout_audit.lift.sft import (
    SPAN,
    PaperSplit,
    SftConfig,
    held_out_overlap,
    plan_sft,
    sft_examples,
)

SHARED = r"\mathcal{L} = \bar\psi (i \gamma^\mu D_\mu - m) \psi - \frac{1}{4} F_{\mu\nu} F^{\mu\nu}"
"""One equation both papers print (80 characters)."""
TAIL = r", \qquad D_\mu = \partial_\mu + i e A_\mu"
SPLIT = PaperSplit(seed=0, held_out_fraction=0.5, train=["a"], held_out=["b"])


def held(key: str, target: str):
    return equation_cut(target=target, paper="b", key=key)


def test_two_papers_sharing_an_equation():
    training = [equation_cut(target=SHARED + TAIL, paper="a", key="eq1")]
    examples = sft_examples(training, SPLIT, LiftSetup())
    part = SHARED[-SPAN:]  # exactly 50 characters of the shared equation
    near = SHARED[-(SPAN - 1) :]  # 49: no 50-character span in common
    cuts = [
        held("eq1", SHARED),  # verbatim inside the training target
        held("eq2", r"\Lambda^2 = " + part + r" + \theta F \tilde F"),  # a span of it
        held("eq3", r"\Lambda^2 = " + near + r" + \theta G \tilde G"),
        held("eq4", r"\oint_C \mathbf{B} \cdot d\mathbf{l} = \mu_0 I_{\text{enc}} + \dots"),
    ]
    assert len(part) == 50 and part in examples[0].target and near in examples[0].target
    assert held_out_overlap(cuts, examples) == {"b:eq1": "target", "b:eq2": "span"}

    planned = plan_sft(examples, SPLIT, SftConfig(), LiftSetup(), held_out=cuts)
    assert planned.held_out_overlap == {"b:eq1": "target", "b:eq2": "span"}
    assert set(planned.held_out_targets or {}) == {c.id for c in cuts}
    checked = planned.held_out_targets or {}
    kept = rung_cuts(cuts, SPLIT.held_out, planned.examples, checked, planned.held_out_overlap)
    assert kept == {"b:eq3", "b:eq4"}


def test_a_target_held_by_a_training_prompt_counts_too():
    # the training cut's context quotes the held-out paper's equation; its prompt (the last
    # |Y| + 40 characters before the display) holds all of it, 52 or 48 characters of it
    def example(target: str):
        cut = equation_cut(target=target, paper="a", key="eq1")
        cut = cut.model_copy(update={"context": cut.context + "\n$" + SHARED + "$."})
        (found,) = sft_examples([cut], SPLIT, LiftSetup())
        return found

    whole, part, less = (
        example(t) for t in (r"\sum_k a_k + " * 8, r"\sum_k a_k b_k", r"\sum_k a_k")
    )
    assert SHARED in whole.prompt
    assert SHARED[-52:] in part.prompt and SHARED[-53:] not in part.prompt
    assert SHARED[-48:] in less.prompt and SHARED[-49:] not in less.prompt
    target = [held("eq1", SHARED)]
    assert held_out_overlap(target, [whole]) == {"b:eq1": "target"}
    assert held_out_overlap(target, [part]) == {"b:eq1": "span"}
    assert held_out_overlap(target, [less]) == {}


def test_a_held_out_cut_never_checked_or_all_overlapping_is_refused():
    cuts = [held("eq1", SHARED), held("eq2", SHARED + TAIL)]
    checked = {"b:eq1": cuts[0].target_sha256}
    with pytest.raises(InputError, match="never checked against the training examples"):
        rung_cuts(cuts, ["b"], [], checked, {})
    edited = {**checked, "b:eq2": "0" * 64}  # another target under the same id
    with pytest.raises(InputError, match=r"first 'b:eq2'"):
        rung_cuts(cuts, ["b"], [], edited, {})
    everything = {c.id: c.target_sha256 for c in cuts}
    with pytest.raises(InputError, match="held by no training example"):
        rung_cuts(cuts, ["b"], [], everything, {"b:eq1": "target", "b:eq2": "span"})
    with pytest.raises(InputError, match="cuts of papers the split trains on"):
        plan_sft([], SPLIT, SftConfig(), LiftSetup(), held_out=[equation_cut(paper="a")])
