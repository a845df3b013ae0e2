"""Long items cut at the token limit: the fewest leading context words, recorded, not refused."""

from __future__ import annotations

import pytest

from readout_audit import InputError, RecoverRun, RunSettings, read_run
from readout_audit.data import generate_controlled_logic
from readout_audit.recover import RecoverSetup, RecoverSplits, audit_recover, plan_items
from readout_audit.recover._kind import RECOVER
from readout_audit.recover._setup import Configuration
from readout_audit.recover._truncate import fit_to_limit
from readout_audit.scoring._audit import prepare

LIMIT = 150
"""Below the rendered length of most depth-split items (about 170-230 tokens), above their
prompt without the context."""


def _length(prepared):
    return len(prepared.rendering.token_ids) + max(len(e.token_ids) for e in prepared.encodings)


def _build(codec):
    def build(source):
        built = Configuration("main", "words").item(source, chat=True)
        return prepare(built, codec, {}, 0, "main/words")

    return build


def test_the_fewest_leading_words_are_cut_and_the_rest_is_kept(model):
    build = _build(model.codec)
    items = generate_controlled_logic("depth", 6, 0)
    cut = 0
    for item in items:
        fitted = fit_to_limit(item, build, LIMIT)
        words = item.context.split()
        assert fitted.source.statement == item.statement and fitted.source.id == item.id
        assert _length(fitted.prepared) <= LIMIT
        assert fitted.prepared.rendering.text.endswith("Answer: <answer>")
        if _length(build(item)) <= LIMIT:
            assert (fitted.dropped_words, fitted.dropped_tokens, fitted.source) == (0, 0, item)
            continue
        cut += 1
        assert fitted.source.context == " ".join(words[fitted.dropped_words :])
        one_fewer = item.model_copy(update={"context": " ".join(words[fitted.dropped_words - 1 :])})
        assert _length(build(one_fewer)) > LIMIT  # no fewer words would do
        full = len(build(item).rendering.token_ids)
        assert fitted.dropped_tokens == full - len(fitted.prepared.rendering.token_ids) > 0
    assert cut >= 3
    with pytest.raises(InputError, match="even without its context") as error:
        fit_to_limit(items[0], build, 40)
    assert error.value.item_id == items[0].id


def test_a_run_records_what_it_cut_and_warns(model, tmp_path):
    splits = RecoverSplits(  # no probe-training split: probes need more rows than three
        fit=generate_controlled_logic("fit", 3, 1),
        evals={"depth": generate_controlled_logic("depth", 3, 1)},
    )
    setup = RecoverSetup(max_tokens=LIMIT, n_perm=100, n_boot=100, layers=(30,))
    planned = plan_items(splits, setup, model.codec, {})
    settings = RecoverRun(splits=splits, setup=setup)
    audit_recover(model, settings, tmp_path / "run", RunSettings(batch_size=9))
    run = read_run(tmp_path / "run")
    assert run.manifest.config["max_tokens"] == LIMIT
    by_id = {(p.split, p.source.id): p for p in planned}
    cut = [r for r in run.records if r.truncated_words]
    per_split = {split: sum(r.split == split for r in cut) for split in ("fit", "depth")}
    assert per_split["depth"] >= 2
    for record in run.records:
        plan = by_id[record.split, record.item_id]
        assert (record.truncated_words, record.truncated_tokens) == (
            plan.dropped_words,
            plan.dropped_tokens,
        )
        assert record.text == f"{plan.source.context}\n{plan.source.statement}"
        assert record.n_tokens == len(plan.prepared.rendering.token_ids)
    (check,) = [c for c in RECOVER.summary(run).checks if c.name == "truncation"]
    assert check.verdict == "warn"
    assert check.evidence["per_split"] == {split: n for split, n in per_split.items() if n}
