"""A chat judge on llama-cpp-python: seconds per request, verdicts, and a rerun that sends nothing.

Builds a FINAL3 inventory (response format ``json_object``) from the judge fixtures shipped
under tests/fixtures/judge, starts a llama.cpp server (llama-cpp-python) on the embedded GGUF,
sends every request through ``run_chat_judge`` at 1 request in flight, then runs it again over
the same ledger. Prints a table and writes JSON with --json.

    python benchmarks/bench_chat_judge.py --per-dataset 1 --json runs/bench_chat_judge.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from readout_audit.judge import (
    PAPER_SEED,
    Configuration,
    Inventory,
    build_inventory,
    load_drop_json,
    load_gsm8k_jsonl,
    parse_configuration,
    run_chat_judge,
)
from readout_audit.model import embedded_gguf_path
from readout_audit.serve import LEDGER_FILE, Endpoint, Ledger, llama_server

FIXTURES = Path(__file__).parent.parent / "tests" / "fixtures" / "judge"


def fixture_inventory(
    configuration: Configuration, per_dataset: int, preflight_per_dataset: int
) -> Inventory:
    """An inventory of one configuration over the shipped GSM8K and DROP rows."""
    banks = [
        load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl"),
        load_drop_json(FIXTURES / "drop_rows.jsonl"),
    ]
    return build_inventory(
        banks,
        [configuration],
        seed=PAPER_SEED,
        per_dataset=per_dataset,
        preflight_per_dataset=preflight_per_dataset,
    )


def main() -> None:
    """Run the measurement and print it."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--per-dataset", type=int, default=1)
    parser.add_argument("--preflight-per-dataset", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    configuration = parse_configuration(
        "chat3=FINAL3@openai:http://127.0.0.1:8080/v1#smollm2", PAPER_SEED, "json_object"
    )
    inventory = fixture_inventory(configuration, args.per_dataset, args.preflight_per_dataset)
    requests = inventory.requests
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        with (
            llama_server(embedded_gguf_path(), folder / "server.log", threads=args.threads) as url,
            Ledger(folder / LEDGER_FILE) as ledger,
        ):
            endpoints = [Endpoint(url, concurrency=1)]
            started = time.perf_counter()
            records = run_chat_judge(requests, configuration, endpoints, ledger)
            seconds = time.perf_counter() - started
            started = time.perf_counter()
            rerun = run_chat_judge(requests, configuration, endpoints, ledger)
            rerun_seconds = time.perf_counter() - started
            attempts = Counter(entry.attempts for entry in ledger.entries())
    result = {
        "requests": len(requests),
        "seconds": round(seconds, 2),
        "seconds_per_request": round(seconds / len(requests), 3),
        "outcomes": dict(Counter(r.outcome for r in records)),
        "verdicts": dict(Counter(str(r.verdict) for r in records)),
        "right": sum(bool(r.right) for r in records),
        "with_probabilities": sum(r.label_probs is not None for r in records),
        "rerun_seconds": round(rerun_seconds, 3),
        "rerun_same_records": rerun == records,
        "attempts_per_row": dict(attempts),
    }
    for key, value in result.items():
        print(f"{key:>22}: {value}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
