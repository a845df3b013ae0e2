"""Every readout of the recovery protocol against a bare forward over the same tokens (not a test).

Run: .venv/bin/python benchmarks/bench_recover.py --items ../shared/data/proofwriter/dev.json \
        --items ../shared/data/proofwriter/test.json [--n 1000] [--batch-size 32] [--json OUT]

The items are rendered under the main configuration (prompt ending ``Answer: <answer>``, three
candidates ``true</answer>``...). "All readouts" is what a recovery run does per item: one
left-padded forward keeping the hidden states of the prompt's end and the answer slot (two
layers), the three candidates scored from the batch's key-value cache, the hidden rows appended
to the array file, the label logits through the output layer, and the typed record. The bare
forward reads the same tokens (context plus every candidate's tokens, one row per item) in the
same batches, keeping the last logits only. Best of ``--rounds``, alternating; the ratio is the
issue's 1.3x budget.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from readout_audit import EMBEDDED_SPEC, load_model
from readout_audit.data import load_logic_llm
from readout_audit.kind._executor import LocalExecutor
from readout_audit.kind._runner import Job
from readout_audit.recover._audit import (
    RecoverSplits,
    hidden_layout,
    plan_items,
    recover_jobs,
)
from readout_audit.recover._kind import RECOVER
from readout_audit.recover._setup import RecoverSetup
from readout_audit.recover._store import HiddenWriter


def readouts(model: Any, jobs: Sequence[Job[Any]], batch: int) -> float:
    """Seconds for every job's forward, candidates, hidden rows and record."""
    start = time.perf_counter()
    for job, scores in LocalExecutor(model, batch).run(jobs):
        RECOVER.make_record(model, job, scores)
    return time.perf_counter() - start


def bare(model: Any, jobs: Sequence[Job[Any]], batch: int) -> tuple[float, int]:
    """Seconds for left-padded forwards over each context plus all its candidates' tokens."""
    ordered = sorted(jobs, key=lambda job: len(job.request.context))
    rows = [
        [*job.request.context, *(t for c in job.request.continuations for t in c)]
        for job in ordered
    ]
    tokens = sum(len(r) for r in rows)
    start = time.perf_counter()
    for chunk in _chunks(rows, batch):
        width = max(len(r) for r in chunk)
        ids = torch.zeros((len(chunk), width), dtype=torch.long)
        mask = torch.zeros((len(chunk), width), dtype=torch.long)
        for i, row in enumerate(chunk):
            ids[i, width - len(row) :] = torch.tensor(row)
            mask[i, width - len(row) :] = 1
        with torch.inference_mode():
            model._model(
                input_ids=ids,
                attention_mask=mask,
                position_ids=(mask.cumsum(-1) - 1).clamp(min=0),
                logits_to_keep=1,
            )
    return time.perf_counter() - start, tokens


def _chunks(rows: list[list[int]], size: int) -> list[list[list[int]]]:
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", action="append", type=Path, required=True)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    items = [item for path in args.items for item in load_logic_llm(path)][: args.n]
    model = load_model(EMBEDDED_SPEC)
    setup = RecoverSetup()
    splits = RecoverSplits(fit=items[:1], evals={"bench": items})
    planned = [p for p in plan_items(splits, setup, model.codec, {}) if p.role == "eval"]
    layout = hidden_layout(model, setup)
    assert layout is not None
    ours, theirs = [], []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as directory:
            jobs = recover_jobs(planned, HiddenWriter(Path(directory), layout), 0, 10)
            ours.append(readouts(model, jobs, args.batch_size))
        seconds, tokens = bare(model, jobs, args.batch_size)
        theirs.append(seconds)
    result = {
        "items": len(planned),
        "tokens": tokens,
        "batch_size": args.batch_size,
        "threads": torch.get_num_threads(),
        "readouts_s": min(ours),
        "bare_forward_s": min(theirs),
        "ratio": min(ours) / min(theirs),
        "readouts_items_per_s": len(planned) / min(ours),
        "bare_tokens_per_s": tokens / min(theirs),
    }
    for key, value in result.items():
        print(f"{key:>22}: {value:.4g}" if isinstance(value, float) else f"{key:>22}: {value}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
