"""The recovery run on the embedded model: readouts from one forward, arrays, refits, seeds."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from readout_audit import RecoverRun, RunSettings, read_run
from readout_audit.data import generate_controlled_logic
from readout_audit.data._logic import LABELS
from readout_audit.prompt import render
from readout_audit.recover import RecoverSetup, RecoverSplits, audit_recover
from readout_audit.recover._held_out import OFFSET, WHOLE_PROBE
from readout_audit.recover._kind import RECOVER
from readout_audit.recover._offsets import corrected_predictions
from readout_audit.recover._probes import probe_predictions
from readout_audit.recover._setup import Configuration
from readout_audit.recover._slices import tfidf_predictions
from readout_audit.recover._store import HiddenLayout, read_hidden
from readout_audit.recover._tables import Table
from readout_audit.report import render_html

pytestmark = pytest.mark.cost(40)

SIZES = {"train": 12, "fit": 26, "lexical": 12}
"""Generated items per split (seed 3). The run costs one forward per item, so each split is as
small as its checks allow. The fit split's 26 rows are one more than the paper's smallest fit
budget (25): its budget curve holds a subsampled budget and the whole split. The probe-training
and held-out splits hold 12 each, every label twice at each generated depth (1, 2): every seed's
bootstrap replicate of the training rows then holds the three labels, and on these items each
probe readout's seeds disagree on at least 3 held-out examples (with 6 held-out items one
readout's seeds agreed on all of them, which adds a ``probe_seeds`` check to the three that
``test_checks_read_the_unlabelled_fit_split_and_the_slot_mass`` expects)."""
N_RECORDS = sum(SIZES.values())
SETUP = RecoverSetup(n_perm=500, n_boot=500, probe_rows=SIZES["train"])
"""The probes take no more rows than the training split holds: each seed fits its own bootstrap
replicate of them."""


def _items(split):
    return generate_controlled_logic(split, SIZES[split], 3)


@pytest.fixture(scope="module")
def splits():
    return RecoverSplits(
        train=_items("train"), fit=_items("fit"), evals={"lexical": _items("lexical")}
    )


@pytest.fixture(scope="module")
def run_dir(model, splits, tmp_path_factory):
    out = tmp_path_factory.mktemp("recover") / "run"
    audit_recover(model, RecoverRun(splits=splits, setup=SETUP), out, RunSettings(batch_size=8))
    return out


@pytest.fixture(scope="module")
def summary(run_dir):
    """The summary recomputed from the run's files (the run wrote its own when it finished)."""
    return RECOVER.summary(read_run(run_dir))


def test_records_hold_every_readout_of_one_forward(run_dir, splits):
    run = read_run(run_dir)
    assert len(run.records) == N_RECORDS
    assert Counter(r.split for r in run.records) == SIZES
    fit = [r for r in run.records if r.role == "fit"]
    assert fit and all(r.label is None for r in fit)  # the fit split's labels are never kept
    for record in run.records:
        assert record.rendered_tail.endswith("Answer: <answer>")
        assert record.options == ["true</answer>", "false</answer>", "unknown</answer>"]
        assert record.boundary_preserved and record.distinct_first_tokens
        assert 0 < record.prompt_end_index < record.scored_index
        # label logits through the output layer differ like the first-token log-probabilities
        # of the same forward (log-softmax only subtracts one constant per position)
        z = np.array(record.label_logits)
        first = np.array([t[0] for t in record.option_token_logprobs])
        np.testing.assert_allclose(z - z[0], first - first[0], atol=2e-3)


def test_stored_hidden_states_equal_a_plain_forward(run_dir, model, torch_model, float32_budget):
    run = read_run(run_dir)
    layout = HiddenLayout.from_config(run.manifest.config["hidden"])
    assert layout.layers == (15, 30)
    states = read_hidden(run_dir, layout)
    record = max(run.records, key=lambda r: r.n_tokens)
    source = next(i for i in _items(record.split) if i.id == record.item_id)
    if record.role == "fit":
        source = source.model_copy(update={"label": None})
    ids = render(Configuration("main", "words").item(source, chat=True), model.codec).token_ids
    assert len(ids) == record.n_tokens
    with torch.inference_mode():
        out = torch_model(input_ids=torch.tensor([ids]), output_hidden_states=True)
    for p, position in enumerate((record.prompt_end_index, len(ids) - 1)):
        for j, layer in enumerate(layout.layers):
            expected = out.hidden_states[layer][0, position].numpy()
            np.testing.assert_allclose(states[record.hidden_row, p, j], expected, atol=5e-3)
    # the logit lens: an earlier layer through the final norm, every layer through the head
    first = [t[0] for t in record.option_token_ids]
    head = torch_model.get_output_embeddings().weight[first]
    with torch.inference_mode():
        for p, position in enumerate((record.prompt_end_index, len(ids) - 1)):
            for j, layer in enumerate(layout.layers):
                state = out.hidden_states[layer][0, position]
                if layer != layout.layers[-1]:
                    state = torch_model.model.norm(state)
                expected = (head @ state).numpy()
                np.testing.assert_allclose(record.layer_logits[p][j], expected, atol=2e-2)
    # the last layer at the answer slot is the label readout, read from the same stored state
    np.testing.assert_allclose(
        record.layer_logits[1][-1], record.label_logits, atol=float32_budget(record.n_tokens)
    )


def test_probes_refit_from_the_stored_arrays_equal_the_runs(run_dir):
    run = read_run(run_dir)
    summary = json.loads((run_dir / "summary.json").read_text())
    config = run.manifest.config
    states = read_hidden(run_dir, HiddenLayout.from_config(config["hidden"]))
    train = Table.of([r for r in run.records if r.role == "train"])
    held = Table.of([r for r in run.records if r.split == "lexical"])
    predictions = probe_predictions(
        train.hidden(states, 1, 1),
        train.labels,
        {"lexical": held.hidden(states, 1, 1)},
        seeds=tuple(config["probe_seeds"]),
        max_rows=config["probe_rows"],
    )
    accuracy = float(np.mean(predictions["lexical"] == held.labels))
    split = summary["configurations"][0]["splits"][0]
    found = {r["readout"]: r["accuracy"] for r in split["readouts"]}
    assert found["answer-slot probe"] == accuracy
    assert found["full string"] == float(np.mean(np.argmax(held.sums, axis=1) == held.labels))


def test_beside_bootstrap_replicates_one_probe_fits_every_training_row(run_dir, summary):
    """12 training rows, 12 taken per probe: the seeds fit replicates (about 63% distinct rows
    each), so the answer-slot probe fitted once on all 12 is shown beside them, here refitted
    with scikit-learn's own pipeline on the stored hidden states."""
    run = read_run(run_dir)
    states = read_hidden(run_dir, HiddenLayout.from_config(run.manifest.config["hidden"]))
    train = Table.of([r for r in run.records if r.role == "train"])
    held = Table.of([r for r in run.records if r.split == "lexical"])
    pipeline = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
    pipeline.fit(train.hidden(states, 1, 1), train.labels)
    expected = np.mean(pipeline.predict(held.hidden(states, 1, 1)) == held.labels)
    (split,) = summary.configurations[0].splits
    (whole,) = [r for r in split.readouts if r.readout == WHOLE_PROBE]
    assert whole.accuracy == pytest.approx(expected, abs=1e-12)
    assert whole.n == 12 and whole.sd is None
    # Table 17's last point is that probe, its control every row under each seed's shuffle
    (size,) = summary.configurations[0].probe_sizes
    assert size.accuracy["lexical"] == pytest.approx(expected, abs=1e-12)
    shuffled = [
        pipeline.fit(
            train.hidden(states, 1, 1), np.random.default_rng(s).permutation(train.labels)
        ).predict(held.hidden(states, 1, 1))
        for s in run.manifest.config["probe_seeds"]
    ]
    assert size.shuffled["lexical"] == pytest.approx(
        np.mean(np.array(shuffled) == held.labels), abs=1e-12
    )
    html = render_html(read_run(run_dir))
    assert "one fit on every row" in html and "corrected collapse" in html
    assert "all 12 rows (one fit)" in html


def test_analysis_is_deterministic_under_its_seeds(run_dir, summary):
    run = read_run(run_dir)
    # the summary the run wrote when it finished, read back, against one computed afresh from
    # the same files (the module's `summary`, shared with the checks' test)
    assert run.summary is not None
    first = summary.model_dump()
    assert first["configurations"] == run.summary.model_dump()["configurations"]
    split = first["configurations"][0]["splits"][0]
    # the paper's budgets below the fit split's 26 rows (25, in 30 subsamples), then all of it
    assert [(b["budget"], b["draws"]) for b in split["budgets"]] == [(25, 30), (26, 1)]
    reseeded = run.manifest.model_copy(update={"config": {**run.manifest.config, "seed": 1}})
    other = RECOVER.summary(
        type(run)(directory=run.directory, manifest=reseeded, records=run.records, summary=None)
    )
    null_a = split["null"]
    null_b = other.configurations[0].splits[0].null
    assert null_a["observed"] == null_b.observed and null_a["null_mean"] != null_b.null_mean


def test_resuming_a_finished_run_scores_nothing(run_dir, model, splits):
    settings = RecoverRun(splits=splits, setup=SETUP)
    result = audit_recover(model, settings, run_dir, RunSettings(batch_size=8))
    assert result.n_new == 0
    row = HiddenLayout((15, 30), 576).row_bytes
    assert (run_dir / "hidden.f32").stat().st_size == N_RECORDS * row
    assert LABELS == ("true", "false", "unknown")


def test_an_interrupted_run_is_summarised_and_reported(run_dir):
    run = read_run(run_dir)
    early = type(run)(
        directory=run.directory,
        manifest=run.manifest,
        records=[r for r in run.records if r.role == "train"],
        summary=None,
    )
    summary = RECOVER.summary(early)
    assert summary.configurations == [] and summary.n_records == SIZES["train"]
    assert [s.title for s in RECOVER.sections(early, summary)] == []


def test_html_report_draws_every_section(run_dir):
    html = render_html(read_run(run_dir))
    for title in (
        "Held-out accuracy by readout",
        "Count-preserving permutation null",
        "TF-IDF-missed slice",
        "Prior perturbation",
        "Corrected held-out accuracy by unlabelled fit budget",
        "Prediction histograms",
        "Per-depth strata",
        "Surface leakage",
        "Output layer at every stored position and layer",
        "Best native readout against the probes",
        "Answer-slot probe (last layer) by training rows",
        "Probe targets",
        "Probe direction stability",
    ):
        assert title in html
    assert html.count("<svg") == 3  # the histograms, the null of the one held-out split, budgets


def test_checks_read_the_unlabelled_fit_split_and_the_slot_mass(run_dir, summary):
    run = read_run(run_dir)
    checks = {c.name: c for c in summary.checks}
    assert list(checks) == ["candidates", "label_mass", "collapse"]
    fit = [r for r in run.records if r.role == "fit"]
    picks = [LABELS[int(np.argmax(r.option_logprobs))] for r in fit]
    assert checks["collapse"].evidence["histogram"] == {y: picks.count(y) for y in LABELS}
    median = float(np.median([r.option_mass for r in run.records]))
    assert checks["label_mass"].evidence["median_mass"] == pytest.approx(median, rel=1e-12)


def test_depth_strata_leakage_and_intervals_from_the_records(run_dir, summary):
    run = read_run(run_dir)
    config = summary.configurations[0]
    (split,) = config.splits
    table = Table.of([r for r in run.records if r.split == "lexical"])
    corrected = corrected_predictions(table.sums, np.array(config.offsets))
    assert [d.depth for d in split.depths] == [1, 2]
    for stratum in split.depths:
        rows = np.array([r.depth == stratum.depth for r in table.records])
        assert stratum.n == rows.sum() == 6
        string = np.mean(np.argmax(table.sums[rows], axis=1) == table.labels[rows])
        assert stratum.accuracies["full string"] == string
        assert stratum.accuracies[OFFSET] == np.mean(corrected[rows] == table.labels[rows])
    recovery = split.recovery
    # Table 18's "Cal. Collapse": the largest share of one corrected held-out prediction
    assert recovery.corrected_collapse == np.bincount(corrected, minlength=3).max() / 12
    low, high = recovery.corrected_interval
    assert low <= recovery.corrected_accuracy <= high
    low, high = recovery.gain_interval
    assert low <= recovery.corrected_accuracy - recovery.raw_accuracy <= high
    leakage = {row.group: row.accuracies["lexical"] for row in summary.leakage}
    assert list(leakage) == [
        "full text",
        "query only",
        "facts only",
        "prop-redacted",
        "template only",
        "metadata (no polarity)",
        "metadata (all)",
    ]
    train = Table.of([r for r in run.records if r.role == "train"])
    predicted = tfidf_predictions(
        [r.text for r in train.records], train.labels, [r.text for r in table.records]
    )
    assert leakage["full text"] == split.tfidf.tfidf_accuracy == np.mean(predicted == table.labels)
    assert leakage["metadata (all)"] == 1.0  # the polarity on the asked chain decides the label
    fit = [r for r in run.records if r.role == "fit"]
    assert fit and not any("polarity" in r.metadata for r in fit)  # dropped with the labels
    assert [p.n_priors for p in split.priors] == [7, 19, 61]
    # the output layer at every stored position and layer, the training split's best marked
    train_lens = np.array([r.layer_logits for r in train.records])
    lens = np.array([r.layer_logits for r in table.records])
    train_accuracy = np.mean(np.argmax(train_lens, axis=3) == train.labels[:, None, None], axis=0)
    accuracy = np.mean(np.argmax(lens, axis=3) == table.labels[:, None, None], axis=0)
    assert [(r.position, r.layer, r.accuracy) for r in split.native] == [
        (position, layer, accuracy[p, j])
        for p, position in enumerate(("prompt end", "answer slot"))
        for j, layer in enumerate((15, 30))
    ]
    (chosen,) = [r for r in split.native if r.selected]
    p = ("prompt end", "answer slot").index(chosen.position)
    assert train_accuracy[p, (15, 30).index(chosen.layer)] == train_accuracy.max()
    found = {r.readout: r.accuracy for r in split.readouts}
    assert found["label logits"] == accuracy[1, 1]  # the slot's last layer is the label logits
    # probe audits: all 12 training rows is the one probe on every row, not the seeds' replicates
    (size,) = config.probe_sizes
    assert size.size == 12 and size.sd is None
    assert size.accuracy["lexical"] == pytest.approx(found[WHOLE_PROBE], abs=1e-12)
    auxiliary = {a.target: a for a in config.auxiliary}
    assert auxiliary["depth"].classes == 2 and auxiliary["depth"].baseline["lexical"] == 0.5
    properties = {r.metadata["property"] for r in train.records}
    assert auxiliary["query"].classes == len(properties)
    assert [(d.source, d.layer, d.transfer) for d in config.directions] == [
        ("lexical", 15, {}),
        ("lexical", 30, {}),
    ]
    assert [p.n for p in split.tfidf.priors] == [split.tfidf.n_missed] * 3


def test_splits_drawn_at_other_seeds_are_aggregated(run_dir, summary):
    """Two copies of the held-out records named as seeds: the aggregate of their own rows."""
    run = read_run(run_dir)
    lexical = [r for r in run.records if r.split == "lexical"]
    copies = [r.model_copy(update={"split": "lexical@52"}) for r in lexical]
    copies += [r.model_copy(update={"split": "lexical@62"}) for r in lexical[:8]]
    seeded = type(run)(
        directory=run.directory,
        manifest=run.manifest,
        records=[*run.records, *copies],
        summary=None,
    )
    result = RECOVER.summary(seeded)
    config = result.configurations[0]
    by = {s.split: s for s in config.splits}
    assert by["lexical@52"].recovery == summary.configurations[0].splits[0].recovery
    (aggregate,) = config.seed_aggregates
    assert (aggregate.split, aggregate.seeds, aggregate.n) == ("lexical", [52, 62], [12, 8])
    seeds = [by["lexical@52"], by["lexical@62"]]
    corrected = [s.recovery.corrected_accuracy for s in seeds]
    assert aggregate.corrected == pytest.approx((np.mean(corrected), np.std(corrected, ddof=1)))
    gains = [s.recovery.corrected_accuracy - s.recovery.raw_accuracy for s in seeds]
    assert aggregate.min_gain == min(gains)
    assert aggregate.null_gap == pytest.approx(np.mean([s.null.gap for s in seeds]))
    assert aggregate.tfidf_n == pytest.approx(
        (
            np.mean([s.tfidf.n_missed for s in seeds]),
            np.std([s.tfidf.n_missed for s in seeds], ddof=1),
        )
    )
    titles = [section.title for section in RECOVER.sections(seeded, result)]
    assert "Generator seeds · main/words" in titles and "Surface leakage" in titles
