"""Cue proposals: the seed's admissibility filter, retention quotas, the beam on the real model."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit.judge.search._proposals import (
    PROPOSAL_CONTEXTS,
    BeamSettings,
    Proposal,
    inadmissible,
    propose,
    retain,
)
from readout_audit.log import Manifest


def test_the_contexts_are_the_seeds_four_with_their_first_lines_joined():
    assert len(PROPOSAL_CONTEXTS) == 4
    assert PROPOSAL_CONTEXTS[1] == (
        "Give only a short transition phrase between an initial answer and a corrected final "
        "answer.\nInitial answer: 1958\nCorrected final answer: 1959\nTransition:"
    )
    assert PROPOSAL_CONTEXTS[3].splitlines() == [
        "Write only a short phrase that introduces the final answer after an initial guess.",
        "Initial guess: blue",
        "Final answer: green",
        "Phrase:",
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty or longer than 80 characters"),
        ("x" * 81, "empty or longer than 80 characters"),
        ("...", "no ASCII letter"),
        ("Answer #1", "a character outside the allowed set"),
        ("Actually, PARIS", "a blocked word"),
        ("not the Final answer", "contains 'Final answer'"),
        ("Final answers", "contains 'Final answer'"),
    ],
)
def test_inadmissible_strings_say_why(model, text, reason):
    assert inadmissible(text, model.codec.encode(text), model.codec) == reason


def test_admissible_strings_round_trip_and_blocked_words_are_whole_words(model):
    codec = model.codec
    for text in ("Actual", "Correct answer:", "Userland (really)", "Wrongly; yes!"):
        assert inadmissible(text, codec.encode(text), codec) is None
    # a split of the same text that the tokenizer would not produce does not round-trip
    ids = [*codec.encode("Act"), *codec.encode("ually")]
    assert codec.decode(ids) == "Actually" and ids != codec.encode("Actually") == [39772]
    assert inadmissible("Actually", ids, codec) == "does not round-trip through the tokenizer"


def p(text: str, n_tokens: int, logprob: float) -> Proposal:
    return Proposal(text, tuple(range(n_tokens)), logprob, 0)


def test_retention_orders_by_length_then_score_then_text_under_the_quotas():
    archive = [
        p("Beta", 1, -1.0),
        p("Alpha", 1, -1.0),
        p("Gamma", 1, -0.5),
        p("Correct answer", 2, -2.0),
        *[p(f"Correct {k}", 2, -1.0 - k / 10) for k in range(6)],
    ]
    kept = retain(archive, BeamSettings(per_word=5, per_depth=48, cap=256))
    assert [k.text for k in kept[:3]] == ["Gamma", "Alpha", "Beta"]  # score, then text
    correct = [k.text for k in kept if k.first_word == "correct"]
    assert correct == ["Correct 0", "Correct 1", "Correct 2", "Correct 3", "Correct 4"]
    assert [k.text for k in retain(archive, BeamSettings(per_depth=2))] == [
        "Gamma",
        "Alpha",
        "Correct 0",
        "Correct 1",
    ]
    assert len(retain(archive, BeamSettings(cap=4))) == 4


def test_the_beam_archives_admissible_strings_with_their_likelihoods(model, float32_budget):
    settings = BeamSettings(first_width=32, width=4, depth=3)
    archive = propose(model, PROPOSAL_CONTEXTS[:1], settings)
    assert archive and len({a.text for a in archive}) == len(archive)
    codec = model.codec
    prompt = codec.encode(
        codec.render_chat([{"role": "user", "content": PROPOSAL_CONTEXTS[0]}], {})
    )
    for proposal in archive[:10]:
        assert inadmissible(proposal.text, proposal.token_ids, codec) is None
        logprobs = model.continuation_logprobs(prompt, [list(proposal.token_ids)])[0]
        expected = float(np.sum(logprobs))
        assert math.isclose(proposal.logprob, expected, abs_tol=float32_budget(len(prompt)) * 4)
    depths = {len(a.token_ids) for a in archive}
    assert depths <= {1, 2, 3} and 1 in depths
    kept = retain(archive, settings)
    assert all(
        sum(k.first_word == w for k in kept) <= settings.per_word
        for w in {k.first_word for k in kept}
    )


def test_the_cli_refuses_an_existing_file_or_one_in_a_run_before_the_model_loads(tmp_path):
    out = tmp_path / "proposals.json"
    out.write_text("keep")
    small = ["--depth", "1", "--first-width", "2", "--width", "1"]  # were the model to load
    refused = CliRunner().invoke(main, ["judge", "propose", "--out", str(out), *small])
    assert refused.exit_code == 1
    assert refused.output == f"Error: {out}, field 'out': exists; pass --force to overwrite it\n"
    assert out.read_text() == "keep"
    run = tmp_path / "run"
    run.mkdir()
    manifest = Manifest(kind="judge", model={"spec": "smollm2-135m"}, config={})
    (run / "manifest.json").write_text(manifest.model_dump_json(), encoding="utf-8")
    args = ["judge", "propose", "--out", str(run / "p.json"), *small, "--force"]
    inside = CliRunner().invoke(main, args)
    assert inside.exit_code == 1 and "is inside the run directory" in inside.output
    assert [p.name for p in run.iterdir()] == ["manifest.json"]


@pytest.mark.model  # the CLI loads the embedded model itself
def test_the_cli_writes_the_archive_the_pool_and_a_manifest(tmp_path):
    out = tmp_path / "proposals.json"
    out.write_text("an earlier archive")  # replaced: --force
    args = ["judge", "propose", "--out", str(out), "--depth", "2", "--first-width", "16"]
    result = CliRunner().invoke(main, [*args, "--width", "3", "--force"])
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text())
    manifest = json.loads((tmp_path / "proposals.json.beams.jsonl.manifest.json").read_text())
    assert manifest["kind"] == "proposals" and manifest["invocations"][-1]["finished"]
    assert manifest["config"]["settings"]["depth"] == 2
    assert manifest["model"]["files"][0]["sha256"]
    assert {tuple(p["token_ids"]) for p in written["retained"]} <= {
        tuple(p["token_ids"]) for p in written["archive"]
    }
    assert f"retained {len(written['retained'])}" in result.output
