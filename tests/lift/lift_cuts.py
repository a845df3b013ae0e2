"""Hand-built cuts shared by the lift tests (real-looking TeX, no file needed)."""

from __future__ import annotations

from readout_audit.lift import Cut
from readout_audit.lift._cut import sha256_text

CONTEXT = (
    "We consider a particle of mass $m$ in the harmonic potential $V(x) = m\\omega^2 x^2/2$. "
    "Its Hamiltonian and spectrum follow from the ladder operators introduced above.\n"
) * 12


EQUATION_TARGETS = {
    "alpha": r"\hbar \omega \left(n + \frac{1}{2}\right)",
    "beta": r"\frac{p^2}{2m} + V(x)",
    "gamma": r"m \omega^2 x^2 / 2",
    "delta": r"\sqrt{k / m}",
    "eps": r"\sum_{n} c_n \psi_n(x)",
    "zeta": r"\int dx \, |\psi(x)|^2 = 1",
}
"""Short equation targets by paper: the fine-tuning tests' papers."""


def equation_cut(
    target: str = r"\hbar \omega \left(n + \frac{1}{2}\right), \qquad n = 0, 1, 2, \dots",
    paper: str = "osc",
    key: str = "eq1",
) -> Cut:
    """An align cut after ``E_n &=``."""
    prefix = r"H &= \frac{p^2}{2m} + \frac{1}{2} m \omega^2 x^2 \\" + "\nE_n &= "
    return Cut(
        id=f"{paper}:{key}",
        kind="equation",
        paper=paper,
        key=key,
        source=f"{paper}.tex",
        paper_sha256=sha256_text(CONTEXT),
        env="align",
        opening=r"\begin{align}",
        closing=r"\end{align}",
        operator="=",
        display_start=len(CONTEXT),
        cut_offset=len(CONTEXT) + 14 + len(prefix),
        target_end=len(CONTEXT) + 14 + len(prefix) + len(target),
        context=CONTEXT.rstrip(),
        prefix=prefix,
        target=target,
        target_sha256=sha256_text(target),
    )


def prose_cut(target: str = "The ground state has energy $\\hbar\\omega/2$.\n") -> Cut:
    """A prose cut after the context."""
    return Cut(
        id="osc:block3",
        kind="prose",
        paper="osc",
        key="block3",
        source="osc.tex",
        paper_sha256=sha256_text(CONTEXT),
        display_start=len(CONTEXT),
        cut_offset=len(CONTEXT),
        target_end=len(CONTEXT) + len(target),
        context=CONTEXT.rstrip(),
        prefix="",
        target=target,
        target_sha256=sha256_text(target),
    )
