"""How a settings field is spelled on the command line, kept beside the field it describes.

The ``readout`` commands generate their options from the typed settings, so one declaration
(the field, its bounds, its docstring) serves a notebook and the CLI alike; the hint only says
what a type cannot: another option name, a metavar, a file or a folder, a repeatable option.
"""

from __future__ import annotations

import os
from typing import Annotated, Any, Literal, TypedDict

from pydantic import Field

INT_MAX = (1 << 63) - 1
"""The largest integer a setting may hold (a signed 64-bit one): numpy, torch, ``islice`` and
the manifest's reader all take it, so a run that records it can be read back and resumed."""
SEED_MAX = INT_MAX
"""The largest seed every generator takes (numpy, torch, random)."""
Seed = Annotated[int, Field(ge=0, le=SEED_MAX, strict=True)]
"""A seed: a non-negative integer every generator takes (a bool is no seed)."""
THREADS_MAX = os.cpu_count() or 1
"""The most CPU threads a model may use: this machine's cores (torch refuses far more)."""

HINT_KEY = "option"
"""The key of ``json_schema_extra`` that holds a field's :class:`OptionHint`."""


class OptionHint(TypedDict, total=False):
    """What the generated option of a field needs beyond the field's type, default and docstring."""

    flag: str
    """The option's name when it is not the field's (``--items`` for ``source``)."""
    dest: str
    """The name click passes the value under, when it is not the field's."""
    metavar: str
    path: Literal["file", "dir"]
    """A path option that must be a file (not a folder) or a folder (not a file)."""
    repeat: bool
    """A tuple given by repeating the option, instead of comma-separated values."""
    skip: bool
    """A field no command sets (a notebook's only)."""
    no_default_shown: bool
    read_by: Literal["local", "served"]
    """The one kind of model that reads the field (a nested model's: each of its fields); the
    option given for the other kind is refused before anything loads."""


def option_hint(
    flag: str | None = None,
    *,
    dest: str | None = None,
    metavar: str | None = None,
    path: Literal["file", "dir"] | None = None,
    repeat: bool = False,
    skip: bool = False,
    no_default_shown: bool = False,
    read_by: Literal["local", "served"] | None = None,
) -> dict[str, Any]:
    """A field's ``json_schema_extra``: ``Field(json_schema_extra=option_hint("--items"))``."""
    hint: OptionHint = {}
    if flag is not None:
        hint["flag"] = flag
    if dest is not None:
        hint["dest"] = dest
    if metavar is not None:
        hint["metavar"] = metavar
    if path is not None:
        hint["path"] = path
    if repeat:
        hint["repeat"] = True
    if skip:
        hint["skip"] = True
    if no_default_shown:
        hint["no_default_shown"] = True
    if read_by is not None:
        hint["read_by"] = read_by
    return {HINT_KEY: dict(hint)}
