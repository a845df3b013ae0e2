"""Throughput of scoring N items x K options on a real model (a benchmark, not a test).

Run: .venv/bin/python benchmarks/bench_scoring.py [--items 200] [--options 4] [--json OUT]

Two cases: multi-token option strings and single-token letters. Each item is read fully (option
mass, argmax, top-k, every option's log-likelihood) with and without the greedy continuation.
Prints wall time, items/s and tokens/s (context plus option tokens) and the peak RSS.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from dataclasses import asdict, dataclass

from readout_audit import EMBEDDED_SPEC, Item, load_model, read_position, render

SUBJECTS = ["river", "mountain", "library", "engine", "garden", "harbour", "violin", "glacier"]
QUALITIES = ["quiet", "ancient", "bright", "narrow", "famous", "hidden", "busy", "cold"]
ANSWERS = [
    "it was rebuilt after a long winter storm",
    "the local council closed it for repairs",
    "visitors arrive mostly in early summer",
    "nobody has measured it since the war",
    "a school uses it for weekly lessons",
    "its name comes from an old family",
    "the path to it floods every spring",
    "tourists rarely notice the small sign",
]


@dataclass
class Figure:
    """One measured case."""

    case: str
    greedy_tokens: int
    items: int
    options: int
    seconds: float
    items_per_s: float
    tokens_per_s: float
    tokens: int


def make_items(n: int, k: int, letters: bool, seed: int) -> list[Item]:
    """Deterministic synthetic items: a short question and K options (letters or phrases)."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        subject, quality = rng.choice(SUBJECTS), rng.choice(QUALITIES)
        phrases = rng.sample(ANSWERS, k)
        listing = "\n".join(f"{chr(65 + j)}: {p}" for j, p in enumerate(phrases))
        question = f"Item {i}. What is true of the {quality} {subject}?\n{listing}\nAnswer:"
        options = [f" {chr(65 + j)}" for j in range(k)] if letters else [f" {p}" for p in phrases]
        items.append(Item(id=str(i), prompt=question, options=options))
    return items


def run_case(model, items: list[Item], case: str, greedy_tokens: int) -> Figure:
    renderings = [render(item, model.codec) for item in items]
    tokens = 0
    start = time.perf_counter()
    for item, rendering in zip(items, renderings, strict=True):
        readout = read_position(model, rendering, item.options, greedy_tokens=greedy_tokens)
        tokens += len(rendering.token_ids) + sum(len(t or ()) for t in readout.option_token_ids)
    seconds = time.perf_counter() - start
    return Figure(
        case=case,
        greedy_tokens=greedy_tokens,
        items=len(items),
        options=len(items[0].options),
        seconds=round(seconds, 3),
        items_per_s=round(len(items) / seconds, 2),
        tokens_per_s=round(tokens / seconds, 1),
        tokens=tokens,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=EMBEDDED_SPEC)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--options", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()

    model = load_model(args.model)
    print(f"model {model.info.spec}  items {args.items}  options {args.options}  seed {args.seed}")
    print(f"{'case':<22}{'greedy':>7}{'seconds':>10}{'items/s':>10}{'tokens/s':>11}", flush=True)
    figures = []
    for case, letters in (("multi-token options", False), ("single-token letters", True)):
        items = make_items(args.items, args.options, letters, args.seed)
        run_case(model, items[:3], case, 0)  # warm-up
        for greedy_tokens in (0, 16):
            f = run_case(model, items, case, greedy_tokens)
            figures.append(f)
            print(
                f"{f.case:<22}{f.greedy_tokens:>7}{f.seconds:>10.2f}"
                f"{f.items_per_s:>10.2f}{f.tokens_per_s:>11.1f}",
                flush=True,
            )
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak_rss_mb:.0f} MB")
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            payload = {"figures": [asdict(f) for f in figures], "peak_rss_mb": peak_rss_mb}
            json.dump(payload, handle, indent=2)


if __name__ == "__main__":
    main()
