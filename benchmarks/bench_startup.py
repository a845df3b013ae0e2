"""Start-up of the ``readout`` command on the embedded model, cold and warm (not a test).

Run: .venv/bin/python benchmarks/bench_startup.py [--rounds 3] [--json OUT]

Each round runs ``readout score`` on one item as a fresh process and measures the seconds from
its start to the first record on disk (``startup_seconds``) and to its exit. Cold: an empty
cache directory (the GGUF file is parsed, de-quantised and converted, then kept). Warm: the
same cache again (converted weights and tokenizer, remembered file hashes). The target is a
warm start of at most 5 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITEM = {"id": "q", "prompt": "The capital of France is", "options": [" Paris", " Lyon"]}


def one_start(folder: Path, cache: Path, name: str) -> dict[str, float]:
    items = folder / "items.jsonl"
    items.write_text(json.dumps(ITEM) + "\n")
    out = folder / name
    command = [sys.executable, "-m", "readout_audit", "score", "--items", str(items)]
    command += ["--out", str(out), "--no-progress", "--greedy-tokens", "4"]
    env = {**os.environ, "READOUT_AUDIT_CACHE": str(cache)}
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    records, first = out / "records.jsonl", None
    while process.poll() is None:
        if first is None and records.exists() and records.stat().st_size > 0:
            first = time.perf_counter() - started
        time.sleep(0.01)
    total = time.perf_counter() - started
    if process.returncode != 0:
        raise SystemExit(process.stderr.read().decode() if process.stderr else "failed")
    return {"startup_seconds": first if first is not None else total, "total_seconds": total}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    figures: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    for round_ in range(args.rounds):
        with tempfile.TemporaryDirectory() as tmp:
            folder, cache = Path(tmp), Path(tmp) / "cache"
            for kind in ("cold", "warm"):
                result = one_start(folder, cache, f"{kind}-{round_}")
                figures[kind].append(result)
                first, total = result["startup_seconds"], result["total_seconds"]
                print(
                    f"round {round_ + 1} {kind}: first record after {first:.2f} s, "
                    f"exit after {total:.2f} s",
                    flush=True,
                )
    best = {k: min(r["startup_seconds"] for r in v) for k, v in figures.items()}
    print(
        f"startup_seconds cold {best['cold']:.2f}, warm {best['warm']:.2f} (best of {args.rounds})"
    )
    print(f"warm start within 5 s: {'yes' if best['warm'] <= 5 else 'NO'}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"rounds": figures, "best": best}, indent=2))
        print(f"figures written to {args.json_out}")


if __name__ == "__main__":
    main()
