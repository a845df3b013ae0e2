"""Speed of the paired cluster bootstrap (a benchmark, not a test).

Run: .venv/bin/python benchmarks/bench_bootstrap.py [--replicates 20000] [--clusters 240]

B paired cluster replicates of the AUC of 4 readouts over 240 clusters (2 items per cluster),
with the 6 pairwise differences, as in a forecast AUC comparison with passage clusters.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from readout_audit.stats import paired_bootstrap


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=20_000)
    parser.add_argument("--clusters", type=int, default=240)
    parser.add_argument("--items-per-cluster", type=int, default=2)
    parser.add_argument("--readouts", type=int, default=4)
    parser.add_argument("--statistic", default="auc", choices=["auc", "brier", "mean"])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    n = args.clusters * args.items_per_cluster
    labels = rng.integers(0, 2, n)
    clusters = np.repeat(np.arange(args.clusters), args.items_per_cluster)
    readouts = {
        f"r{i}": np.clip(rng.normal(0.5, 0.2, n) + 0.05 * i * labels, 0, 1)
        for i in range(args.readouts)
    }
    timings = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        result = paired_bootstrap(
            readouts,
            labels,
            statistic=args.statistic,
            clusters=clusters,
            n_boot=args.replicates,
            seed=0,
        )
        timings.append(time.perf_counter() - start)
    best, median = min(timings), float(np.median(timings))
    print(
        f"paired cluster bootstrap: B={args.replicates}, {args.readouts} readouts, "
        f"{args.clusters} clusters x {args.items_per_cluster} items, statistic={args.statistic}"
    )
    print(
        f"best {best:.3f} s, median {median:.3f} s over {args.repeats} runs "
        f"({len(result.differences)} differences)"
    )


if __name__ == "__main__":
    main()
