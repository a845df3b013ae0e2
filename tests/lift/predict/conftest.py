"""Cuts of the predictor stage's tests, built directly (the paper's appendix C.1 display)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from readout_audit.lift import Cut
from readout_audit.lift._cut import sha256_text

CONTEXT = (
    "Let us first take the following ansatz for the eigenfunctions,\n"
    "\\begin{equation}\n"
    "\t\\Psi_\\lambda(z)=\\sum_{n\\geq 0} q^n J_{\\lambda,n}(z)\\,.\n"
    "\\end{equation}\n"
    "Here $J_\\lambda(z)$ denotes the $A_1$ Jack polynomials, the well-known\n"
    "eigenfunctions of the Lam\\'{e} equation in the limit $q\\rightarrow 0$.\n"
    "The first few Jack polynomials take the following form."
)
PREFIX = (
    "J^{(\\alpha)}_0(z)&=1~,\\nonumber\\\\\n"
    "\tJ^{(\\alpha)}_1(z)&=z+\\frac{1}{z}~,\\\\\n"
    "\tJ^{(\\alpha)}_2(z)&=z^2+\\frac{1}{z^2}+\\frac{2 \\alpha }{\\alpha +"
)
TARGET = (
    "1}~,\\nonumber\\\\\n"
    "\tJ^{(\\alpha)}_3(z)&=z^3+\\frac{1}{z^3}\n"
    "\t+\\frac{3 \\alpha }{\\alpha +2}\\left(z+\\frac{1}{z}\\right)\\,,\n"
    "\t\\cdots ~.\\nonumber"
)


def build_cut(key: str = "eq7", *, kind: str = "equation", target: str = TARGET) -> Cut:
    """An align cut of paper 2604.19885 (a prose cut has no display, prefix or delimiters)."""
    display = kind == "equation"
    return Cut(
        id=f"2604.19885:{key}",
        kind=kind,  # type: ignore[arg-type]
        paper="2604.19885",
        key=key,
        source="main.tex",
        paper_sha256="0" * 64,
        env="align" if display else None,
        opening="\\begin{align}" if display else "",
        closing="\\end{align}" if display else "",
        operator="+" if display else None,
        display_start=len(CONTEXT) + 1,
        cut_offset=len(CONTEXT) + 15 + len(PREFIX),
        target_end=len(CONTEXT) + 15 + len(PREFIX) + len(target),
        context=CONTEXT,
        prefix=PREFIX if display else "",
        target=target,
        target_sha256=sha256_text(target),
    )


@pytest.fixture
def make_cut() -> Callable[..., Cut]:
    """Build a cut: ``make_cut(key, kind=..., target=...)``."""
    return build_cut
