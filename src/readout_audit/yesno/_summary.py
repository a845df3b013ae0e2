"""The yes/no audit's summary from its records alone: metrics, first tokens, transitions, checks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from readout_audit.log import Check, Interval, PairedScores, Summary
from readout_audit.readout import Answer, yes_no_form
from readout_audit.stats import (
    BINARY_METRICS,
    binary_scores,
    binary_scores_bootstrap,
    f1_closed_form,
    resampling_clusters,
    transition_table,
)
from readout_audit.yesno._record import YesNoRecord

READOUTS = (
    "legacy_pair",
    "legacy_set",
    "algorithm1",
    "dynamic",
    "dynamic_in_context",
    "string_parse",
)
REFERENCE = "dynamic"
"""The readout the closed form starts from (the paper's eight-token rule)."""
EXTENSION = "dynamic_in_context"
"""The in-context extension, compared with the reference when it ran."""


def _is_yes(records: Sequence[YesNoRecord], readout: str) -> np.ndarray:
    return np.array([r.decisions[readout] == "yes" for r in records], dtype=bool)


def _labels(records: Sequence[YesNoRecord]) -> np.ndarray:
    return np.array([r.label == "yes" for r in records], dtype=bool)


class YesNoMetrics(BaseModel):
    """One readout's F1 family with cluster-bootstrap intervals, and its confusion counts."""

    model_config = ConfigDict(extra="forbid")

    n: int
    undecided: int
    n_clusters: int
    f1: Interval | None = None
    precision: Interval | None = None
    recall: Interval | None = None
    yes_rate: Interval | None = None
    accuracy: Interval | None = None
    tp: int | None = None
    fp: int | None = None
    fn: int | None = None
    tn: int | None = None


class ClosedForm(BaseModel):
    """Seed 002's closed-form F1 of a readout from its transitions off the reference readout."""

    model_config = ConfigDict(extra="forbid")

    n: int
    reference: str | None = None
    T: int | None = None
    G: int | None = None
    P: int | None = None
    N: int | None = None
    rho_n: float | None = None
    phi: float | None = None
    kappa_p: float | None = None
    kappa_n: float | None = None
    b_flips_yes_to_no: int | None = None
    f1_reference: float | None = None
    f1_closed_form: float | None = None
    f1_observed: float | None = None
    exact: bool | None = None


class YesNoGroup(BaseModel):
    """The readouts over one group of questions (all, or one split)."""

    model_config = ConfigDict(extra="forbid")

    n: int
    readouts: dict[str, YesNoMetrics]
    transitions: dict[str, dict[str, dict[str, int]]]
    """Per readout pair ``a -> b``: {label: {yy, yn, ny, nn}}, a's answer first."""
    closed_form: dict[str, ClosedForm]


def readout_metrics(
    records: Sequence[YesNoRecord], readout: str, *, n_boot: int, seed: int
) -> YesNoMetrics:
    """F1, precision, recall, yes-rate and accuracy with cluster-bootstrap intervals."""
    decided = [r for r in records if r.decisions.get(readout) is not None]
    clusters = [r.cluster for r in decided]
    n, undecided = len(decided), len(records) - len(decided)
    if not decided:
        return YesNoMetrics(n=n, undecided=undecided, n_clusters=0)
    pred, label = _is_yes(decided, readout), _labels(decided)
    scores = binary_scores(pred, label)
    intervals = binary_scores_bootstrap(
        pred, label, n_boot=n_boot, seed=seed, clusters=resampling_clusters(clusters)
    )
    metrics = {
        name: Interval.from_bootstrap(
            intervals[name], clusters, n_boot=n_boot, estimate=getattr(scores, name)
        )
        for name in BINARY_METRICS
    }
    return YesNoMetrics.model_validate(
        {
            "n": n,
            "undecided": undecided,
            "n_clusters": len(set(clusters)),
            **metrics,
            "tp": scores.tp,
            "fp": scores.fp,
            "fn": scores.fn,
            "tn": scores.tn,
        }
    )


def closed_form(records: Sequence[YesNoRecord], reference: str, other: str) -> ClosedForm:
    """Seed 002's closed-form F1 of ``other`` rebuilt from its transitions off ``reference``."""
    both = [r for r in records if r.decisions.get(reference) and r.decisions.get(other) is not None]
    if not both:
        return ClosedForm(n=0)
    label = _labels(both)
    table = transition_table(_is_yes(both, reference), _is_yes(both, other), label)
    terms = table.closed_form_terms()
    counts = [int(terms[k]) for k in ("T", "G", "P", "N")]
    rebuilt = f1_closed_form(
        *counts, *(float(terms[k]) for k in ("rho_n", "phi", "kappa_p", "kappa_n"))
    )
    observed = binary_scores(_is_yes(both, other), label).f1
    return ClosedForm.model_validate(
        {
            "n": len(both),
            "reference": reference,
            **terms,
            "f1_reference": binary_scores(_is_yes(both, reference), label).f1,
            "f1_closed_form": rebuilt.f1,
            "f1_observed": observed,
            "exact": abs(rebuilt.f1 - observed) < 1e-9,
        }
    )


def _transitions(records: Sequence[YesNoRecord], names: Sequence[str]) -> dict[str, Any]:
    tables = {}
    for a, b in combinations(names, 2):
        both = [r for r in records if r.decisions[a] is not None and r.decisions[b] is not None]
        if both:
            table = transition_table(_is_yes(both, a), _is_yes(both, b), _labels(both))
            tables[f"{a} -> {b}"] = table.as_dict()
    return tables


def _group(records: Sequence[YesNoRecord], *, n_boot: int, seed: int) -> YesNoGroup:
    names = [n for n in READOUTS if all(n in r.decisions for r in records)]
    return YesNoGroup(
        n=len(records),
        readouts={n: readout_metrics(records, n, n_boot=n_boot, seed=seed) for n in names},
        transitions=_transitions(records, names),
        closed_form={n: closed_form(records, REFERENCE, n) for n in names if n != REFERENCE}
        if REFERENCE in names
        else {},
    )


def _first_tokens(records: Sequence[YesNoRecord]) -> dict[str, Any]:
    counts = Counter(r.first_token_id for r in records)
    surface = {r.first_token_id: r.first_token for r in records}
    outside = Counter(r.first_token_id for r in records if not r.first_token_in_sets)
    return {
        "emitted_first_tokens": {str(t): c for t, c in counts.most_common()},
        "first_token_strings": {str(t): surface[t] for t, _ in counts.most_common()},
        "outside_sets": {
            str(t): {"token": surface[t], "count": c} for t, c in outside.most_common()
        },
    }


def _in_context_multi(record: YesNoRecord) -> tuple[str, ...]:
    """Forms that are not one token after the rendered prompt (the in-context extension's)."""
    return tuple(
        form
        for form, tokens in zip(record.options, record.option_token_ids, strict=True)
        if tokens is None or len(tokens) != 1
    )


def _token_sets(records: Sequence[YesNoRecord]) -> list[dict[str, Any]]:
    """Each readout's distinct (yes set, no set), with each id's token and how many items."""
    found: Counter[tuple[str, tuple[int, ...], tuple[int, ...], tuple[str, ...]]] = Counter()
    tokens: dict[int, str] = {}
    for r in records:
        tokens.update(r.set_tokens)
        tokens.setdefault(r.first_token_id, r.first_token)  # records before set_tokens
        for name, (yes, no) in r.logit_sets().items():
            multi: tuple[str, ...] = ()
            if name == "dynamic":
                multi = tuple(r.multi_token_forms)
            elif name == EXTENSION:
                multi = _in_context_multi(r)
            found[(name, tuple(yes), tuple(no), multi)] += 1
    order = {name: i for i, name in enumerate(READOUTS)}
    return [
        {
            "readout": name,
            "yes": [{"id": i, "token": tokens.get(i)} for i in y],
            "no": [{"id": i, "token": tokens.get(i)} for i in n],
            "multi_token_forms": list(m),
            "n_items": c,
        }
        for (name, y, n, m), c in sorted(found.items(), key=lambda e: order[e[0][0]])
    ]


def yesno_checks(records: Sequence[YesNoRecord]) -> list[Check]:
    """Label-free checks: emitted tokens outside the sets, legacy ids never emitted, parsing."""
    checks = []
    outside = [r for r in records if not r.first_token_in_sets]
    emitted = Counter(r.first_token_id for r in records)
    checks.append(
        Check(
            name="first_tokens_in_sets",
            verdict="pass"
            if not outside
            else ("fail" if len(outside) * 2 > len(records) else "warn"),
            finding=(
                "every first generated token is in the tokenizer-derived yes or no set"
                if not outside
                else f"{len(outside)} of {len(records)} first tokens are outside both sets"
            ),
            evidence={
                "outside": dict(Counter(r.first_token for r in outside).most_common(10)),
                "n": len(records),
            },
            repair=None
            if not outside
            else "declare the yes/no forms the model writes first (--yes-form, --no-form), or "
            "change the prompt so it answers at the scored position",
        )
    )
    forms = _emitted_forms(records)
    for readout in ("legacy_pair", "legacy_set", "algorithm1"):
        fixed = [r for r in records if readout in r.decisions]
        if not fixed:
            continue
        ids = [i for side in fixed[0].logit_sets()[readout] for i in side]
        hits = sum(emitted[i] for i in ids)
        missed = {t: v for t, v in forms.items() if t not in ids}
        if not hits:
            finding = (
                f"no {readout} id is ever the first generated token: the readout compares "
                "candidates the decoder excludes"
            )
        elif missed:
            finding = f"the {readout} ids miss yes/no forms the model writes first: " + ", ".join(
                f"{v['token']!r} ({t}) ×{v['count']}" for t, v in missed.items()
            )
        else:
            finding = f"the {readout} ids hold every yes/no form the model writes first"
        passed = bool(hits) and not missed
        checks.append(
            Check(
                name=f"{readout}_emitted",
                verdict="pass" if passed else "fail",
                finding=finding,
                evidence={
                    "ids": ids,
                    "n_emitted": hits,
                    "missed": {str(t): v for t, v in missed.items()},
                    "n": len(records),
                },
                repair=None if passed else _fixed_set_repair(readout, bool(forms)),
            )
        )
    late = [r for r in records if r.parsed_answer is not None and not r.parse_in_first_token]
    unparsed = [r for r in records if r.parsed_answer is None]
    checks.append(
        Check(
            name="string_parse_at_answer",
            verdict="pass" if not late and not unparsed else "warn",
            finding=(
                "every greedy text opens with its yes/no word"
                if not late and not unparsed
                else f"{len(late)} texts give the yes/no word after the first token and "
                f"{len(unparsed)} give none (read as yes)"
            ),
            evidence={"late": len(late), "unparsed": len(unparsed), "n": len(records)},
            repair=None
            if not late and not unparsed
            else "read the first generated token's logits (dynamic), not the parsed text",
        )
    )
    return checks


def _fixed_set_repair(readout: str, answers_first: bool) -> str:
    """What to do about a fixed-id readout that misses what the model writes first."""
    if not answers_first:
        return "the model writes no yes/no form first: change the prompt so it answers there"
    if readout == "algorithm1":
        return "raise --diagnostic-sample so the diagnostic sees every form written first"
    return (
        "derive the sets from this model's tokenizer (dynamic), or extend them with "
        "Algorithm 1's diagnostic (algorithm1)"
    )


def _emitted_forms(records: Sequence[YesNoRecord]) -> dict[int, dict[str, Any]]:
    """First generated tokens that are yes/no forms (in the dynamic sets, or by their surface)."""
    found: dict[int, dict[str, Any]] = {}
    for r in records:
        if r.first_token_in_sets or yes_no_form(r.first_token) is not None:
            entry = found.setdefault(r.first_token_id, {"token": r.first_token, "count": 0})
            entry["count"] += 1
    return found


class FirstToken(BaseModel):
    """A first generated token outside the yes/no sets, and how often it was emitted."""

    model_config = ConfigDict(extra="forbid")

    token: str
    count: int


class YesNoSummary(Summary):
    """The yes/no audit: readouts overall and per split, first tokens, sets, the diagnostic."""

    kind: str = "yesno"
    overall: YesNoGroup
    splits: dict[str, YesNoGroup]
    emitted_first_tokens: dict[str, int]
    """First generated token id → count, most frequent first."""
    first_token_strings: dict[str, str]
    outside_sets: dict[str, FirstToken]
    token_sets: list[dict[str, Any]]
    """Each readout's distinct (yes set, no set): ids and tokens, multi-token forms, items."""
    margins: PairedScores | None = None
    """Each logit readout's margin max ℓ(yes set) − max ℓ(no set) per question, with labels."""
    diagnostic: dict[str, Any] | None = None
    """The new-model diagnostic (Algorithm 1) run before the evaluation, as the run saved it."""
    in_context: SetComparison | None = None
    """The in-context extension against Listing 1's sets (dynamic), when it ran."""


def margins(records: Sequence[YesNoRecord]) -> PairedScores | None:
    """Each logit readout's margin max ℓ(Y) − max ℓ(N) per record, where every record has one."""
    found: dict[str, list[float]] = {}
    for name in READOUTS:
        values = []
        for r in records:
            yes, no = r.logit_sets().get(name, ([], []))
            best_yes = [v for i in yes if (v := r.set_logprobs.get(i)) is not None]
            best_no = [v for i in no if (v := r.set_logprobs.get(i)) is not None]
            if not best_yes or not best_no:
                break
            values.append(max(best_yes) - max(best_no))
        else:
            if records:
                found[name] = values
    if not found:
        return None
    return PairedScores(
        ids=[r.item_id for r in records], labels=[r.label == "yes" for r in records], scores=found
    )


class IdDifference(BaseModel):
    """A token id in one readout's sets and not the other's, on how many items."""

    model_config = ConfigDict(extra="forbid")

    id: int
    token: str | None
    answer: Answer
    only_in: str
    n_items: int


class SetComparison(BaseModel):
    """Two logit readouts of the same questions: the ids that differ and the paired metrics."""

    model_config = ConfigDict(extra="forbid")

    a: str
    b: str
    ids: list[IdDifference]
    n_differ: int
    """Questions the two readouts answer differently."""
    differences: dict[str, Interval]
    """b − a per metric (f1, precision, recall, yes_rate, accuracy), from the same resamples."""


def compare_readouts(
    records: Sequence[YesNoRecord], a: str, b: str, *, n_boot: int, seed: int
) -> SetComparison | None:
    """Readout b against a: ids in one set only, differing answers, paired metric differences.

    None unless both readouts decided every record.
    """
    if not records or not all(r.decisions.get(a) and r.decisions.get(b) for r in records):
        return None
    only: Counter[tuple[int, Answer, str]] = Counter()
    tokens: dict[int, str] = {}
    for r in records:
        tokens.update(r.set_tokens)
        sets = r.logit_sets()
        answers: tuple[Answer, Answer] = ("yes", "no")
        for answer, first, second in zip(answers, sets[a], sets[b], strict=True):
            only.update((i, answer, a) for i in set(first) - set(second))
            only.update((i, answer, b) for i in set(second) - set(first))
    label, clusters = _labels(records), [r.cluster for r in records]
    boot = {
        name: binary_scores_bootstrap(
            _is_yes(records, name),
            label,
            n_boot=n_boot,
            seed=seed,
            clusters=resampling_clusters(clusters),
        )
        for name in (a, b)
    }
    method = Interval.from_bootstrap(boot[a]["f1"], clusters, n_boot=n_boot, paired=True).method
    return SetComparison(
        a=a,
        b=b,
        ids=[
            IdDifference(id=i, token=tokens.get(i), answer=answer, only_in=side, n_items=n)
            for (i, answer, side), n in sorted(only.items())
        ],
        n_differ=int((_is_yes(records, a) != _is_yes(records, b)).sum()),
        differences={
            metric: Interval.from_replicates(
                boot[b][metric].estimate - boot[a][metric].estimate,
                boot[b][metric].replicates - boot[a][metric].replicates,
                method=method,
                n=len(records),
                n_clusters=len(set(clusters)),
            )
            for metric in BINARY_METRICS
        },
    )


def summarise_yesno(
    typed: Sequence[YesNoRecord],
    *,
    n_boot: int = 20_000,
    seed: int = 0,
    diagnostic: dict[str, Any] | None = None,
) -> YesNoSummary:
    """Per-readout metrics overall and per split, first tokens, transitions and margins.

    The checks are the kind's (:data:`YESNO` ``.summary`` adds them).
    """
    splits = sorted({r.split for r in typed})
    first = _first_tokens(typed)
    return YesNoSummary(
        n_records=len(typed),
        n_items=len({r.item_id for r in typed}),
        overall=_group(typed, n_boot=n_boot, seed=seed),
        splits={
            s: _group([r for r in typed if r.split == s], n_boot=n_boot, seed=seed) for s in splits
        },
        emitted_first_tokens=first["emitted_first_tokens"],
        first_token_strings=first["first_token_strings"],
        outside_sets={t: FirstToken(**v) for t, v in first["outside_sets"].items()},
        token_sets=_token_sets(typed),
        margins=margins(typed),
        diagnostic=diagnostic,
        in_context=compare_readouts(typed, REFERENCE, EXTENSION, n_boot=n_boot, seed=seed),
    )
