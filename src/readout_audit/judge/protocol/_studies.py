"""The natural-source studies' vocabulary (seed 004, Sections 5 and F): cells and contrasts.

The decomposition study, the repeat panel and the formatting pilot grade DROP and HaluEval
sources with candidates that keep a wrong final value Y and vary the earlier line: the
reference-matching value X or a constructed wrong value Z (the prefix), then a bridge. A cell
is ``{prefix}.{bridge}`` (``x.actual``, ``z.random_colon``), with ``.p2``/``.p3`` for a repeated
pass of the same body, or a clean control of the confirmation study (``bare_correct``, ...),
or a repeat fixture ``fixture.{open|close}.{control}``.

A contrast is a signed sum of cells read per source, possibly across a judge's contracts; its
value range is ± the number of positive terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from readout_audit.judge.protocol._cells import Presentation

DECOMPOSITION_STUDY = "decomposition"
REPEAT_STUDY = "repeat"
PILOT_STUDY = "formatting-pilot"

PREFIXES = ("x", "z")
"""The earlier line: X matches the reference, Z is a constructed wrong value."""
MARKER = "Neutral answer"
"""The neutral marker bridge: an inserted label with no claim (the paper's neutral control)."""
DECOMPOSITION_BRIDGES = ("blank", "actual", "correct_answer", "marker", "random", "random_colon")
PILOT_BRIDGES = ("blank", "colon", "random", "random_colon")
REPEAT_BRIDGES = ("random", "random_colon")
"""The repeat panel's bridges run in three passes; its blank cells run once."""
REPEAT_PASSES = 3
DECOMPOSITION_CONTROLS = ("bare_correct", "bare_wrong")
"""Bare reference answer and bare constructed wrong final value: reported, not gating."""
GATED_CONTROLS = ("bare_correct", "bare_wrong", "wrong_final_only", "revision")
"""The repeat panel's and pilot's clean gates (95%, 95%, 95%, 90% of planned sources)."""
FIXTURE = "fixture"
"""A repeat fixture: a clean control of the panel's first source, at opening and closing."""
STUDY_WEIGHTS = {DECOMPOSITION_STUDY: 0.5, PILOT_STUDY: 0.5, REPEAT_STUDY: None}
"""Equal DROP/HaluEval weights for the decomposition and the pilot; the repeat panel weights
each dataset by its planned share (.7/.3 for 56 DROP and 24 HaluEval sources)."""

Reading = Literal["accepted", "score"]
"""A cell's per-source reading: the native positive verdict, or its displayed probability."""
Inference = Literal["bootstrap", "mcnemar"]


def cell(prefix: str, bridge: str, passed: int = 1) -> str:
    """A prefix-by-bridge cell, ``.p2`` or ``.p3`` for its repeated passes."""
    return f"{prefix}.{bridge}" + (f".p{passed}" if passed > 1 else "")


def fixture_cell(moment: str, control: str) -> str:
    """A repeat fixture's cell: ``fixture.open.revision``."""
    return f"{FIXTURE}.{moment}.{control}"


def parse_study_cell(name: str) -> tuple[str, str, int] | None:
    """A prefix-by-bridge cell's (prefix, bridge, pass), or None for a control or fixture."""
    parts = name.split(".")
    if len(parts) not in (2, 3) or parts[0] not in PREFIXES:
        return None
    passed = int(parts[2][1:]) if len(parts) == 3 else 1
    return parts[0], parts[1], passed


Term = tuple[str, str, int]
"""(contract, cell, sign): one signed cell of a contrast, read under the judge's contract."""


@dataclass(frozen=True)
class Contrast:
    """A named signed sum of cells per source, and how it is tested."""

    name: str
    terms: tuple[Term, ...]
    reading: Reading = "accepted"
    test: Inference = "bootstrap"

    @property
    def value_range(self) -> tuple[float, float]:
        """± the number of positive terms: a source's value can be no further out."""
        width = float(sum(sign > 0 for _, _, sign in self.terms))
        return -width, width

    @property
    def contracts(self) -> tuple[str, ...]:
        """The contracts its terms read, in first-use order."""
        return tuple(dict.fromkeys(contract for contract, _, _ in self.terms))


def excess(
    contract: str,
    cue: str,
    control: str,
    prefix: str = "x",
    *,
    reading: Reading = "accepted",
    test: Inference = "bootstrap",
) -> Contrast:
    """Cue minus control with one prefix: the paired acceptance difference of Eq. (7)."""
    terms = ((contract, cell(prefix, cue), 1), (contract, cell(prefix, control), -1))
    name = f"{contract} {_label(cue)}−{_label(control)}" + ("" if prefix == "x" else " (Z)")
    return Contrast(name, terms, reading, test)


def interaction(contract: str, cue: str, control: str) -> Contrast:
    """The prefix interaction I(cue) = [cue − control]_X − [cue − control]_Z."""
    x, z = excess(contract, cue, control), excess(contract, cue, control, "z")
    terms = x.terms + tuple((c, name, -sign) for c, name, sign in z.terms)
    return Contrast(f"{contract} I({_label(cue)}/{_label(control)})", terms)


def _label(bridge: str) -> str:
    return {
        "blank": "blank",
        "actual": "Actual",
        "correct_answer": "Correct answer",
        "marker": "marker",
        "random": "R",
        "random_colon": "R:",
        "colon": "colon",
    }[bridge]


def reference_change() -> Contrast:
    """The Actual-minus-blank effect under HALL_R minus the same under HALL (X prefix)."""
    with_reference = excess("HALL_R", "actual", "blank")
    without = excess("HALL", "actual", "blank")
    terms = with_reference.terms + tuple((c, n, -s) for c, n, s in without.terms)
    return Contrast("HALL_R−HALL Actual−blank", terms)


DECOMPOSITION_PRIMARY = (interaction("HALL", "actual", "blank"), reference_change())
"""The two primary tests: I_HALL(Actual) and the change when HALL gains a reference field."""
DECOMPOSITION_SECONDARY = (
    excess("HALL", "actual", "blank"),
    excess("HALL", "correct_answer", "blank"),
    excess("HALL", "marker", "blank"),
    excess("HALL", "random", "blank"),
    excess("HALL", "random_colon", "random"),
    excess("HALL", "actual", "random"),
    interaction("HALL", "correct_answer", "blank"),
    excess("HALL_R", "actual", "blank"),
    excess("HALL_R", "correct_answer", "blank"),
    excess("HALL_R", "random_colon", "random"),
    interaction("HALL_R", "actual", "blank"),
    excess("FINAL3", "actual", "blank"),
    excess("FINAL3", "correct_answer", "blank"),
    excess("FINAL3", "marker", "blank"),
    excess("FINAL3", "random_colon", "random"),
    interaction("FINAL3", "actual", "blank"),
    interaction("FINAL3", "random_colon", "random"),
)
"""The seventeen secondary contrasts (this project's reading of the family the paper names)."""
DECOMPOSITION_CONTRACTS = ("HALL", "HALL_R", "FINAL3")

REPEAT_PRIMARY = (
    excess("FINAL3", "random_colon", "random", test="mcnemar"),
    interaction("FINAL3", "random_colon", "random"),
)
"""Punctuation excess (exact McNemar) and the prefix-by-punctuation interaction (bootstrap)."""
REPEAT_SECONDARY = (
    excess("FINAL3", "random_colon", "blank", test="mcnemar"),
    excess("FINAL3", "random", "blank", test="mcnemar"),
    excess("FINAL3", "random_colon", "random", "z", test="mcnemar"),
)
"""Three exact McNemar comparisons per configuration: six for the paper's two endpoints."""


def pilot_contrast() -> Contrast:
    """T = [(R: − R) − (colon − blank)]_X − [same]_Z on displayed p(correct), final Y wrong."""
    x = excess("FINAL3", "random_colon", "random").terms + tuple(
        (c, n, -s) for c, n, s in excess("FINAL3", "colon", "blank").terms
    )
    z = tuple((c, n.replace("x.", "z.", 1), -s) for c, n, s in x)
    return Contrast("T", x + z, reading="score")


PILOT_PRIMARY = (pilot_contrast(),)
PILOT_DESCRIPTIVE = excess("FINAL3", "random_colon", "random", test="mcnemar")
"""The R:/R acceptance comparison with X: exact McNemar outside the primary family."""

CONFIRMATION_STUDY = "confirmation"
"""The protocol's own study: the presentation-by-cue confirmation with its preflight."""

STUDY_PRESENTATION: Presentation = "sorted"
"""The robustness studies' one presentation, which the seed does not name: inferred from its
listing their state fields in sorted order (model_reply, question, trusted_reference), its
calling the sorted presentation canonical, and the Jev R: effect appearing under it alone."""
