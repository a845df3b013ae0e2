"""Few-shot prompts with shared prefixes: readout-audit against lm-evaluation-harness (not a test).

Run: .venv/bin/python benchmarks/bench_prefix.py [--subjects 4] [--per-subject 16] [--json OUT]
(lm-eval comes with the bench extra: pip install -e '.[bench]').

MMLU's 5-shot layout as lm-eval writes it (its ``first_n`` sampler: the same five solved examples
before every question of a subject, about 600 tokens), generated deterministically, in three
cases: four single-letter options (`` A`` ... `` D``), the four full-text choices, and all eight
on each question (as the options audit reads letters and text at once).
The same (context, continuation) strings are scored by readout-audit's local executor (requests
grouped by their shared token prefixes, each prefix encoded once) and by lm-eval's HFLM
``loglikelihood`` wrapping the very same model object, each once untimed on the same items,
then alternating, best of ``--rounds`` (timing.py: the device synchronised at every span's ends).
Printed per case: wall time, the speed ratio, the largest log-likelihood difference, and the
share of context tokens the model actually encoded; then the peak memory.
"""

from __future__ import annotations

import json
import random
import resource
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import torch

from readout_audit import Item, read_position, render
from readout_audit.model import LocalExecutor
from readout_audit.readout import encode_in_context, position_request

sys.path.insert(0, str(Path(__file__).parent))
from bench_scoring import (  # the same HFLM call on the same strings, the same options
    lm_eval_harness,
    scorer_arguments,
    scorers,
)
from timing import clock, duel, peak_gpu_mb

WORDS = [
    *("river", "mountain", "library", "engine", "garden", "harbour", "violin", "glacier"),
    *("quiet", "ancient", "bright", "narrow", "famous", "hidden", "busy", "cold", "council"),
    *("winter", "storm", "summer", "lesson", "family", "spring", "school", "visitor"),
    *("measure", "signal", "bridge", "market", "village", "forest", "island", "valley"),
    *("desert", "castle", "tower", "orchard"),
]
LETTERS = "ABCD"
CASES = {"5-shot letters": "letters", "5-shot full text": "text", "5-shot both": "both"}
"""Each case's options: the four letters, the four choices' text, or all eight together."""


def sentence(rng: random.Random, n: int) -> str:
    """``n`` seeded words as a sentence."""
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()


def question(rng: random.Random) -> tuple[str, list[str], int]:
    """A long MMLU-like question, four full-text choices and the gold index."""
    stem = f"{sentence(rng, 40)}. {sentence(rng, 20)}?"
    return stem, [sentence(rng, 6) for _ in LETTERS], rng.randrange(4)


def block(stem: str, choices: Sequence[str]) -> str:
    """A question as lm-eval's MMLU template writes it, up to ``Answer:``."""
    lines = [stem, *(f"{letter}. {c}" for letter, c in zip(LETTERS, choices, strict=True))]
    return "\n".join(lines) + "\nAnswer:"


def make_items(subjects: int, per_subject: int, options: str, seed: int) -> list[Item]:
    """Per subject: five solved examples (the same for every question), then each question.

    ``options``: ``letters`` (`` A`` ... `` D``), ``text`` (the four choices) or ``both``.
    """
    rng = random.Random(seed)
    items = []
    for s in range(subjects):
        subject = f"subject {WORDS[s]}"
        shots = [question(rng) for _ in range(5)]
        header = f"The following are multiple choice questions (with answers) about {subject}.\n\n"
        fewshot = "".join(f"{block(q, c)} {LETTERS[g]}\n\n" for q, c, g in shots)
        for i in range(per_subject):
            stem, choices, _ = question(rng)
            letters = [f" {x}" for x in LETTERS] if options != "text" else []
            texts = [f" {c}" for c in choices] if options != "letters" else []
            prompt = header + fewshot + block(stem, choices)
            items.append(Item(id=f"{s}-{i}", prompt=prompt, options=letters + texts))
    return items


def ours(model: Any, items: Sequence[Item], batch: int) -> tuple[float, list[float], int]:
    """Seconds, every option's log-likelihood, and the context tokens the model encoded."""
    renderings = [render(item, model.codec) for item in items]
    encodings = [
        encode_in_context(model.codec, r, i.options) for r, i in zip(renderings, items, strict=True)
    ]
    jobs = [_Job(i, position_request(renderings[i], encodings[i], 0)) for i in range(len(items))]
    values: dict[int, list[float]] = {}
    before = model.encoded_tokens
    with clock(model.info.device) as span:
        for job, scores in LocalExecutor(model, batch).run(jobs):
            i = job.index
            readout = read_position(
                model, renderings[i], items[i].options, encodings=encodings[i], scores=scores
            )
            values[i] = [float(x) for x in readout.option_logprobs if x is not None]
    encoded = model.encoded_tokens - before
    return span.seconds, [v for i in range(len(items)) for v in values[i]], encoded


class _Job:
    """What the executor answers: a request and the item it belongs to."""

    def __init__(self, index: int, request: Any) -> None:
        self.index, self.request = index, request
        self.key = (str(index),)


def context_tokens(model: Any, items: Sequence[Item]) -> int:
    """Tokens of every item's context: what a scorer without shared prefixes encodes."""
    return sum(len(render(item, model.codec).token_ids) for item in items)


def main() -> None:
    args = scorer_arguments(subjects=4, per_subject=16).parse_args()
    model, hflm = scorers(args)
    print(
        f"model {model.info.spec} ({model.info.dtype}, {model.info.device})  subjects "
        f"{args.subjects} x {args.per_subject} questions, 5 shots  batch {args.batch_size}  "
        f"torch threads {torch.get_num_threads()}",
        flush=True,
    )
    cases: dict[str, dict[str, Any]] = {}
    for case, options in CASES.items():
        items = make_items(args.subjects, args.per_subject, options, args.seed)
        tokens = context_tokens(model, items)
        best, last = duel(
            {
                "readout-audit": partial(ours, model, items, args.batch_size),
                "lm-eval HFLM": partial(lm_eval_harness, hflm, items),
            },
            args.rounds,
        )
        values = {scorer: result[1] for scorer, result in last.items()}
        encoded = last["readout-audit"][2]
        diff = max(abs(a - b) for a, b in zip(*values.values(), strict=True))
        speedup = best["lm-eval HFLM"] / best["readout-audit"]
        print(
            f"{case:<18} readout-audit {best['readout-audit']:.2f} s, lm-eval "
            f"{best['lm-eval HFLM']:.2f} s: x{speedup:.2f}; max |log-lik difference| "
            f"{diff:.2e}; {len(items)} items, {tokens} context tokens, {encoded} encoded "
            f"({encoded / tokens:.1%})",
            flush=True,
        )
        cases[case] = {
            "seconds": best,
            "items": len(items),
            "context_tokens": tokens,
            "speedup": speedup,
            "max_abs_loglik_diff": diff,
            "encoded_tokens": encoded,
        }
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS (both scorers in this process) {peak_mb:.0f} MB")
    figures = {"cases": cases, "peak_rss_mb": peak_mb, "peak_gpu_mb": peak_gpu_mb()}
    figures["settings"] = vars(args)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
        print(f"figures written to {args.json_out}")


if __name__ == "__main__":
    main()
