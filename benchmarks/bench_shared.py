"""Shared prefixes on whole runs: wall time, tokens encoded, peak memory, off and on (not a test).

Run: .venv/bin/python benchmarks/bench_shared.py [--items 64] [--judge-per-dataset 3] [--json OUT]

Three workloads, each run in its own process twice, with prefix sharing off (every context
encoded in full, as before) and on, so each peak resident memory is that run's own:

- ``mmlu``: MMLU-format 5-shot questions (bench_prefix's generator), four letters and four
  full-text options each, through the local executor;
- ``ladder``: the options audit's full ladder (the ``answer`` spec's rungs) on ``--items``
  generated four-choice questions;
- ``judge``: a local judge's confirmation phase (FINAL3 on the embedded model) over an
  inventory of the test fixtures' GSM8K and DROP rows (``--judge-per-dataset 3``: 96 requests).

Each process runs its workload once untimed (the very batch shapes it then times), then
``--rounds`` times into fresh run directories, the device synchronised around each (timing.py),
and keeps its best.

Printed per workload: seconds off and on, the speed-up, tokens encoded (and their share of the
contexts' tokens), peak RSS off and on, and the largest difference between the two runs'
log-probabilities (the float32 budget applies).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
from bench_prefix import make_items, ours, question
from timing import clock, peak_gpu_mb

from readout_audit import EMBEDDED_SPEC, load_model, read_run
from readout_audit.model import shares_prefixes

WORKLOADS = ("mmlu", "ladder", "judge")


def mmlu(model: Any, args: argparse.Namespace, out: Path) -> list[float]:
    """bench_prefix's 5-shot questions, letters and text: every option's log-likelihood."""
    items = make_items(args.subjects, args.per_subject, "both", args.seed)
    return ours(model, items, args.batch_size)[1]


def ladder(model: Any, args: argparse.Namespace, out: Path) -> list[float]:
    """The answer spec's full ladder on generated questions: every record's option log-probs."""
    from readout_audit import OptionsSettings, RunSettings
    from readout_audit.data import MCItem
    from readout_audit.options import audit_options

    rng = random.Random(args.seed)
    items = []
    for i in range(args.items):
        stem, choices, gold = question(rng)
        items.append(MCItem(id=f"q{i}", question=stem, choices=choices, answer="ABCD"[gold]))
    settings = OptionsSettings(items=items, spec="answer")
    audit_options(model, settings, out, RunSettings(batch_size=args.batch_size))
    records = sorted(read_run(out).records, key=lambda r: (r.item_id, r.variant))
    return [float(x) for r in records for x in r.option_logprobs if x is not None]


def judge(model: Any, args: argparse.Namespace, out: Path) -> list[float]:
    """A FINAL3 confirmation phase on the benchmark's model: every verdict's label log-probs."""
    from bench_chat_judge import fixture_inventory

    from readout_audit.judge import (
        PAPER_SEED,
        parse_configuration,
        run_local_judge,
        write_inventory,
    )

    configuration = parse_configuration(f"local3=FINAL3@{args.model}", PAPER_SEED)
    inventory = fixture_inventory(configuration, args.judge_per_dataset, 0)
    write_inventory(out / "inventory", inventory)
    run_local_judge(
        model,
        out / "inventory",
        out / "run",
        phase="confirmation",
        unqualified=True,
        batch_size=args.batch_size,
    )
    records = sorted(read_run(out / "run").records, key=lambda r: r.item_id)
    return [
        float(x)
        for r in records
        for x in (r.metadata or {}).get("label_logprobs", {}).values()
        if x is not None
    ]


RUNS: dict[str, Callable[[Any, argparse.Namespace, Path], list[float]]] = {
    "mmlu": mmlu,
    "ladder": ladder,
    "judge": judge,
}


def worker(args: argparse.Namespace) -> None:
    """Workloads with sharing on or off, in this process: each one's figures, a JSON line each.

    Peak GPU memory is reset before each workload; peak RSS is the process's so far.
    """
    model = load_model(args.model, device=args.device, dtype=args.dtype)
    model.share_prefixes = args.share == "on"
    auto = shares_prefixes("auto", torch.device(model.info.device).type)
    for workload in args.worker.split(","):
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        with tempfile.TemporaryDirectory() as scratch:
            RUNS[workload](model, args, Path(scratch) / "warm-up")  # the shapes timed, untimed
            best = float("inf")
            for attempt in range(args.rounds):
                before = model.encoded_tokens
                with clock(model.info.device) as span:
                    values = RUNS[workload](model, args, Path(scratch) / f"run{attempt}")
                best = min(best, span.seconds)
        figures = {
            "workload": workload,
            "seconds": best,
            "encoded_tokens": model.encoded_tokens - before,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "peak_gpu_mb": peak_gpu_mb(),
            "auto": "on" if auto else "off",
            "values": values,
        }
        print(json.dumps(figures), flush=True)


def measured(workloads: list[str], share: str, argv: list[str]) -> dict[str, dict[str, Any]]:
    """A worker process's figures for these workloads, by workload."""
    command = [sys.executable, __file__, *argv, "--worker", ",".join(workloads), "--share", share]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{','.join(workloads)} ({share}) failed:\n{done.stderr[-3000:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {figures.pop("workload"): figures for figures in lines}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=EMBEDDED_SPEC)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--items", type=int, default=64, help="ladder questions")
    parser.add_argument("--subjects", type=int, default=4)
    parser.add_argument("--per-subject", type=int, default=16)
    parser.add_argument("--judge-per-dataset", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="timed runs after a warm-up run")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument(
        "--one-process",
        action="store_true",
        help="all workloads in one process per setting (two loads, not six; peak RSS then "
        "accumulates, peak GPU memory is still each workload's)",
    )
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--share", choices=("on", "off"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    argv = [a for a in sys.argv[1:] if not a.startswith("--json")]
    if args.json_out:
        argv = [a for a in argv if a != args.json_out]
    print(
        f"model {args.model} ({args.dtype}, {args.device})  batch {args.batch_size}  "
        f"torch threads {torch.get_num_threads()}",
        flush=True,
    )
    workloads = args.workloads.split(",")
    unknown = set(workloads) - set(WORKLOADS)
    if unknown:
        parser.error(f"unknown workloads {sorted(unknown)}; choose from {', '.join(WORKLOADS)}")
    argv = [a for a in argv if a != "--one-process"]
    groups = [workloads] if args.one_process else [[w] for w in workloads]
    runs: dict[str, dict[str, Any]] = {share: {} for share in ("off", "on")}
    for group in groups:
        for share, by_workload in runs.items():
            by_workload.update(measured(group, share, argv))
    results: dict[str, Any] = {}
    for workload in workloads:
        off, on = runs["off"][workload], runs["on"][workload]
        diff = max(
            (abs(a - b) for a, b in zip(off.pop("values"), on.pop("values"), strict=True)),
            default=0.0,
        )
        speedup = off["seconds"] / on["seconds"]
        auto = on["auto"]
        chosen = {"on": on, "off": off}[auto]["seconds"]
        print(
            f"{workload:<7} off {off['seconds']:7.1f} s, on {on['seconds']:7.1f} s: "
            f"x{speedup:.2f}; tokens encoded {off['encoded_tokens']} -> {on['encoded_tokens']} "
            f"({on['encoded_tokens'] / off['encoded_tokens']:.1%}); peak RSS "
            f"{off['peak_rss_mb']:.0f} -> {on['peak_rss_mb']:.0f} MB; max |difference| {diff:.2e}; "
            f"auto chooses {auto}: x{min(off['seconds'], on['seconds']) / chosen:.2f} the faster",
            flush=True,
        )
        results[workload] = {
            "off": off,
            "on": on,
            "speedup": speedup,
            "max_abs_diff": diff,
            "auto": auto,
            "auto_over_faster": min(off["seconds"], on["seconds"]) / chosen,
        }
    if args.json_out:
        figures = {"workloads": results, "settings": vars(args)}
        Path(args.json_out).write_text(json.dumps(figures, indent=2), encoding="utf-8")
        print(f"figures written to {args.json_out}")


if __name__ == "__main__":
    main()
