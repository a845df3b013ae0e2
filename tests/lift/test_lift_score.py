"""Scoring cuts on the embedded model: shared forwards equal separate ones, runs resume."""

from __future__ import annotations

import numpy as np
import pytest
from lift_cuts import equation_cut, prose_cut

from readout_audit import InputError
from readout_audit.lift._conditions import LiftSetup, conditions, target_text
from readout_audit.lift._score import common_prefix, cut_jobs, encode_scored, score_lift
from readout_audit.log._run import read_run

pytestmark = pytest.mark.cost(25)

FORECASTS = {"osc:eq1": {"good": r"\hbar\omega(n+\tfrac12)", "bad": r"x^2 + y^2"}}


def test_common_prefix():
    assert common_prefix([[1, 2, 3], [1, 2, 4], [1, 2]]) == 2
    assert common_prefix([[1], [2]]) == 0
    assert common_prefix([]) == 0


def test_the_target_is_scored_as_one_text_with_its_prompt(model):
    codec = model.codec
    # a clean seam: the target's own tokens, exactly as encoded alone
    ids, start = encode_scored(codec, [], "x = a\n", r"\lVert u\rVert^2")
    assert ids[start:] == codec.encode(r"\lVert u\rVert^2")
    assert ids[:start] == codec.encode("x = a\n")
    # " \\" spans the seam: it belongs to neither side and is not scored (reference rule)
    ids, start = encode_scored(codec, [7], "x = a + ", r"\lVert u\rVert^2")
    assert ids == [7, *codec.encode(r"x = a + \lVert u\rVert^2")]
    assert [codec.decode([i]) for i in ids[start - 1 : start + 1]] == [" \\", "l"]
    assert codec.decode(ids[start:]) == r"lVert u\rVert^2"
    # the target's first word joins the prompt's trailing space: it is not scored either
    ids, start = encode_scored(codec, [], "x = ", "b + c")
    assert codec.decode(ids[start:]) == " + c"


def test_scaffold_conditions_share_one_context(model):
    cut = equation_cut()
    jobs = {j.key[1]: j for j in cut_jobs(cut, FORECASTS[cut.id], LiftSetup(), model.codec)}
    shared = {name: j.request.context for name, j in jobs.items()}
    scaffold = ["empty", "forecast/good", "forecast/bad", "oracle"]
    assert len({tuple(shared[n]) for n in scaffold}) == 1
    text = model.codec.decode(shared["empty"])
    assert text.startswith("% First equation:\n\\begin{align}\nH &=")
    assert cut.prefix.startswith(text.split("\\begin{align}\n", 1)[1])
    # the controls are scored alone: their context is their whole prompt, here with the token
    # " \\" that spans the seam before the target "\\hbar..."
    for name in ("context", "context3"):
        prompt = next(c for c in conditions(cut, {}, LiftSetup()) if c.name == name).prompt
        assert model.codec.decode(jobs[name].request.context) == prompt + cut.target[0]


def test_bos_opens_every_prompt_only_when_asked(model):
    cut = equation_cut()
    bos = model.codec.tokenizer.bos_token_id
    assert bos == 1 and model.codec.prefix_ids == ()  # SmolLM2 declares <|im_start|>, adds none
    plain = cut_jobs(cut, {}, LiftSetup(), model.codec)
    opened = cut_jobs(cut, {}, LiftSetup(bos=True), model.codec)
    for a, b in zip(plain, opened, strict=True):
        assert list(b.request.context) == [bos, *a.request.context]
        assert b.request.continuations == a.request.continuations


def test_shared_forward_equals_each_prompt_scored_alone(model, tmp_path, float32_budget):
    setup = LiftSetup()
    for cut in (equation_cut(), prose_cut()):
        out = tmp_path / cut.kind
        mine = {k: v for k, v in FORECASTS.items() if k == cut.id}
        result = score_lift(model, [cut], out, forecasts=mine, toy=False)
        run = read_run(out)
        assert result.n_new == len(run.records) == (6 if cut.kind == "equation" else 3)
        for c in conditions(cut, FORECASTS.get(cut.id, {}), setup):
            record = next(r for r in run.records if (r.item_id, r.variant) == (cut.id, c.name))
            ids, start = encode_scored(model.codec, [], c.prompt, target_text(cut, setup))
            prompt, target = ids[:start], ids[start:]
            alone = model.continuation_logprobs(prompt, [target])[0]
            assert record.target_token_ids == target
            assert record.n_prompt_tokens == len(prompt)
            budget = float32_budget(len(ids))
            np.testing.assert_allclose(record.target_logprobs, alone, atol=budget, rtol=0)
    run = read_run(tmp_path / "equation")
    oracle = next(r for r in run.records if r.variant == "oracle")
    empty = next(r for r in run.records if r.variant == "empty")
    # the true suffix in the first equation makes it far likelier (copying)
    assert np.mean(oracle.target_logprobs) > np.mean(empty.target_logprobs) + 0.5


def test_a_rerun_resumes_and_scores_nothing_again(model, tmp_path):
    cut = equation_cut()
    first = score_lift(model, [cut], tmp_path / "run", forecasts=FORECASTS)
    again = score_lift(model, [cut], tmp_path / "run", forecasts=FORECASTS)
    assert (first.n_new, again.n_new) == (6, 0)


def test_bad_inputs_are_named(model, tmp_path):
    cut = equation_cut()
    with pytest.raises(InputError, match="'nope:eq9'"):
        score_lift(model, [cut], tmp_path / "a", forecasts={"nope:eq9": {"a": "x"}})
    with pytest.raises(InputError, match="not both"):
        score_lift(model, [cut, prose_cut()], tmp_path / "d")
    with pytest.raises(InputError, match="repeat"):
        score_lift(model, [cut, cut], tmp_path / "b")
    huge = equation_cut(target="x + " * 6000)
    with pytest.raises(InputError, match="beyond the scorer's window"):
        score_lift(model, [huge], tmp_path / "c")
    assert not (tmp_path / "a" / "records.jsonl").exists()
