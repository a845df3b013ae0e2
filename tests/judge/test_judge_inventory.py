"""Inventories: source selection and exclusions, planned requests, order, files and manifest."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from readout_audit import InputError
from readout_audit.judge import (
    PAPER_SEED,
    build_inventory,
    load_drop_json,
    load_gsm8k_jsonl,
    parse_configuration,
    read_inventory,
    write_inventory,
)
from readout_audit.judge.inventory import (
    INVENTORY_FILE,
    MANIFEST_FILE,
    OUTCOME_FILE,
    PriorSources,
    Source,
    SourceBank,
    normalise_question,
    read_planned,
    select_sources,
)
from readout_audit.judge.protocol import CONFIRMATION_CELLS, PREFLIGHT_CELLS, PRESENTATIONS

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
CONFIGURATIONS = [
    parse_configuration("f3=FINAL3@smollm2-135m", PAPER_SEED),
    parse_configuration("f4=FINAL4@openai:http://127.0.0.1:8080/v1#smollm2", PAPER_SEED + 1),
]


def banks():
    return [
        load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl"),
        load_drop_json(FIXTURES / "drop_rows.jsonl"),
    ]


def build(seed=PAPER_SEED, per_dataset=2, preflight=1, priors=()):
    return build_inventory(
        banks(),
        CONFIGURATIONS,
        seed=seed,
        per_dataset=per_dataset,
        preflight_per_dataset=preflight,
        priors=priors,
    )


def test_configurations_parse():
    local, served = CONFIGURATIONS
    assert (local.name, local.contract, local.judge, local.model) == (
        "f3",
        "FINAL3",
        "smollm2-135m",
        "smollm2-135m",
    )
    assert (served.model, served.bootstrap_seed) == ("smollm2", 20261007155)
    with_at = parse_configuration("h=HALL@hf:org/model@abc123", 5)
    assert (with_at.contract, with_at.judge) == ("HALL", "hf:org/model@abc123")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("f3=FINAL3", "expected NAME=CONTRACT@JUDGESPEC"),
        ("FINAL3@smollm2-135m", "expected NAME=CONTRACT@JUDGESPEC"),
        ("f5=FINAL5@smollm2-135m", "'FINAL5' is not a contract"),
        ("a:b=FINAL3@smollm2-135m", "'a:b' must be letters"),
        ("f3=FINAL3@openai:http://h/v1", "malformed served model spec"),
        ("f3=FINAL3@llama", "unknown model spec 'llama'"),
    ],
)
def test_bad_configurations_are_refused(text, message):
    with pytest.raises(InputError, match=message):
        parse_configuration(text, 0)


def test_each_source_gets_sixteen_confirmation_and_twelve_preflight_calls():
    inventory = build()
    cells = Counter(
        (r.phase, r.configuration, r.source_id, r.cell, r.presentation) for r in inventory.requests
    )
    assert set(cells.values()) == {1}
    per_source = Counter((r.phase, r.configuration, r.source_id) for r in inventory.requests)
    phases = {
        phase: {n for (p, _, _), n in per_source.items() if p == phase}
        for phase in ("preflight", "confirmation")
    }
    assert phases == {"preflight": {12}, "confirmation": {16}}
    # 2 datasets x (1 preflight x 12 + 2 confirmation x 16) x 2 configurations.
    assert len(inventory.requests) == 2 * (12 + 32) * 2 == 176
    assert inventory.outcome.counts == {
        "sources": {"preflight": 2, "confirmation": 4},
        "requests": {"preflight": 48, "confirmation": 128, "total": 176},
        "per_source": {"preflight": 12, "confirmation": 16},
        "configurations": {"f3": 88, "f4": 88},
    }
    for request in inventory.requests:
        assert request.request_id == ":".join(
            (
                request.phase,
                request.configuration,
                request.source_id,
                request.cell,
                request.presentation,
            )
        )
        cells_of_phase = PREFLIGHT_CELLS if request.phase == "preflight" else CONFIRMATION_CELLS
        assert request.cell in cells_of_phase and request.presentation in PRESENTATIONS


def test_requests_carry_the_candidate_targets_and_hashes():
    inventory = build()
    by_id = {r.request_id: r for r in inventory.requests}
    source = next(s for s in inventory.outcome.sources if s.phase == "confirmation")
    stem = f"confirmation:f4:{source.id}"
    colon = by_id[f"{stem}:random_colon:sorted"]
    assert colon.candidate == f"{source.x}\n{source.letters}:\nFinal answer: {source.y}."
    assert colon.request["state"]["model_reply"] == colon.candidate
    assert colon.distance == source.distance and colon.target_label == "incorrect"
    assert next(iter(colon.request["criteria"])) == "ambiguous"
    assert by_id[f"{stem}:bare_correct:insertion"].distance is None
    assert by_id[f"{stem}:revision:insertion"].target_label == "correct"
    # Identical-body repeats: same wire bytes, own request ids.
    repeat = by_id[f"{stem}:random_colon_repeat:sorted"]
    assert (repeat.wire_sha256, repeat.content_sha256) == (colon.wire_sha256, colon.content_sha256)
    insertion = by_id[f"{stem}:random_colon:insertion"]
    assert insertion.content_sha256 == colon.content_sha256
    assert insertion.wire_sha256 != colon.wire_sha256
    preflight = next(s for s in inventory.outcome.sources if s.phase == "preflight")
    unresolved = by_id[f"preflight:f4:{preflight.id}:unresolved:insertion"]
    assert unresolved.candidate == f"Final answer: {preflight.x} or {preflight.y}."
    assert unresolved.target_label == "ambiguous"
    assert by_id[f"preflight:f3:{preflight.id}:unresolved:insertion"].target_label == "no_answer"


def test_the_order_is_sha256_of_seed_interleave_request_id():
    inventory = build(seed=31)

    def independent(request_id):
        text = json.dumps([31, "interleave", request_id], separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    ids = [r.request_id for r in inventory.requests]
    assert ids == sorted(ids, key=independent)
    # Configurations, presentations and phases are mixed, not blocked.
    assert len({r.configuration for r in inventory.requests[:8]}) == 2
    assert len({r.presentation for r in inventory.requests[:8]}) == 2


def test_same_seed_gives_byte_identical_files(tmp_path):
    write_inventory(tmp_path / "a", build())
    write_inventory(tmp_path / "b", build())
    write_inventory(tmp_path / "c", build(seed=PAPER_SEED + 1))
    for name in (INVENTORY_FILE, OUTCOME_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
        assert (tmp_path / "a" / name).read_bytes() != (tmp_path / "c" / name).read_bytes()
    settings = [json.loads((tmp_path / n / MANIFEST_FILE).read_text())["config"] for n in "abc"]
    assert settings[0] == settings[1] != settings[2]
    manifest = json.loads((tmp_path / "a" / OUTCOME_FILE).read_text())
    data = (tmp_path / "a" / INVENTORY_FILE).read_bytes()
    assert manifest["inventory_sha256"] == hashlib.sha256(data).hexdigest()
    lines = data.decode().splitlines()
    assert [json.loads(line)["request_id"] for line in lines] == [
        entry["request_id"] for entry in manifest["requests"]
    ]
    assert [json.loads(line)["wire_sha256"] for line in lines] == [
        entry["wire_sha256"] for entry in manifest["requests"]
    ]


def test_preflight_and_confirmation_are_disjoint_and_distances_alternate():
    inventory = build(per_dataset=4, preflight=2, seed=3)
    sources = inventory.outcome.sources
    preflight = {s.id for s in sources if s.phase == "preflight"}
    confirmation = {s.id for s in sources if s.phase == "confirmation"}
    assert len(preflight) == 4 and len(confirmation) == 8 and not preflight & confirmation
    assert len({(s.dataset, s.cluster) for s in sources}) == len(sources)
    for dataset in ("gsm8k", "drop"):
        for phase in ("preflight", "confirmation"):
            distances = [s.distance for s in sources if (s.dataset, s.phase) == (dataset, phase)]
            assert distances == ["near", "far"] * (len(distances) // 2)
    for s in sources:
        x, y = float(s.x), float(s.y)
        assert y == (x + 1 if s.distance == "near" else x + max(2 * abs(x), 40))


def source(source_id, cluster, question, references=(14.0,)):
    return Source(
        id=source_id,
        dataset="toy",
        cluster=cluster,
        question=question,
        references=references,
        evidence="E.",
        normalised_question=normalise_question(question),
    )


def toy_bank(*sources):
    return SourceBank("toy", list(sources), rows=len(sources))


def test_one_question_per_cluster_and_per_normalised_question():
    bank = toy_bank(
        source("toy:a", "c1", "How many eggs?"),
        source("toy:b", "c1", "How many hens?"),
        source("toy:c", "c2", "how many EGGS"),
        source("toy:d", "c3", "How many ducks?"),
    )
    seed = seed_ordering([s.id for s in bank.sources], ["toy:a", "toy:b", "toy:c"])
    selected, exclusions = select_sources([bank], seed, 2, 0)
    assert [s.source.id for s in selected] == ["toy:a", "toy:d"]
    assert (exclusions["toy"]["cluster_repeat"], exclusions["toy"]["question_repeat"]) == (1, 1)
    with pytest.raises(
        InputError,
        match=r"only 2 sources can be admitted; 3 are needed \(0 preflight or development, 3 "
        r"confirmation\)",
    ):
        select_sources([bank], 0, 3, 0)
    with pytest.raises(InputError, match="each dataset once"):
        select_sources([bank, bank], 0, 1, 0)


def seed_ordering(ids, first):
    """A seed whose sampling order begins with ``first`` (computed independently)."""

    def order(seed):
        key = {i: hashlib.sha256(f'[{seed},"source","{i}"]'.encode()).hexdigest() for i in ids}
        return sorted(ids, key=key.get)

    return next(seed for seed in range(10_000) if order(seed)[: len(first)] == first)


@pytest.mark.parametrize(
    ("references", "first", "distance"),
    [
        ((2.0, 3.0), ["toy:m"], "near"),  # X = 2, near Y = 3 is a reference
        ((5.0, 45.0), ["toy:n", "toy:m"], "far"),  # X = 5, far Y = 45 is a reference
    ],
)
def test_a_mutation_equal_to_a_reference_excludes_the_source(references, first, distance):
    bank = toy_bank(
        source("toy:m", "c1", "How many?", references),
        source("toy:n", "c2", "How many eggs?"),
        source("toy:e", "c3", "How many hens?"),
        source("toy:f", "c4", "How many ducks?"),
    )
    seed = seed_ordering([s.id for s in bank.sources], first)
    selected, exclusions = select_sources([bank], seed, len(first), 0)
    assert exclusions["toy"]["mutation_matches_reference"] == 1
    assert "toy:m" not in {s.source.id for s in selected}
    assert [s.distance for s in selected] == ["near", "far"][: len(first)]
    assert selected[-1].distance == distance


def test_earlier_inventories_exclude_by_id_cluster_and_normalised_question():
    prior = PriorSources(ids={"toy:a"}, clusters={("toy", "c2")}, questions={"how many ducks"})
    bank = toy_bank(
        source("toy:a", "c1", "How many eggs?"),
        source("toy:b", "c2", "How many hens?"),
        source("toy:c", "c3", "How many ducks?"),
        source("toy:d", "c4", "How many geese?"),
    )
    selected, exclusions = select_sources([bank], 0, 1, 0, prior)
    assert [s.source.id for s in selected] == ["toy:d"]
    assert exclusions["toy"] == {
        "prior_id": 1,
        "prior_cluster": 1,
        "prior_question": 1,
        "cluster_repeat": 0,
        "question_repeat": 0,
        "mutation_matches_reference": 0,
    }


def test_a_new_inventory_excludes_an_earlier_one(tmp_path):
    write_inventory(tmp_path / "first", build(seed=1))
    prior = read_planned(tmp_path / "first")
    second = build(seed=2, priors=[prior])
    first_sources = read_inventory(tmp_path / "first").outcome.sources
    assert {s.id for s in first_sources}.isdisjoint(s.id for s in second.outcome.sources)
    assert {s.cluster for s in first_sources}.isdisjoint(s.cluster for s in second.outcome.sources)
    name, sha, count = prior[0].name, prior[0].sha256, prior[0].sources
    data = (tmp_path / "first" / INVENTORY_FILE).read_bytes()
    assert (name, sha, count) == ("inventory.jsonl", hashlib.sha256(data).hexdigest(), 6)
    assert second.settings.priors == [prior[0]]
    assert second.outcome.exclusions["gsm8k"]["prior_id"] == 3
    assert second.outcome.exclusions["drop"]["prior_id"] == 3


def test_read_back_checks_every_hash(tmp_path):
    inventory = build()
    write_inventory(tmp_path, inventory)
    again = read_inventory(tmp_path)
    assert again.requests == inventory.requests and (again.settings, again.outcome) == (
        inventory.settings,
        inventory.outcome,
    )
    path = tmp_path / INVENTORY_FILE
    original = path.read_text()
    lines = original.splitlines(keepends=True)

    row = json.loads(lines[4])
    row["request"]["state"]["question"] += " "
    path.write_text("".join([*lines[:4], json.dumps(row, ensure_ascii=False) + "\n", *lines[5:]]))
    with pytest.raises(InputError, match="does not match the rebuilt wire body") as caught:
        read_inventory(tmp_path)
    assert (caught.value.line, caught.value.field) == (5, "wire_sha256")
    assert caught.value.item_id == row["request_id"]

    path.write_text("".join([lines[1], lines[0], *lines[2:]]))
    with pytest.raises(InputError, match="not the outcome's request at this line") as caught:
        read_inventory(tmp_path)
    assert caught.value.line == 1

    path.write_text(original + "\n")  # a blank line: every row checks, the file hash does not
    with pytest.raises(InputError, match="inventory_sha256"):
        read_inventory(tmp_path)

    path.write_text(original)
    (tmp_path / MANIFEST_FILE).unlink()
    with pytest.raises(InputError, match="no such manifest"):
        read_inventory(tmp_path)
