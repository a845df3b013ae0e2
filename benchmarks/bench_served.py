"""Served-model throughput and the request ledger's cost.

Starts a llama.cpp server (llama-cpp-python) on the embedded GGUF, scores the same chat items
through it with 1, 2 and 4 concurrent requests (a fresh run and ledger each time), and times the
ledger's own bookkeeping per request (plan, reserve, start, sent, complete: five commits) on a
file, with no network. Prints a table and writes JSON with --json.

    python benchmarks/bench_served.py --items 16 --json runs/bench_served.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from readout_audit.data._item import Item
from readout_audit.model import embedded_gguf_path
from readout_audit.model._served import ServedSettings, load_served
from readout_audit.scoring import score
from readout_audit.serve import HttpCall, Ledger, Spend, llama_server
from readout_audit.serve._cost import reservation

QUESTIONS = [
    ("Which number is larger?\nA. {a}\nB. {b}\nAnswer A or B.", ["A", "B"]),
    ("Is {a} an even number? Answer yes or no.", [" yes", " no"]),
]


def items(n: int) -> list[Item]:
    """``n`` chat items, two options each, differing in their numbers."""
    made = []
    for i in range(n):
        template, options = QUESTIONS[i % len(QUESTIONS)]
        text = template.format(a=17 + i, b=71 - i)
        made.append(Item(id=f"q{i}", messages=[{"role": "user", "content": text}], options=options))
    return made


def ledger_overhead(n: int, folder: Path) -> float:
    """Seconds of ledger bookkeeping per request, over ``n`` requests."""
    calls = [HttpCall("/completions", {"prompt": f"p{i}"}, 10, 1) for i in range(n)]
    reply = json.dumps({"usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode()
    with Ledger(folder / "overhead.sqlite") as ledger:
        started = time.perf_counter()
        ledger.plan(calls)
        for call in calls:
            ledger.reserve(call.key, reservation(call, None), None)
            ledger.start(call.key, "http://127.0.0.1:1/v1")
            ledger.sent(call.key)
            ledger.complete(call.key, reply, (3, 1), Spend(4, 0.0))
        return (time.perf_counter() - started) / n


def main() -> None:
    """Run the measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=16)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    batch = items(args.items)
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        with llama_server(embedded_gguf_path(), folder / "server.log") as url:
            for concurrency in (1, 2, 4):
                model = load_served(
                    f"openai:{url}#smollm2",
                    tokenizer="smollm2-135m",
                    settings=ServedSettings(concurrency=concurrency),
                )
                model.surface_ids()  # the vocabulary map is built once, outside the timing
                started = time.perf_counter()
                result = score(model, batch, folder / f"c{concurrency}", greedy_tokens=4)
                seconds = time.perf_counter() - started
                with Ledger(folder / f"c{concurrency}" / "requests.sqlite") as ledger:
                    requests = sum(ledger.counts().values())
                rows.append(
                    {
                        "concurrency": concurrency,
                        "items": result.n_new,
                        "requests": requests,
                        "seconds": round(seconds, 2),
                        "items_per_s": round(result.n_new / seconds, 3),
                        "requests_per_s": round(requests / seconds, 2),
                    }
                )
        overhead = ledger_overhead(2000, folder)
    header = ("concurrency", "items", "requests", "seconds", "items/s", "req/s")
    print(" ".join(f"{h:>11}" for h in header))
    for row in rows:
        print(" ".join(f"{v:>11}" for v in row.values()))
    base = rows[0]["items_per_s"]
    print("speed-up over 1:", ", ".join(f"{r['items_per_s'] / base:.2f}x" for r in rows))
    print(f"ledger bookkeeping: {overhead * 1e3:.3f} ms per request (five commits)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"runs": rows, "ledger_ms": overhead * 1e3}, indent=2))


if __name__ == "__main__":
    main()
