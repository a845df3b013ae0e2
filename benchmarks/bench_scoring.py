"""Scoring N items x K options: readout-audit against lm-evaluation-harness (not a test).

Run: .venv/bin/python benchmarks/bench_scoring.py [--items 200] [--options 4] [--device D]
[--dtype T] [--json OUT]
(lm-eval comes with the bench extra: pip install -e '.[bench]').

Two cases on the embedded model: multi-token option phrases and single-token letters. For each,
the same (context, option) strings are scored by readout-audit (one padded forward per batch of
contexts; options from the contexts' key-value cache) and by lm-eval's HFLM ``loglikelihood``
wrapping the very same model object, each once untimed on the same items, then alternating,
best of ``--rounds`` (3), the device synchronised around every timed span (timing.py).
Printed: wall time, items/s, tokens/s, the speed ratio and the largest difference between the
two log-likelihoods. Then a full audit pass (mass, argmax, top-k, every option, 16-token greedy
continuation) is timed against a bare forward over the same tokens; the device's matmul
throughput in the model's dtype gives the roofline fraction (FLOPs = 2 x parameters x tokens);
and the peak RSS is set against the model's weights.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
from collections.abc import Sequence
from functools import partial
from typing import Any

import torch
from timing import clock, duel, peak_gpu_mb

from readout_audit import EMBEDDED_SPEC, Item, load_model, read_position, render
from readout_audit.readout import encode_in_context, position_request

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
GREEDY_TOKENS = 16


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


def ours(model: Any, items: Sequence[Item], batch: int, greedy: int) -> tuple[float, list[float]]:
    """Seconds to read every item fully, and every option's log-likelihood in order."""
    renderings = [render(item, model.codec) for item in items]
    encodings = [
        encode_in_context(model.codec, r, i.options) for r, i in zip(renderings, items, strict=True)
    ]
    logliks: list[float] = []
    with clock(model.info.device) as span:
        for lo in range(0, len(items), batch):
            chunk = range(lo, min(lo + batch, len(items)))
            requests = [position_request(renderings[i], encodings[i], greedy) for i in chunk]
            for i, scores in zip(chunk, model.score_positions(requests), strict=True):
                readout = read_position(
                    model, renderings[i], items[i].options, encodings=encodings[i], scores=scores
                )
                logliks += [float(x) for x in readout.option_logprobs if x is not None]
    return span.seconds, logliks


def lm_eval_harness(hflm: Any, items: Sequence[Item]) -> tuple[float, list[float]]:
    """Seconds for HFLM.loglikelihood on the same (context, option) strings, and its values."""
    from lm_eval.api.instance import Instance

    requests = [
        Instance("loglikelihood", {}, (item.prompt, option), index)
        for index, (item, option) in enumerate((i, o) for i in items for o in i.options)
    ]
    with clock(hflm.device) as span:
        results = hflm.loglikelihood(requests, disable_tqdm=True)
    return span.seconds, [float(ll) for ll, _ in results]


def token_count(model: Any, items: Sequence[Item]) -> int:
    """Context tokens plus every option's tokens: the work both scorers share."""
    total = 0
    for item in items:
        rendering = render(item, model.codec)
        encodings = encode_in_context(model.codec, rendering, item.options)
        total += len(rendering.token_ids) + sum(len(e.token_ids or ()) for e in encodings)
    return total


def bare_forward(model: Any, sequences: Sequence[Sequence[int]], batch: int) -> float:
    """Seconds for plain padded forwards (no cache) over the given token sequences."""
    with clock(model.info.device) as span:
        for lo in range(0, len(sequences), batch):
            model._batched_last_logprobs(sequences[lo : lo + batch])
    return span.seconds


def profiled(model: Any, items: Sequence[Item], batch: int) -> dict[str, dict[str, float]]:
    """One audit pass under torch.profiler: each scoring phase's host (and device) seconds.

    The ten costliest operators are printed too.
    """
    from torch.profiler import ProfilerActivity, profile

    cuda = model.info.device.startswith("cuda")
    activities = [ProfilerActivity.CPU, *([ProfilerActivity.CUDA] if cuda else [])]
    with profile(activities=activities) as prof:
        ours(model, items, batch, GREEDY_TOKENS)
    averages = prof.key_averages()
    phases = {
        event.key.removeprefix("readout: "): {
            "host_seconds": event.cpu_time_total / 1e6,
            **({"device_seconds": event.device_time_total / 1e6} if cuda else {}),
        }
        for event in averages
        if event.key.startswith("readout: ")
    }
    print(f"profile of one audit pass, seconds per phase: {json.dumps(phases)}")
    sort = "self_device_time_total" if cuda else "self_cpu_time_total"
    print(averages.table(sort_by=sort, row_limit=10))
    return phases


def current_rss_mb(field: str = "VmRSS") -> float:
    """Resident memory of this process now (VmRSS) or at its peak (VmHWM), in MiB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def matmul_gflops(module: Any, rows: int = 2048, repeats: int = 20) -> float:
    """Matmul throughput on the model's device and dtype, on its decoder layers' MLP shape."""
    like = next(module.parameters())
    hidden, inner = module.config.hidden_size, module.config.intermediate_size
    a = torch.randn(rows, hidden, device=like.device, dtype=like.dtype)
    b = torch.randn(hidden, inner, device=like.device, dtype=like.dtype)
    torch.mm(a, b)
    best = float("inf")
    for _ in range(repeats):
        with clock(like.device) as span:
            torch.mm(a, b)
        best = min(best, span.seconds)
    return 2 * rows * hidden * inner / best / 1e9


def memory_only(args: argparse.Namespace) -> None:
    """In a fresh process: peak RSS of a full audit pass alone, with no lm-eval loaded."""
    baseline_mb = current_rss_mb()  # interpreter, torch and transformers, no model
    model = load_model(args.model, device=args.device, dtype=args.dtype)
    loaded_mb = current_rss_mb()
    items = make_items(args.items, args.options, False, args.seed)
    ours(model, items, args.batch_size, GREEDY_TOKENS)
    peak_mb = current_rss_mb("VmHWM")  # ru_maxrss would carry the parent's peak across exec
    figures = {"baseline_rss_mb": baseline_mb, "loaded_rss_mb": loaded_mb, "peak_rss_mb": peak_mb}
    print(json.dumps({**figures, "peak_gpu_mb": peak_gpu_mb()}))


def audit_memory(args: argparse.Namespace) -> dict[str, Any]:
    """Run :func:`memory_only` in a child process and read its figures."""
    command = [sys.executable, __file__, "--memory-only", "--items", str(args.items)]
    command += ["--options", str(args.options), "--batch-size", str(args.batch_size)]
    command += ["--model", args.model, "--seed", str(args.seed)]
    command += ["--device", args.device, "--dtype", args.dtype]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def scorer_arguments(**sizes: int) -> argparse.ArgumentParser:
    """The options this benchmark and bench_prefix.py share, then ``sizes`` (name: default)."""
    parser = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__.splitlines()[0])
    parser.add_argument("--model", default=EMBEDDED_SPEC)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--dtype", default="auto")
    for name, default in sizes.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds after a warm-up")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", dest="json_out")
    return parser


def scorers(args: argparse.Namespace) -> tuple[Any, Any]:
    """Our model at the chosen placement, and lm-eval's HFLM wrapping the same model object."""
    from lm_eval.models.huggingface import HFLM

    model = load_model(args.model, device=args.device, dtype=args.dtype)
    hflm = HFLM(pretrained=model._model, tokenizer=model.codec._tok, batch_size=args.batch_size)
    return model, hflm


def main() -> None:
    parser = scorer_arguments(items=200, options=4)
    parser.add_argument("--memory-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_only:
        memory_only(args)
        return
    model, hflm = scorers(args)
    parameters = sum(p.numel() for p in model._model.parameters())
    print(
        f"model {model.info.spec} ({parameters / 1e6:.1f}M parameters, {model.info.dtype}, "
        f"{model.info.device})  "
        f"items {args.items}  options {args.options}  batch {args.batch_size}  "
        f"torch threads {torch.get_num_threads()}"
    )
    header = f"{'case':<22}{'scorer':<16}{'seconds':>9}{'items/s':>9}{'tokens/s':>10}"
    print(header, flush=True)
    cases: dict[str, dict[str, Any]] = {}
    for case, letters in (("multi-token options", False), ("single-token letters", True)):
        items = make_items(args.items, args.options, letters, args.seed)
        tokens = token_count(model, items)
        best, last = duel(
            {
                "readout-audit": partial(ours, model, items, args.batch_size, 0),
                "lm-eval HFLM": partial(lm_eval_harness, hflm, items),
            },
            args.rounds,
        )
        values = {scorer: result[1] for scorer, result in last.items()}
        for scorer, seconds in best.items():
            print(
                f"{case:<22}{scorer:<16}{seconds:>9.2f}{len(items) / seconds:>9.2f}"
                f"{tokens / seconds:>10.0f}",
                flush=True,
            )
        diff = max(abs(a - b) for a, b in zip(*values.values(), strict=True))
        speedup = best["lm-eval HFLM"] / best["readout-audit"]
        print(f"{case:<22}speed-up x{speedup:.2f}, max |log-prob difference| {diff:.2e}")
        cases[case] = {
            "seconds": best,
            "items": len(items),
            "tokens": tokens,
            "speedup": speedup,
            "max_abs_logprob_diff": diff,
        }

    items = make_items(args.items, args.options, False, args.seed)
    ours(model, items, args.batch_size, GREEDY_TOKENS)  # warm-up on the shapes timed
    rounds = range(args.rounds)
    audit_seconds = min(ours(model, items, args.batch_size, GREEDY_TOKENS)[0] for _ in rounds)
    sequences, processed = [], 0
    for item in items:
        rendering = render(item, model.codec)
        readout = read_position(model, rendering, item.options, greedy_tokens=GREEDY_TOKENS)
        options = [t for ids in readout.option_token_ids for t in ids or ()]
        sequence = [*rendering.token_ids, *options, *readout.greedy.token_ids]
        sequences.append(sequence)
        processed += len(sequence)
    bare_forward(model, sequences, args.batch_size)
    bare_seconds = min(bare_forward(model, sequences, args.batch_size) for _ in rounds)
    phases = profiled(model, items, args.batch_size)
    gflops = matmul_gflops(model._model)
    achieved = 2 * parameters * processed / audit_seconds / 1e9
    weights_mb = parameters * next(model._model.parameters()).element_size() / 2**20
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"full audit pass (mass, argmax, options, {GREEDY_TOKENS}-token greedy): "
        f"{audit_seconds:.2f} s; bare forward of the same {processed} tokens: "
        f"{bare_seconds:.2f} s; ratio x{audit_seconds / bare_seconds:.2f}"
    )
    print(
        f"{model.info.dtype} matmul {gflops:.1f} GFLOP/s; audit pass {achieved:.1f} GFLOP/s; "
        f"roofline fraction {achieved / gflops:.2f} ({processed / audit_seconds:,.0f} tokens/s "
        f"against {gflops * 1e9 / (2 * parameters):,.0f} at the matmul rate)"
    )
    alone = audit_memory(args)
    model_mb = alone["peak_rss_mb"] - alone["baseline_rss_mb"]
    resident_mb = alone["loaded_rss_mb"] - alone["baseline_rss_mb"]
    print(
        f"peak RSS of this process (both scorers) {peak_rss_mb:.0f} MB. A full audit pass alone, "
        f"in a fresh process: before loading {alone['baseline_rss_mb']:.0f} MB; the loaded "
        f"model {resident_mb:.0f} MB (x{resident_mb / weights_mb:.2f} its float32 weights of "
        f"{weights_mb:.0f} MB); peak {alone['peak_rss_mb']:.0f} MB, so the audit's working "
        f"memory (activations, logits) is {alone['peak_rss_mb'] - alone['loaded_rss_mb']:.0f} MB"
    )
    figures = {
        "speedup_vs_lm_eval": cases["multi-token options"]["speedup"],
        "speedup_vs_lm_eval_letters": cases["single-token letters"]["speedup"],
        "max_abs_logprob_diff": max(c["max_abs_logprob_diff"] for c in cases.values()),
        "audit_pass_over_bare_forward": audit_seconds / bare_seconds,
        "audit_pass_seconds": audit_seconds,
        "audit_pass_profile_seconds": phases,
        "bare_forward_seconds": bare_seconds,
        "tokens_processed": processed,
        "audit_tokens_per_s": processed / audit_seconds,
        "matmul_tokens_per_s": gflops * 1e9 / (2 * parameters),
        "matmul_gflops": gflops,
        "achieved_gflops": achieved,
        "roofline_fraction": achieved / gflops,
        "peak_rss_mb": alone["peak_rss_mb"],
        "peak_rss_mb_with_lm_eval": peak_rss_mb,
        "peak_gpu_mb": alone["peak_gpu_mb"],
        "peak_gpu_mb_with_lm_eval": peak_gpu_mb(),
        "baseline_rss_mb": alone["baseline_rss_mb"],
        "loaded_rss_mb": alone["loaded_rss_mb"],
        "loaded_model_over_weights": resident_mb / weights_mb,
        "peak_over_baseline_mb": model_mb,
        "weights_mb": weights_mb,
        "cases": cases,
        "settings": vars(args),
        "torch_threads": torch.get_num_threads(),
    }
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump(figures, handle, indent=2)
        print(f"figures written to {args.json_out}")


if __name__ == "__main__":
    main()
