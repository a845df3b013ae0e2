"""Speed of the recovery offsets: one fit, the fit-budget curve, the prior sensitivity.

Run: .venv/bin/python benchmarks/bench_offsets.py [--rows 1000] [--repeats 5]

Collapsed three-label scores (the gold label plus noise, under a label shift that sends the raw
argmax to the last label), ``--rows`` fit rows and as many held-out rows, the default grid
(−10 to 10 by 0.05, 401 values per free offset). The fit is timed ``--repeats`` times; the
curve (6 budgets × 30 subsamples) and the 61-prior sensitivity once each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from readout_audit.recover import budget_curve, fit_offsets, prior_sensitivity


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    rng = np.random.default_rng(0)

    def scores(gold: np.ndarray) -> np.ndarray:
        return rng.normal(size=(gold.size, 3)) * 0.5 + np.eye(3)[gold] * 1.5 + [0.0, 0.3, 2.5]

    gold_fit, gold_eval = rng.integers(0, 3, args.rows), rng.integers(0, 3, args.rows)
    fit_scores, eval_scores = scores(gold_fit), scores(gold_eval)

    timings = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        fit = fit_offsets(fit_scores)
        timings.append(time.perf_counter() - start)
    print(
        f"fit_offsets {args.rows} x 3: best {min(timings) * 1e3:.1f} ms, median "
        f"{float(np.median(timings)) * 1e3:.1f} ms over {args.repeats} runs "
        f"(offsets {fit.offsets.tolist()})"
    )
    start = time.perf_counter()
    rows = budget_curve(fit_scores, eval_scores, gold_eval)
    fits = sum(len(row.accuracies) for row in rows)
    print(f"budget_curve: {time.perf_counter() - start:.2f} s for {fits} fits")
    start = time.perf_counter()
    sensitivity = prior_sensitivity(fit_scores, eval_scores, gold_eval)
    print(
        f"prior_sensitivity: {time.perf_counter() - start:.2f} s for {sensitivity.n_priors} priors "
        f"(worst accuracy {sensitivity.worst_accuracy:.3f}, raw {sensitivity.raw_accuracy:.3f})"
    )


if __name__ == "__main__":
    main()
