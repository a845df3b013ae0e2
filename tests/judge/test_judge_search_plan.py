"""Cue search stages: programmes, bridge cells, planned requests and their order, pool files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from readout_audit import InputError
from readout_audit.judge import PAPER_SEED, load_gsm8k_jsonl, parse_configuration
from readout_audit.judge.inventory import choose_sources
from readout_audit.judge.search import (
    PROGRAMMES,
    SEED_BRIDGES,
    Bridge,
    bridge_cell,
    bridge_id,
    plan_stage,
    read_proposals,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
CONFIGURATION = parse_configuration("c=FINAL3@smollm2-135m", PAPER_SEED)


@pytest.fixture(scope="module")
def chosen():
    bank = load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl")
    return choose_sources([bank], seed=PAPER_SEED, per_dataset=2, preflight_per_dataset=2)


def test_the_programmes_are_the_seeds():
    screen, extend = PROGRAMMES["screen"], PROGRAMMES["extend"]
    assert (screen.development, screen.confirmation, screen.keep, screen.rounds) == (12, 12, 16, 0)
    assert (extend.development, extend.confirmation, extend.keep, extend.rounds) == (8, 24, 2, 2)
    assert (extend.parents, extend.per_stem, extend.next_tokens, extend.per_round) == (3, 2, 12, 32)
    assert len(SEED_BRIDGES) == 20 and len(set(SEED_BRIDGES)) == 20
    assert extend.baselines == ("Correct answer", "Correct answer instead")
    assert extend.controls == ("", "Neutral answer", "Qxvbrtz mptklu")
    # the later search's development budget: 20 seeds and 64 extensions, two scaffolds, 8 sources
    assert (20 + extend.rounds * extend.per_round) * len(extend.scaffolds) * 8 == 1344
    assert extend.with_counts(development=3, rounds=None).development == 3
    assert extend.with_counts(development=3, rounds=None).rounds == 2


def test_bridge_cells_hash_the_text():
    assert bridge_id("Actual") == "b" + hashlib.sha256(b"Actual").hexdigest()[:10]
    assert bridge_cell("wrong_only", "") == "wrong_only.b" + hashlib.sha256(b"").hexdigest()[:10]


def test_a_stage_plans_every_bridge_in_every_scaffold_in_interleaved_order(chosen):
    development = [
        s.model_copy(update={"phase": "development"})
        for s in chosen.selected
        if s.phase == "preflight"
    ]
    bridges = [Bridge(text=t, token_ids=(1,), origin="seed") for t in ("Actual", "")]
    requests = plan_stage(
        "development",
        CONFIGURATION,
        development,
        bridges,
        ("correct_first", "wrong_only", "initially"),
        presentation="sorted",
        seed=PAPER_SEED,
        clean_controls=False,
    )
    assert len(requests) == 2 * 3 * 2
    keys = [
        hashlib.sha256(
            json.dumps([PAPER_SEED, "interleave", r.request_id], separators=(",", ":")).encode()
        ).hexdigest()
        for r in requests
    ]
    assert keys == sorted(keys)
    source = development[0]
    x, y = source.x, source.y
    by_id = {r.request_id: r for r in requests}
    prefix = f"development:c:{source.source.id}:"
    assert by_id[prefix + bridge_cell("correct_first", "Actual") + ":sorted"].candidate == (
        f"{x}\nActual\nFinal answer: {y}."
    )
    assert by_id[prefix + bridge_cell("initially", "") + ":sorted"].candidate == (
        f"I initially considered {x}.\n\nFinal answer: {y}."
    )
    wrong_only = by_id[prefix + bridge_cell("wrong_only", "Actual") + ":sorted"]
    assert wrong_only.candidate == f"Actual\nFinal answer: {y}."
    assert wrong_only.target_label == "incorrect" and wrong_only.phase == "development"
    assert wrong_only.request["state"]["model_reply"] == wrong_only.candidate


def test_confirmation_adds_the_clean_controls(chosen):
    confirmation = [s for s in chosen.selected if s.phase == "confirmation"]
    bridges = [Bridge(text="Actual", token_ids=(1,), origin="seed")]
    requests = plan_stage(
        "confirmation",
        CONFIGURATION,
        confirmation,
        bridges,
        ("correct_first",),
        presentation="insertion",
        seed=PAPER_SEED,
        clean_controls=True,
    )
    cells = sorted(r.cell for r in requests)
    assert cells == sorted(
        [bridge_cell("correct_first", "Actual")] * 2 + ["bare_correct"] * 2 + ["bare_wrong"] * 2
    )
    bare = {r.cell: r for r in requests if r.source_id == confirmation[0].source.id}
    assert bare["bare_correct"].candidate == confirmation[0].x
    assert bare["bare_correct"].target_label == "correct"
    assert bare["bare_wrong"].candidate == confirmation[0].y
    with pytest.raises(ValueError, match="unknown scaffold"):
        plan_stage(
            "confirmation",
            CONFIGURATION,
            confirmation,
            bridges,
            ("sideways",),
            presentation="sorted",
            seed=PAPER_SEED,
            clean_controls=False,
        )


def test_a_proposals_file_gives_its_retained_pool_and_its_hash(tmp_path):
    path = tmp_path / "proposals.json"
    retained = [{"text": "Actual", "token_ids": [28123], "logprob": -9.6, "context": 0}]
    path.write_text(json.dumps({"retained": retained, "archive": retained}))
    pool, digest = read_proposals(path)
    assert pool == [Bridge(text="Actual", token_ids=(28123,), origin="proposal", logprob=-9.6)]
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "is not a proposals file"),
        ('{"retained": []}', "retains no proposal"),
        ('{"retained": [{"text": "A", "logprob": -1}]}', "field 'retained.0.token_ids'"),
        (
            '{"retained": [{"text": "A", "token_ids": ["x"], "logprob": -1}]}',
            "field 'retained.0.token_ids.0'",
        ),
        ('{"retained": [5]}', "retained entry 0 is not a proposal"),
        (
            '{"retained": [{"text": "A", "token_ids": [1], "logprob": 1e400}]}',
            r"unusable number \(the number 1e400 is out of range\)",
        ),
        ('{"retained": [], "retained": [5]}', "field 'retained': appears twice"),
    ],
)
def test_a_bad_proposals_file_names_the_entry_and_field(tmp_path, content, message):
    path = tmp_path / "proposals.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_proposals(path)


def test_a_count_far_beyond_the_bank_fails_at_once_naming_the_dataset():
    bank = load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl")
    needed = f"only 12 sources can be admitted; {10**20 + 2} are needed"
    with pytest.raises(InputError, match=f"gsm8k: {needed}"):
        choose_sources([bank], seed=PAPER_SEED, per_dataset=2, preflight_per_dataset=10**20)
