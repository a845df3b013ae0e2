"""Option types the commands share."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from readout_audit._exceptions import ReadoutError
from readout_audit._util import INT_MAX, SEED_MAX, decode_json, terminal_safe
from readout_audit.prompt import BUILTIN_SPECS, SPEC_SUFFIXES, SpecFile, read_spec_file
from readout_audit.stats import MAX_REPLICATES

F = TypeVar("F", bound=Callable[..., Any])


class BoundedInt(click.IntRange):
    """An integer option bounded above (``max`` is required), written in ASCII digits.

    An unbounded number would be stored in a manifest its own reader refuses, and ``int``
    would read other scripts' digits ('٣' as 3).
    """

    def __init__(self, min: int | None = None, *, max: int, **open_ends: bool) -> None:
        super().__init__(min, max, **open_ends)

    def _describe_range(self) -> str:
        """The range as help and errors show it, 2^63 − 1 spelled as the bound it is."""
        described = super()._describe_range()
        return described.replace(f"<={INT_MAX}", "<2^63") if self.max == INT_MAX else described

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The integer, or a usage error naming a value out of range or not in ASCII digits."""
        if isinstance(value, str) and not value.isascii():
            self.fail(f"{value!r} is not an integer in ASCII digits", param, ctx)
        return super().convert(value, param, ctx)


SEED = BoundedInt(0, max=SEED_MAX)
"""A seed option: a non-negative integer every generator takes (numpy, torch, random)."""


def replicates_option(name: str, default: int, what: str) -> Callable[[F], F]:
    """A bootstrap or permutation count, refused before any work when its matrix could not fit."""
    return click.option(
        name,
        default=default,
        show_default=True,
        type=BoundedInt(100, max=MAX_REPLICATES),
        help=f"{what} (at most {MAX_REPLICATES:,}: memory grows with replicates × items, and a "
        "million already fixes a p-value's third decimal).",
    )


class GivenPath(click.Path):
    """A path option or argument that names something.

    An empty string would be read as the current folder (a run written into it, a file
    replaced in it), so it is refused.
    """

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The path, or a usage error when nothing (or only spaces) was given."""
        if isinstance(value, str) and not value.strip():
            self.fail("is empty: name a file or a folder", param, ctx)
        return super().convert(value, param, ctx)


class FiniteFloat(click.FloatRange):
    """A float option in a range that also refuses nan and infinities.

    Click's range lets them through: nan compares false with every bound, so it would pass as a
    spend cap or a tolerance that never binds.
    """

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The number, or a usage error naming a value that is not finite or not ASCII."""
        if isinstance(value, str) and not value.isascii():
            self.fail(f"{value!r} is not a number in ASCII digits", param, ctx)
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


class KeyValue(click.ParamType[tuple[str, Any], Any]):
    """``KEY=VALUE``: VALUE read as JSON when it parses (false, 3, "x"), else as text.

    NaN, Infinity, out-of-range numbers and keys repeated inside a value are refused: the
    manifest would store null for the number, so the same command could never resume its run.
    """

    name = "KEY=VALUE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The (key, value) pair, or a usage error naming what is wrong."""
        if isinstance(value, tuple):
            return value
        key, sep, text = str(value).partition("=")
        if not sep or not key:
            self.fail(f"expected KEY=VALUE, got {value!r}", param, ctx)
        try:
            return key, decode_json(text)
        except json.JSONDecodeError:
            return key, text
        except ValueError as error:  # NaN, Infinity, 1e999, a key repeated in an object
            self.fail(f"{key}: {error}", param, ctx)


def _key_values(
    ctx: click.Context, param: click.Parameter, pairs: tuple[tuple[str, Any], ...]
) -> dict[str, Any]:
    """The pairs as a mapping; a key given twice is refused (the last would win silently)."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise click.BadParameter(f"{key} is given twice", ctx, param)
        found[key] = value
    return found


template_kwargs_option = click.option(
    "--template-kwarg",
    "template_kwargs",
    type=KeyValue(),
    multiple=True,
    callback=_key_values,
    help="Chat-template argument, e.g. enable_thinking=false (repeatable).",
)
"""``--template-kwarg KEY=VALUE``, repeatable, read as one mapping."""


class Listed(click.ParamType[tuple[Any, ...], Any]):
    """Comma-separated values of one type (``42,123``), optionally exactly ``shape``'s count.

    Each number is checked as its own option would be (``bounds``: a click range's; integers
    need a ``max``): floats finite, as the manifest would store NaN or an infinity as null and
    the same command could never resume its run. Empty parts are dropped; none is refused.
    """

    def __init__(self, kind: type[Any] = str, shape: str | None = None, **bounds: Any) -> None:
        self.kind, self.shape = kind, shape
        self.name = shape or f"{kind.__name__}[,{kind.__name__}...]"
        numbers = {int: BoundedInt, float: FiniteFloat}
        self.each = numbers[kind](**bounds) if kind in numbers else None

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The values as a tuple, or a usage error naming what is wrong."""
        if isinstance(value, tuple):
            return value
        parts = [part.strip() for part in str(value).split(",") if part.strip()]
        try:
            if self.each is not None and not all(part.isascii() for part in parts):
                raise ValueError("digits of another script")
            listed = tuple(self.kind(part) for part in parts)
        except ValueError:
            self.fail(f"expected comma-separated {self.kind.__name__}s, got {value!r}", param, ctx)
        if not listed:
            self.fail(f"nothing given in {value!r}", param, ctx)
        if self.kind is float and not all(math.isfinite(n) for n in listed):
            self.fail(f"must be finite numbers, got {value!r}", param, ctx)
        if self.each is not None:
            listed = tuple(self.each.convert(n, param, ctx) for n in listed)
        if self.shape is not None and len(listed) != self.shape.count(",") + 1:
            self.fail(f"expected {self.shape}, got {value!r}", param, ctx)
        return listed


class IdSets(click.ParamType[tuple[tuple[int, ...], tuple[int, ...]], Any]):
    """``YES_IDS:NO_IDS``, each comma-separated token ids, e.g. ``3582,8241:1217,3782``."""

    name = "YES_IDS:NO_IDS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The two id tuples, or a usage error naming what is wrong."""
        if isinstance(value, tuple):
            return value
        yes, sep, no = str(value).partition(":")
        if not sep:
            self.fail("expected YES_IDS:NO_IDS, e.g. 3582,8241:1217,3782", param, ctx)
        ids = Listed(int, min=0, max=INT_MAX)
        return ids.convert(yes, param, ctx), ids.convert(no, param, ctx)


class SpecType(click.ParamType[SpecFile, Any]):
    """A prompt spec: a built-in one's name (forecast, answer) or a TOML/YAML spec file."""

    name = "SPEC"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The spec with its own rungs and warnings, or a usage error naming the spec."""
        if isinstance(value, SpecFile):
            return value
        if value in BUILTIN_SPECS:
            return SpecFile(BUILTIN_SPECS[value], {})
        if Path(value).suffix not in SPEC_SUFFIXES:
            known = ", ".join(BUILTIN_SPECS)
            self.fail(
                f"unknown spec {value!r}; expected {known} or a {'/'.join(SPEC_SUFFIXES)} file",
                param,
                ctx,
            )
        try:
            return read_spec_file(value)
        except ReadoutError as error:
            self.fail(terminal_safe(str(error)), param, ctx)
