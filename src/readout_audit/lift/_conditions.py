r"""The scorer's prompts (seed 001): one per condition, all followed by the same target.

Equation cuts use the paper's scaffold: the forecast completes a first copy of the equation,
then the same prefix is opened again and the true suffix Y plus ``\n`` and the closing
delimiter is scored. The recent-context controls are unscaffolded: the last B = |Y| + 40
characters before the display (and three times that), then the display's opening and prefix.
A forecast spends the same budget as that control: it is cut to B characters. Prose cuts use
the notes scaffold around 2,000-character windows with the forecast cut to 1,000 characters;
their control is the unscaffolded 3,000-character context.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.lift._cut import Cut

EMPTY, CONTEXT, TRIPLE, ORACLE = "empty", "context", "context3", "oracle"
SFT = "sft"
"""The context-only SFT control: the ``context`` prompt read by the fine-tuned scorer."""
FORECAST = "forecast/"
"""Forecast conditions are named ``forecast/<setting>``."""


@dataclass(frozen=True)
class LiftSetup:
    """The scorer's budgets, as the paper states them."""

    slack: int = 40
    """B = |Y| + slack characters of recent context for the same-budget control."""
    multipliers: tuple[int, ...] = (1, 3)
    """Recent-context controls as multiples of B (``context``, ``context3``)."""
    window: int = 2000
    """Prose: characters of paper text before and after the notes."""
    z_budget: int = 1000
    """Prose: the forecast is truncated to this many characters."""
    prose_context: int = 3000
    """Prose: characters of the unscaffolded recent-context control."""
    oracle: bool = True
    """Score the true-suffix condition (Z = Y)."""
    closing: bool = True
    """Score the closing delimiter after an equation's target (the toy check omits it)."""
    bos: bool = False
    """Open every scorer prompt with the tokenizer's beginning-of-sequence token when it does
    not add one itself (SmolLM2's is ``<|im_start|>``): a document start, and what
    llama-cpp-python needs to read echoed log-probabilities at their own positions."""

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> LiftSetup:
        """The setup a run's manifest recorded (:meth:`as_config`)."""
        names = [f.name for f in fields(cls)]
        found = {name: config[name] for name in names if name in config}
        if "multipliers" in found:
            found["multipliers"] = tuple(found["multipliers"])
        return cls(**found)

    def as_config(self) -> dict[str, object]:
        """The setup as a run manifest records it."""
        return {
            "slack": self.slack,
            "multipliers": list(self.multipliers),
            "window": self.window,
            "z_budget": self.z_budget,
            "prose_context": self.prose_context,
            "oracle": self.oracle,
            "closing": self.closing,
            "bos": self.bos,
        }


@dataclass(frozen=True)
class Condition:
    """One scorer prompt for a cut; ``scaffold`` prompts share their common prefix's forward."""

    name: str
    prompt: str
    scaffold: bool
    forecast: str | None = None
    """The forecast Z a forecast condition's scaffold holds, cut to its budget: B = |Y| + 40
    characters for an equation (the same budget as the recent-context control), 1,000 for
    prose."""


def equation_scaffold(cut: Cut, z: str) -> str:
    """The paper's First equation / Same equation scaffold with Z completing the first copy."""
    return (
        "% First equation:\n"
        f"{cut.opening}\n{cut.prefix}{z}\n{cut.closing}\n\n"
        "% Same equation:\n"
        f"{cut.opening}\n{cut.prefix}"
    )


def _commented(text: str) -> str:
    """Text as TeX comment lines, ``% `` before each (a bare ``%`` for an empty line)."""
    return "\n".join(f"% {line}" if line else "%" for line in text.split("\n"))


def prose_scaffold(cut: Cut, z: str, setup: LiftSetup) -> str:
    """The notes scaffold: the window, the forecast as comments, the same window again."""
    window = cut.context[-setup.window :]
    notes = _commented(z[: setup.z_budget])
    return (
        f"{window}\n% Notes about what's next:\n{notes}\n% Returning to paper text:\n{window}\n\n"
    )


def budget(cut: Cut, setup: LiftSetup) -> int:
    """B: the forecast's character budget, |Y| + slack."""
    return len(cut.target) + setup.slack


def recent_context(cut: Cut, chars: int) -> str:
    """An unscaffolded control: the last ``chars`` characters before the cut.

    An equation's control ends with the display's opening and the visible prefix.
    """
    tail = cut.context[-chars:] if chars > 0 else ""
    if cut.kind == "prose":
        return f"{tail}\n\n"
    return f"{tail}\n{cut.opening}\n{cut.prefix}"


def target_text(cut: Cut, setup: LiftSetup) -> str:
    """What is scored: Y, plus a newline and the closing delimiter of an equation."""
    if cut.kind == "equation" and setup.closing and cut.closing:
        return f"{cut.target}\n{cut.closing}"
    return cut.target


def conditions(cut: Cut, forecasts: Mapping[str, str], setup: LiftSetup) -> list[Condition]:
    """The cut's prompts: empty scaffold, recent-context controls, each forecast, the oracle."""
    for setting in forecasts:
        if not setting or "/" in setting:
            raise InputError(
                f"forecast setting {setting!r} must be a non-empty name without '/'",
                item_id=cut.id,
                field="setting",
            )

    def scaffold(z: str) -> str:
        if cut.kind == "equation":
            return equation_scaffold(cut, z)
        return prose_scaffold(cut, z, setup)

    found = [Condition(EMPTY, scaffold(""), True)]
    if cut.kind == "equation":
        for m in setup.multipliers:
            name = CONTEXT if m == 1 else f"{CONTEXT}{m}"
            chars = math.ceil(budget(cut, setup) * m)
            found.append(Condition(name, recent_context(cut, chars), False))
    else:
        found.append(Condition(CONTEXT, recent_context(cut, setup.prose_context), False))
    for setting, z in forecasts.items():
        z = z[: budget(cut, setup)] if cut.kind == "equation" else z[: setup.z_budget]
        found.append(Condition(f"{FORECAST}{setting}", scaffold(z), True, z))
    if setup.oracle:
        found.append(Condition(ORACLE, scaffold(cut.target), True))
    return found
