"""What a call may cost before it is sent (its reservation), what it did cost, and the cap."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from readout_audit.serve._call import CostCap, HttpCall


@dataclass(frozen=True)
class Spend:
    """Tokens (prompt + completion) and dollars charged against a cap."""

    tokens: int = 0
    usd: float = 0.0

    def __add__(self, other: Spend) -> Spend:
        return Spend(self.tokens + other.tokens, self.usd + other.usd)

    def __sub__(self, other: Spend) -> Spend:
        return Spend(self.tokens - other.tokens, self.usd - other.usd)


def price(cap: CostCap | None, prompt_tokens: int, completion_tokens: int) -> Spend:
    """Tokens and dollars of a prompt and a completion at the cap's prices (no cap: no price)."""
    usd = 0.0
    if cap is not None:
        usd = (
            prompt_tokens * cap.usd_per_mtok_prompt
            + completion_tokens * cap.usd_per_mtok_completion
        ) / 1e6
    return Spend(prompt_tokens + completion_tokens, usd)


def reservation(call: HttpCall, cap: CostCap | None) -> Spend:
    """The most a call can cost: its prompt and completion token bounds at the cap's prices."""
    return price(cap, call.prompt_tokens_max, call.completion_tokens_max)


def usage(response: Mapping[str, Any]) -> tuple[int, int] | None:
    """An answer's ``usage.prompt_tokens`` and ``usage.completion_tokens``, when it has both."""
    reported = response.get("usage")
    if not isinstance(reported, Mapping):
        return None
    prompt, completion = reported.get("prompt_tokens"), reported.get("completion_tokens")
    counts = (prompt, completion)
    if all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
        return prompt, completion  # type: ignore[return-value]
    return None


def over_cap(cap: CostCap | None, spent: Spend, reserve: Spend) -> str | None:
    """Why adding ``reserve`` to ``spent`` would exceed the cap, or None when it fits."""
    if cap is None:
        return None
    total = spent + reserve
    if cap.max_tokens is not None and total.tokens > cap.max_tokens:
        return (
            f"not sent: the cost cap of {cap.max_tokens} tokens would be exceeded "
            f"({spent.tokens} spent or reserved + {reserve.tokens} reserved for this call)"
        )
    if cap.max_usd is not None and total.usd > cap.max_usd + 1e-12:
        return (
            f"not sent: the cost cap of ${cap.max_usd:g} would be exceeded "
            f"(${spent.usd:.6f} spent or reserved + ${reserve.usd:.6f} reserved for this call)"
        )
    return None
