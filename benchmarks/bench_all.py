"""Every scoring benchmark on one device, and half-precision agreement, into one JSON (not a test).

Run on a machine with a GPU (under 10 minutes there):

    .venv/bin/python benchmarks/bench_all.py --device cuda --json runs/bench_all.json

It runs bench_scoring.py (zero-shot options against lm-eval), bench_prefix.py (5-shot shared
prefixes against lm-eval) and bench_shared.py (whole runs with prefix sharing off and on, peak
memory) on ``--device`` in float32, then scores bench_prefix's 5-shot questions (letters and
full text) in float32 and in each ``--half`` dtype (on CUDA: bfloat16 and float16) and reports
how far the half-precision log-likelihoods move (largest and mean |difference|) and how often
each question's likeliest letter and likeliest text option stay the same. On a CPU it runs the
same set (slowly: half precision only when asked, ``--half bfloat16``).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from bench_prefix import make_items, ours

from readout_audit import EMBEDDED_SPEC, load_model

HERE = Path(__file__).parent
SCRIPTS = {"scoring": "bench_scoring.py", "prefix": "bench_prefix.py", "shared": "bench_shared.py"}
QUICK = {
    "scoring": ["--items", "16", "--rounds", "1"],
    "prefix": ["--subjects", "1", "--per-subject", "4", "--rounds", "1"],
    "shared": ["--items", "4", "--subjects", "1", "--per-subject", "4", "--judge-per-dataset", "1"],
}
"""Sizes of ``--quick``: a check that the whole set runs, not figures to report."""


def run_script(name: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """One benchmark script on the device, float32: the figures it writes."""
    out = folder / f"{name}.json"
    command = [sys.executable, str(HERE / SCRIPTS[name]), "--model", args.model]
    command += ["--device", args.device, "--dtype", "float32", "--json", str(out)]
    command += QUICK[name] if args.quick else []
    print(f"== {name}: {' '.join(command[1:])}", flush=True)
    subprocess.run(command, check=True)
    return json.loads(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def agreement(args: argparse.Namespace, half: str) -> dict[str, Any]:
    """bench_prefix's 5-shot items in float32 and in ``half``: how far the numbers move."""
    items = make_items(args.subjects, args.per_subject, "both", args.seed)
    values = {}
    for dtype in ("float32", half):
        model = load_model(args.model, device=args.device, dtype=dtype)
        values[dtype] = np.array(ours(model, items, args.batch_size)[1])
        del model
    full, low = values["float32"], values[half]
    diff = np.abs(full - low)
    full_rows, low_rows = full.reshape(len(items), -1), low.reshape(len(items), -1)
    same = {
        kind: float(np.mean(full_rows[:, part].argmax(1) == low_rows[:, part].argmax(1)))
        for kind, part in (("letters", slice(0, 4)), ("text", slice(4, 8)))
    }
    figures = {
        "dtype": half,
        "items": len(items),
        "max_abs_diff": float(diff.max()),
        "mean_abs_diff": float(diff.mean()),
        "same_argmax": same,
    }
    print(
        f"{half}: max |log-lik difference| {figures['max_abs_diff']:.3g}, mean "
        f"{figures['mean_abs_diff']:.3g}; same likeliest letter {same['letters']:.1%}, text "
        f"{same['text']:.1%} ({len(items)} questions)",
        flush=True,
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=EMBEDDED_SPEC)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--half", default=None, help="comma-separated (CUDA default: both)")
    parser.add_argument("--subjects", type=int, default=4)
    parser.add_argument("--per-subject", type=int, default=16)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip", default="", help="comma-separated scripts not to run")
    parser.add_argument("--quick", action="store_true", help="small sizes: does the set run?")
    parser.add_argument("--json", dest="json_out", default="runs/bench_all.json")
    args = parser.parse_args()
    cuda = args.device == "cuda" or (args.device == "auto" and torch.cuda.is_available())
    halves = args.half.split(",") if args.half else (["bfloat16", "float16"] if cuda else [])
    figures: dict[str, Any] = {
        "settings": vars(args),
        "machine": {
            "platform": platform.platform(),
            "torch": torch.__version__,
            "device": torch.cuda.get_device_name() if cuda else platform.processor() or "cpu",
            "threads": torch.get_num_threads(),
        },
    }
    with tempfile.TemporaryDirectory() as scratch:
        for name in SCRIPTS:
            if name not in args.skip.split(","):
                figures[name] = run_script(name, args, Path(scratch))
    figures["half_precision"] = [agreement(args, half) for half in halves]
    Path(args.json_out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json_out).write_text(json.dumps(figures, indent=2), encoding="utf-8")
    print(f"figures written to {args.json_out}")


if __name__ == "__main__":
    main()
