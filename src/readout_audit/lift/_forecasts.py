"""Forecast files: one JSON line per (cut, setting), ours or written elsewhere, read back checked.

Ours are a stage file (:class:`~readout_audit.log.StageFile`): appended one flushed line at a
time beside their manifest (model, files' hashes, chat template hash, settings, seed,
commands), locked while written, so a rerun of the same command resumes where the last one
stopped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from readout_audit._exceptions import InputError
from readout_audit._util import iter_values, read_models
from readout_audit.lift._cut import Cut

FORECAST_SCHEMA_VERSION = 1
_SETTING = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class Forecast(BaseModel):
    """One forecast Z of one cut's hidden target, under one predictor setting."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    cut_id: str
    setting: str
    """The predictor setting's name (``smollm2-t1``, ``gpt55-high``): letters, digits, ``.-_``."""
    z: str
    """The forecast as the scorer reads it (closing delimiter, fence and thinking removed)."""
    raw: str | None = None
    """The predictor's text as generated, when known."""
    prompt_sha256: str | None = None
    """SHA-256 of the predictor prompt's text (before any chat template)."""
    seed: int | None = None
    """The sampling seed of this cut (derived from the run's seed and the cut id)."""
    n_tokens: int | None = Field(default=None, ge=0)
    """Tokens generated, the end-of-turn token included when there was one."""
    reasoning_tokens: int | None = Field(default=None, ge=0)
    """Hidden reasoning tokens among them: what an API reports (OpenAI's ``reasoning_tokens``),
    or the tokens of a local model's leading thinking block (0 without one)."""
    model: str | None = None
    """The predictor's model spec."""
    seconds: float | None = None
    """Wall time of the generation."""
    schema_version: int = FORECAST_SCHEMA_VERSION

    @field_validator("setting")
    @classmethod
    def _setting_name(cls, value: str) -> str:
        if not _SETTING.fullmatch(value):
            raise ValueError(f"{value!r} is not a setting name (letters, digits, '.', '-', '_')")
        return value


def _with_setting(value: Any, source: str, line: int, setting: str | None) -> Any:
    """A line without ``setting`` takes the default one, if given."""
    if isinstance(value, dict) and "setting" not in value:
        if setting is None:
            raise InputError(
                "missing, and no default setting was given (--setting)",
                source=source,
                line=line,
                field="setting",
            )
        return {**value, "setting": setting}
    return value


def read_forecasts(
    path: str | Path, *, setting: str | None = None, cuts: Iterable[Cut] | None = None
) -> list[Forecast]:
    """Every forecast of a JSON-lines file, ours or minimal (``cut_id``, ``z``, ``setting``).

    ``setting`` names the lines that carry none. A repeated (cut id, setting) is an error, and
    so, when ``cuts`` are given, is a cut id that is not among them; errors name file and line.
    """
    path = Path(path)
    if not path.exists():
        raise InputError("no such file", source=str(path))
    known = None if cuts is None else {cut.id for cut in cuts}
    source = str(path)

    def among_cuts(forecast: Forecast, line: int) -> None:
        if known is not None and forecast.cut_id not in known:
            raise InputError(
                f"cut {forecast.cut_id!r} is not among the cuts",
                source=source,
                line=line,
                field="cut_id",
            )

    def repeated(key: Any, first: int) -> str:
        cut_id, name = key
        return f"cut {cut_id!r} under setting {name!r} already has a forecast on line {first}"

    forecasts = read_models(
        iter_values(path),
        Forecast,
        source=source,
        key=forecast_key,
        key_field="cut_id",
        repeated=repeated,
        prepare=lambda value, line: _with_setting(value, source, line, setting),
        check=among_cuts,
    )
    if not forecasts:
        raise InputError("holds no forecasts", source=source)
    return forecasts


def forecast_key(forecast: Forecast) -> tuple[str, str]:
    """A forecast's place in its file: one per cut and setting."""
    return forecast.cut_id, forecast.setting
