"""Forecast files: one JSON line per (cut, setting), ours or written elsewhere, read back checked.

Ours are appended one flushed line at a time beside a sidecar manifest
(``<file>.manifest.json``: model, files' hashes, chat template hash, settings, seed, commands),
so a rerun of the same command resumes where the last one stopped. One process at a time
writes a file: it holds ``<file>.lock`` throughout, and a second writer stops at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from readout_audit._exceptions import InputError, RunDirectoryError
from readout_audit._util._jsonl import JsonlAppender, iter_values, write_json_atomic
from readout_audit._util._models import read_models
from readout_audit.lift._cut import Cut
from readout_audit.log._lock import RunLock
from readout_audit.log._manifest import Manifest, now
from readout_audit.log._run import _differences, read_json_file

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
    n_tokens: int | None = None
    """Tokens generated, the end-of-turn token included when there was one."""
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


def manifest_path(path: Path) -> Path:
    """The sidecar manifest of a forecast file: ``<file>.manifest.json``."""
    return path.with_name(path.name + ".manifest.json")


def forecast_lock(path: Path) -> RunLock:
    """The lock a forecast file is written under: ``<file>.lock`` beside it."""
    return RunLock(path, beside=True)


def check_unlocked(path: Path) -> None:
    """Raise at once, naming the holder, while another process writes the forecast file.

    For a command to call before it loads a model; the writer then takes the lock for good.
    """
    if path.parent.is_dir():
        lock = forecast_lock(path)
        lock.acquire()
        lock.release()


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
    forecasts = _read(path, setting, known, append_only=False)
    if not forecasts:
        raise InputError("holds no forecasts", source=str(path))
    return forecasts


def _read(
    path: Path, setting: str | None, known: set[str] | None, *, append_only: bool
) -> list[Forecast]:
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

    return read_models(
        iter_values(path, append_only=append_only),
        Forecast,
        source=source,
        key=lambda forecast: (forecast.cut_id, forecast.setting),
        key_field="cut_id",
        repeated=repeated,
        prepare=lambda value, line: _with_setting(value, source, line, setting),
        check=among_cuts,
    )


class ForecastFile:
    """Our forecast file opened for appending, locked, its sidecar manifest written or checked."""

    def __init__(self, path: Path, manifest: Manifest, setting: str) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = forecast_lock(path)
        self._lock.acquire()
        try:
            self._open(manifest, setting)
        except BaseException:
            self._lock.release()
            raise

    def _open(self, manifest: Manifest, setting: str) -> None:
        """Check or write the sidecar manifest, read what is written, open for appending."""
        path = self.path
        sidecar = manifest_path(path)
        if sidecar.exists():
            try:
                previous = Manifest.model_validate(read_json_file(sidecar, "choose another --out"))
            except ValidationError:
                raise RunDirectoryError(f"{sidecar} is corrupt; choose another --out") from None
            changed = _differences(previous.identity(), manifest.identity())
            if changed:
                raise RunDirectoryError(
                    f"{path} holds forecasts made with other settings; choose another --out. "
                    "Differences: " + "; ".join(changed)
                )
            manifest = previous.model_copy(
                update={"invocations": [*previous.invocations, *manifest.invocations]}
            )
        elif path.exists() and path.stat().st_size:
            raise RunDirectoryError(
                f"{path} exists without its manifest {sidecar.name}; choose another --out"
            )
        self.manifest = manifest
        write_json_atomic(sidecar, manifest.model_dump(mode="json"))
        written = _read(path, None, None, append_only=True)
        self.done = {f.cut_id: f for f in written if f.setting == setting}
        """This setting's forecasts already in the file, by cut id."""
        self._appender = JsonlAppender(path)  # drops a last line cut off by an interruption

    def write(self, forecast: Forecast) -> None:
        """Append one forecast and flush it."""
        if forecast.cut_id in self.done:
            raise RunDirectoryError(
                f"cut {forecast.cut_id!r} already has a forecast in {self.path}"
            )
        self._appender.write_text(forecast.model_dump_json())
        self.done[forecast.cut_id] = forecast

    def finish(self) -> None:
        """Mark this invocation finished in the manifest."""
        self.manifest.invocations[-1].finished = now()
        write_json_atomic(manifest_path(self.path), self.manifest.model_dump(mode="json"))

    def __enter__(self) -> ForecastFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._appender.close()
        self._lock.release()
