"""Scoring lift conditions with shared forwards against a bare forward per prompt (not a test).

Run: .venv/bin/python benchmarks/bench_lift.py --cuts CUTS.jsonl [--forecasts Z.jsonl ...]
        [--n 65] [--batch-size 32] [--rounds 2] [--json OUT]

"Scoring" is what a lift run does per batch of jobs: one left-padded forward over the batch's
distinct contexts (each cut's scaffold conditions share the prefix they have in common), each
condition's rest of prompt plus target scored from that forward's key-value cache, and the
typed records. The bare forward reads every condition's whole prompt plus target as its own
row, in the same batches, keeping the last logits only: the same tokens with no sharing. The
two are timed batch by batch, alternating which goes first; best of ``--rounds``. Without
forecast files each cut gets one forecast, the first half of its own target.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
from bench_recover import alternated  # the same bare forward, timed alike

from readout_audit import EMBEDDED_SPEC, load_model
from readout_audit.lift import read_cuts, read_forecasts
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._kind import LIFT
from readout_audit.lift._score import cut_jobs


def scoring(model: Any, batch: list[Any]) -> float:
    """Seconds for one batch's shared forward, continuations and records."""
    start = time.perf_counter()
    answers = model.score_positions([job.request for job in batch])
    for job, scores in zip(batch, answers, strict=True):
        LIFT.make_record(model, job, scores)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cuts", type=Path, required=True)
    parser.add_argument("--forecasts", action="append", type=Path, default=[])
    parser.add_argument("--n", type=int, default=65)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    cuts = read_cuts(args.cuts)[: args.n]
    given: dict[str, dict[str, str]] = {}
    for path in args.forecasts:
        for f in read_forecasts(path, cuts=None):
            given.setdefault(f.cut_id, {})[f.setting] = f.z
    model = load_model(EMBEDDED_SPEC)
    jobs = []
    for cut in cuts:
        forecasts = given.get(cut.id) or {"half": cut.target[: len(cut.target) // 2]}
        jobs += cut_jobs(cut, forecasts, LiftSetup(), model.codec)
    ordered = sorted(jobs, key=lambda job: len(job.request.context))  # as the executor
    ours, theirs = [], []
    for round_ in range(args.rounds):
        mine, theirs_now = alternated(model, ordered, args.batch_size, scoring, round_)
        ours.append(mine)
        theirs.append(theirs_now)
    every = sum(len(j.request.context) + len(j.request.continuations[0]) for j in jobs)
    shared = len({tuple(j.request.context) for j in jobs})
    encoded = sum(len(c) for c in {tuple(j.request.context) for j in jobs}) + sum(
        len(j.request.continuations[0]) for j in jobs
    )
    targets = sum(len(j.payload.keywords["target_ids"]) for j in jobs)
    result = {
        "cuts": len(cuts),
        "records": len(jobs),
        "distinct_contexts": shared,
        "tokens_without_sharing": every,
        "tokens_encoded_with_sharing": encoded,
        "scored_target_tokens": targets,
        "batch_size": args.batch_size,
        "threads": torch.get_num_threads(),
        "scoring_s": min(ours),
        "bare_forward_s": min(theirs),
        "ratio": min(ours) / min(theirs),
        "scored_tokens_per_s": targets / min(ours),
        "bare_scored_tokens_per_s": targets / min(theirs),
        "bare_tokens_per_s": every / min(theirs),
    }
    for key, value in result.items():
        print(f"{key:>28}: {value:.4g}" if isinstance(value, float) else f"{key:>28}: {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
