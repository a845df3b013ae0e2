"""Every ``readout`` command once on one device and dtype: a GPU check in one go (not a test).

Run from the project's root (the examples are read from there):

    python benchmarks/every_command.py --model hf:/tmp/m1b7 --device cuda --dtype bfloat16

Each command runs as its own process, with a time limit, writing under ``--out``; its exit
status, seconds and last lines are printed as it ends and all of them are kept in
``OUT/every_command.json``. The fine-tuning steps take ``--sft-model`` (a small model: the SFT
trains a copy of it). A command that fails does not stop the others; the script exits 1 if
any failed. With no hub reachable, set ``HF_HUB_OFFLINE=1``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def commands(args: argparse.Namespace, out: Path) -> dict[str, list[str]]:
    """Each step's ``readout`` arguments, in order (later steps read earlier steps' output)."""
    placed = ["--model", args.model, "--device", args.device, "--dtype", args.dtype, "--plain"]
    judge = EXAMPLES / "judge"
    return {
        "score": ["score", *placed, "--items", f"{EXAMPLES}/items.jsonl", "--out", f"{out}/score"],
        "options": [
            *("audit", "options", *placed, "--items", f"{EXAMPLES}/mc.jsonl"),
            *("--spec", "forecast", "--out", f"{out}/options"),
        ],
        "ptrue": [
            *("audit", "ptrue", *placed, "--items", f"{EXAMPLES}/qa.jsonl"),
            *("--out", f"{out}/ptrue"),
        ],
        "yesno": [
            *("audit", "yesno", *placed, "--items", f"{EXAMPLES}/yesno.jsonl"),
            *("--instruction", "Answer yes or no.", "--out", f"{out}/yesno"),
        ],
        "lm-eval": [
            *("audit", "lm-eval", *placed, "--tasks", "readout_mmlu"),
            *("--include-path", f"{EXAMPLES}/lm-eval", "--num-fewshot", "5"),
            *("--out", f"{out}/lmeval"),
        ],
        "recover": [
            *("audit", "recover", *placed, "--generate", "controlled-logic", "--n", "30"),
            *("--train-n", "60", "--eval", "lexical", "--n-perm", "200"),
            *("--out", f"{out}/recover"),
        ],
        "judge build": [
            *("judge", "build", "--gsm8k", f"{judge}/gsm8k_test_head.jsonl"),
            *("--drop", f"{judge}/drop_rows.jsonl", "--per-dataset", "1"),
            *("--preflight-per-dataset", "1"),
            *("--configuration", f"local3=FINAL3@{args.model}", "--out", f"{out}/inventory"),
        ],
        "judge run": [
            *("judge", "run", f"{out}/inventory", "--phase", "preflight"),
            *("--device", args.device, "--dtype", args.dtype, "--out", f"{out}/judge"),
        ],
        "lift cut": [
            *("lift", "cut", f"{EXAMPLES}/tex", "--per-paper", "2", "--min-cuts", "1"),
            *("--out", f"{out}/cuts.jsonl"),
        ],
        "lift sft": [
            *("lift", "sft", "--model", args.sft_model, "--device", args.device),
            *("--cuts", f"{out}/cuts.jsonl", "--steps", "4", "--out", f"{out}/sft"),
        ],
        "lift score": [
            *("lift", "score", "--model", args.sft_model, "--device", args.device),
            *("--dtype", args.dtype, "--plain", "--cuts", f"{out}/cuts.jsonl"),
            *("--sft", f"{out}/sft", "--out", f"{out}/lift"),
        ],
        "report": ["report", f"{out}/score", "--html", f"{out}/score.html"],
        "compare": ["compare", f"{out}/score", f"{out}/score"],
        "export": ["export", f"{out}/options", "--out", f"{out}/options.csv"],
        "table": ["table", *(f"{out}/{run}" for run in ("score", "options", "ptrue", "yesno"))],
    }


def run(name: str, argv: list[str], limit: float) -> dict[str, object]:
    """One command in its own process: exit status, seconds and the output's last lines."""
    command = [sys.executable, "-m", "readout_audit", *argv]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit, check=False)
        status, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        status, output = "timeout", str(expired.stdout or "") + str(expired.stderr or "")
    seconds = time.perf_counter() - start
    tail = output.strip().splitlines()[-8:]
    print(f"== {name}: {status} in {seconds:.1f} s", *(f"   {line}" for line in tail), sep="\n")
    return {"command": argv, "status": status, "seconds": seconds, "tail": tail}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--sft-model", default="smollm2-135m", help="the model lift sft trains")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--out", type=Path, default=Path("runs/every_command"))
    parser.add_argument("--limit", type=float, default=300, help="seconds per command")
    parser.add_argument("--only", help="comma-separated steps (default: all, in order)")
    args = parser.parse_args()
    if args.out.exists():
        parser.error(f"{args.out} exists: give a new folder (every step writes into it)")
    args.out.mkdir(parents=True)
    steps = commands(args, args.out)
    chosen = args.only.split(",") if args.only else list(steps)
    unknown = set(chosen) - set(steps)
    if unknown:
        parser.error(f"unknown steps {sorted(unknown)}; choose from {', '.join(steps)}")
    results = {name: run(name, steps[name], args.limit) for name in chosen}
    (args.out / "every_command.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    failed = [name for name, result in results.items() if result["status"] != 0]
    print(f"{len(results) - len(failed)} passed, {len(failed)} failed: {', '.join(failed)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
