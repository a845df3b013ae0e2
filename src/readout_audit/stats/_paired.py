"""Paired binary readouts: the transition table and the closed-form F1 of a flipping readout."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from readout_audit.stats._validate import as_binary_array, same_length


@dataclass(frozen=True)
class TransitionTable:
    """Counts of (readout a, readout b) decisions per label, as in seed 002's Table 7.

    ``counts[label][a][b]`` with label, a, b ∈ {1: yes, 0: no}; e.g. ``yes_to_no("yes")`` is the
    number of label-yes items that ``a`` reads yes and ``b`` reads no (8y→2n).
    """

    counts: np.ndarray
    """Shape (2, 2, 2): [label (0 no, 1 yes), a (0, 1), b (0, 1)]."""

    def cell(self, label: str, a: str, b: str) -> int:
        """Items with ``label`` that the first readout reads ``a`` and the second reads ``b``."""
        index = {"no": 0, "yes": 1}
        return int(self.counts[index[label], index[a], index[b]])

    def as_dict(self) -> dict[str, dict[str, int]]:
        """``{label: {"yy", "yn", "ny", "nn"}}``: a's decision first, then b's."""
        return {
            label: {
                f"{a[0]}{b[0]}": self.cell(label, a, b)
                for a in ("yes", "no")
                for b in ("yes", "no")
            }
            for label in ("yes", "no")
        }

    def closed_form_terms(self) -> dict[str, float | int]:
        """T, G, P, N, ρ_N, φ of seed 002 with readout ``a`` as the reference (eight-token) rule.

        T: label-yes items a reads yes; G: label-no items a reads no; ρ_N: share of those G that
        b reads yes; φ: share of the P − T label-yes items a reads no that b reads yes. The
        paper's two-rate form assumes b never reads no where a reads yes
        (``b_flips_yes_to_no`` = 0); the third and fourth rates κ_P (of the T) and κ_N (of the
        N − G label-no items a reads yes) are the shares b does read no, so that the closed form
        is exact on any records.
        """
        P = int(self.counts[1].sum())
        N = int(self.counts[0].sum())
        T = int(self.counts[1, 1].sum())
        G = int(self.counts[0, 0].sum())
        return {
            "T": T,
            "G": G,
            "P": P,
            "N": N,
            "rho_n": self.cell("no", "no", "yes") / G if G else 0.0,
            "phi": self.cell("yes", "no", "yes") / (P - T) if P - T else 0.0,
            "kappa_p": self.cell("yes", "yes", "no") / T if T else 0.0,
            "kappa_n": self.cell("no", "yes", "no") / (N - G) if N - G else 0.0,
            "b_flips_yes_to_no": self.cell("yes", "yes", "no") + self.cell("no", "yes", "no"),
        }


def transition_table(a: Any, b: Any, label: Any) -> TransitionTable:
    """Paired transition table of two yes/no readouts of the same items, split by label."""
    x, y, t = as_binary_array(a, "a"), as_binary_array(b, "b"), as_binary_array(label, "label")
    same_length(a=x, b=y, label=t)
    counts = np.zeros((2, 2, 2), dtype=np.int64)
    np.add.at(counts, (t.astype(int), x.astype(int), y.astype(int)), 1)
    return TransitionTable(counts=counts)


@dataclass(frozen=True)
class ClosedFormF1:
    """Confusion cells and F1 of the flipping readout, from seed 002's closed form."""

    tp: float
    fp: float
    fn: float
    tn: float
    f1: float
    precision: float
    recall: float
    yes_rate: float


def f1_closed_form(
    T: int,
    G: int,
    P: int,
    N: int,
    rho_n: float,
    phi: float,
    kappa_p: float = 0.0,
    kappa_n: float = 0.0,
) -> ClosedFormF1:
    """Closed-form F1 of a readout that flips a share of the reference readout's "no" (seed 002).

    The flipping readout reads ρ_N of the true-negative "no" emissions and φ of the
    false-negative ones as yes; the paper's form keeps every emitted yes (κ = 0):
    TP = T + φ(P − T), FP = (N − G) + ρ_N·G, FN = (1 − φ)(P − T), TN = (1 − ρ_N)·G,
    F1 = 2TP / (2TP + FP + FN). κ_P and κ_N, the shares of the reference's true and false
    positives read as no, enter as TP −= κ_P·T, FN += κ_P·T, FP −= κ_N(N − G),
    TN += κ_N(N − G). With every rate 0 it is the reference's F1, 2T / (2T + (N − G) + (P − T)).
    """
    for name, value, high in (("T", T, P), ("G", G, N)):
        if not 0 <= value <= high:
            raise ValueError(f"Expected `{name}` in [0, {high}], but got {value}")
    for name, rate in (("rho_n", rho_n), ("phi", phi), ("kappa_p", kappa_p), ("kappa_n", kappa_n)):
        if not 0 <= rate <= 1:
            raise ValueError(f"Expected `{name}` in [0, 1], but got {rate}")
    tp = T * (1 - kappa_p) + phi * (P - T)
    fp = (N - G) * (1 - kappa_n) + rho_n * G
    fn = (1 - phi) * (P - T) + kappa_p * T
    tn = (1 - rho_n) * G + kappa_n * (N - G)
    denominator = 2 * tp + fp + fn
    return ClosedFormF1(
        tp=tp,
        fp=fp,
        fn=fn,
        tn=tn,
        f1=2 * tp / denominator if denominator else 0.0,
        precision=tp / (tp + fp) if tp + fp else 0.0,
        recall=tp / P if P else 0.0,
        yes_rate=(tp + fp) / (P + N) if P + N else 0.0,
    )
