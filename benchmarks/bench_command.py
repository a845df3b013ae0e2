"""The whole command against the executor alone on the same items (not a test).

Run: .venv/bin/python benchmarks/bench_command.py [--subjects 4] [--per-subject 12] [--json OUT]
(lm-eval comes with the bench extra: pip install -e '.[bench]').

What a run costs beyond scoring (process start, model load, reading distributions, checks,
records, manifest, summary) is the gap between the command and the executor alone. Each side
runs in a fresh process, the sides alternating so that a busy machine hits both alike, best of
``--rounds``:

- ``score``: bench_prefix's MMLU-format 5-shot questions with their four full-text options (no
  greedy continuation), as ``readout score`` (wall time of the whole process) against the local
  executor reading the same positions in a process that has already loaded the model (its scoring
  time alone), and against lm-eval's ``HFLM.loglikelihood`` on the same (context, option) pairs
  (load excluded, as in bench_prefix);
- ``options``: ``readout audit options --spec answer`` (its full ladder) on generated
  four-choice questions, against ``audit_options`` called in a process that has already loaded
  the model (all the run's work but the start and the load).

Printed per workload: each side's seconds and the ratios (command over executor or library, and
lm-eval over the command).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_prefix import make_items, ours, question
from bench_scoring import lm_eval_harness
from timing import clock

from readout_audit import EMBEDDED_SPEC, OptionsSettings, RunSettings, load_model
from readout_audit.data import load_items, load_mc_items
from readout_audit.options import audit_options


def write_items(args: argparse.Namespace, folder: Path) -> dict[str, Path]:
    """Each workload's items file."""
    scored = folder / "scored.jsonl"
    items = make_items(args.subjects, args.per_subject, "text", args.seed)
    scored.write_text("".join(i.model_dump_json(exclude_none=True) + "\n" for i in items))
    questions, rng = folder / "questions.jsonl", random.Random(args.seed)
    with questions.open("w", encoding="utf-8") as handle:
        for i in range(args.questions):
            stem, choices, gold = question(rng)
            row = {"id": f"q{i}", "question": stem, "choices": choices, "answer": "ABCD"[gold]}
            handle.write(json.dumps(row) + "\n")
    return {"score": scored, "options": questions}


def placement(args: argparse.Namespace) -> list[str]:
    return ["--model", args.model, "--device", args.device, "--dtype", args.dtype]


def command(workload: str, args: argparse.Namespace, items: Path, out: Path) -> list[str]:
    """The ``readout`` command of a workload."""
    common = [*placement(args), "--items", str(items), "--out", str(out), "--no-progress"]
    if workload == "score":
        return ["score", *common, "--greedy-tokens", "0", "--batch-size", str(args.batch_size)]
    return ["audit", "options", *common, "--spec", "answer", "--batch-size", str(args.batch_size)]


def worker(args: argparse.Namespace) -> None:
    """One timed side in this fresh process, the model loaded first: its seconds on stdout."""
    model = load_model(args.model, device=args.device, dtype=args.dtype)
    if args.worker == "executor":
        seconds = ours(model, load_items(args.items), args.batch_size)[0]
    elif args.worker == "lm-eval":
        from lm_eval.models.huggingface import HFLM

        hflm = HFLM(pretrained=model._model, tokenizer=model.codec._tok, batch_size=args.batch_size)
        seconds = lm_eval_harness(hflm, load_items(args.items))[0]
    else:
        items = load_mc_items(args.items)
        with tempfile.TemporaryDirectory() as scratch, clock(model.info.device) as span:
            settings = OptionsSettings(items=items, spec="answer")
            run = RunSettings(batch_size=args.batch_size)
            audit_options(model, settings, Path(scratch) / "run", run)
        seconds = span.seconds
    print(json.dumps({"seconds": seconds}))


def side(args: argparse.Namespace, workload: str, name: str, items: Path, out: Path) -> float:
    """Seconds of one side: the whole command's wall time, or what a worker timed."""
    if name == "command":
        argv = [sys.executable, "-m", "readout_audit", *command(workload, args, items, out)]
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        return time.perf_counter() - start
    argv = [sys.executable, __file__, *placement(args), "--worker", name, "--items", str(items)]
    argv += ["--batch-size", str(args.batch_size)]
    done = subprocess.run(argv, check=True, capture_output=True, text=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])


SIDES = {"score": ("command", "executor", "lm-eval"), "options": ("command", "library")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=EMBEDDED_SPEC)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--subjects", type=int, default=4)
    parser.add_argument("--per-subject", type=int, default=12)
    parser.add_argument("--questions", type=int, default=8, help="the options workload's")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workloads", default=",".join(SIDES))
    parser.add_argument("--json", dest="json_out")
    parser.add_argument("--worker", choices=("executor", "lm-eval", "library"), help="(internal)")
    parser.add_argument("--items", type=Path, help="(internal)")
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        files = write_items(args, Path(scratch))
        for workload in args.workloads.split(","):
            best = dict.fromkeys(SIDES[workload], float("inf"))
            for attempt in range(args.rounds):  # alternate, so drift hits every side alike
                for name in best:
                    out = Path(scratch) / f"{workload}-{name}-{attempt}"
                    seconds = side(args, workload, name, files[workload], out)
                    best[name] = min(best[name], seconds)
            reference = best["executor" if workload == "score" else "library"]
            figures = {"seconds": best, "command_over_alone": best["command"] / reference}
            if "lm-eval" in best:
                figures["lm_eval_over_command"] = best["lm-eval"] / best["command"]
            results[workload] = figures
            shown = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in best.items())
            ratios = ", ".join(f"{k} x{v:.2f}" for k, v in figures.items() if k != "seconds")
            print(f"{workload:<8} {shown}: {ratios}", flush=True)
    if args.json_out:
        settings = {k: str(v) for k, v in vars(args).items()}
        Path(args.json_out).write_text(
            json.dumps({"workloads": results, "settings": settings}, indent=2), encoding="utf-8"
        )
        print(f"figures written to {args.json_out}")


if __name__ == "__main__":
    main()
