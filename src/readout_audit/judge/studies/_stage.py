"""``readout judge build`` as one call: typed settings in, a finished inventory stage out.

The inventory directory is a stage (``judge.inventory._file``): refused at once while another
process writes it, resumed when it holds the same settings, refused (listing the differences)
when it holds others, unless overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from readout_audit._exceptions import InputError
from readout_audit.judge.inventory import (
    INVENTORY_FILE,
    LEGACY_MANIFEST_FILE,
    MANIFEST_FILE,
    OUTCOME_FILE,
    PAPER_SEED,
    SWITCH_ITEMS,
    Configuration,
    Inventory,
    SourceSettings,
    check_inventory_unlocked,
    parse_configuration,
    read_inventory,
    refuse_shared_sources,
    sibling_inventories,
    write_inventory,
)
from readout_audit.judge.protocol import RESPONSE_FORMATS, Presentation, ResponseFormat
from readout_audit.judge.studies._build import build_study_inventory
from readout_audit.judge.studies._study import get_study
from readout_audit.log import check_output_path


def _pairs(values: Any, what: str) -> dict[str, str]:
    """``KEY=VALUE`` texts as a mapping, each key once (a mapping passes unchanged)."""
    if isinstance(values, dict):
        return values
    found: dict[str, str] = {}
    for text in values:
        key, eq, value = str(text).partition("=")
        if not eq or not key or not value:
            raise ValueError(f"expected {what}, got {text!r}")
        if key in found:
            raise ValueError(f"{key!r} is given twice")
        found[key] = value
    return found


class BuildSettings(BaseModel):
    """Everything one inventory is built from, as ``readout judge build`` takes it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    study: str = "confirmation"
    configurations: tuple[str, ...] = Field(min_length=1)
    """``NAME=CONTRACT@JUDGE`` each; the ``k``-th gets bootstrap seed ``bootstrap_seed + k``."""
    response_formats: dict[str, ResponseFormat] = Field(default_factory=dict)
    """By configuration name (given as ``NAME=FORM`` texts): how its bodies ask for structure."""
    seed: int = Field(default=PAPER_SEED, ge=0)
    bootstrap_seed: int | None = Field(default=None, ge=0)
    """The first configuration's bootstrap seed (None: ``seed``)."""
    per_dataset: int | None = Field(default=None, ge=1)
    preflight_per_dataset: int = Field(default=10, ge=0)
    items: int = Field(default=SWITCH_ITEMS, ge=4)
    reused: Path | None = None
    """The repeat panel's decomposition inventory."""
    panel: dict[str, int] | None = None
    """The repeat panel's sources per dataset (given as ``DATASET=N`` texts; None: the paper's)."""
    presentation: Presentation | None = None
    sources: SourceSettings = SourceSettings()

    @field_validator("response_formats", mode="before")
    @classmethod
    def _forms(cls, value: Any) -> dict[str, str]:
        forms = _pairs(value, "NAME=FORM")
        for name, form in forms.items():
            if form not in RESPONSE_FORMATS:
                raise ValueError(
                    f"{name}: {form!r} is not a response format; expected one of "
                    f"{list(RESPONSE_FORMATS)}"
                )
        return forms

    @field_validator("panel", mode="before")
    @classmethod
    def _panel(cls, value: Any) -> dict[str, str] | None:
        return _pairs(value, "DATASET=N") or None if value is not None else None

    @field_validator("panel")
    @classmethod
    def _counts(cls, value: dict[str, int] | None) -> dict[str, int] | None:
        if value is not None and any(n < 1 for n in value.values()):
            raise ValueError(f"every dataset needs at least one source, got {value}")
        return value

    @model_validator(mode="after")
    def _named(self) -> BuildSettings:
        names = [text.partition("=")[0] for text in self.configurations]
        for name in self.response_formats:
            if name not in names:
                raise ValueError(f"{name!r} names no --configuration")
        return self

    def parsed_configurations(self) -> list[Configuration]:
        """The configurations, each with its bootstrap seed and response format."""
        first = self.seed if self.bootstrap_seed is None else self.bootstrap_seed
        return [
            parse_configuration(
                text,
                first + index,
                self.response_formats.get(text.partition("=")[0], "json_schema"),
            )
            for index, text in enumerate(self.configurations)
        ]


def _check_sources(settings: BuildSettings, sourced: bool) -> None:
    """A study drawing sources needs a dataset; one drawing none takes no dataset."""
    named = settings.sources.named()
    if sourced and not named:
        raise InputError("give --gsm8k, --drop or --halueval (one or more)", field="dataset")
    if not sourced and named:
        raise InputError(f"the {settings.study} study reads no dataset: drop --{named[0]}")


def _check_outputs(settings: BuildSettings, out: Path) -> None:
    """Refuse, even overwriting, an ``out`` whose files are this build's inputs or not files."""
    given = [*([settings.reused] if settings.reused is not None else []), *settings.sources.exclude]
    inputs = [path / INVENTORY_FILE if path.is_dir() else path for path in given]
    for name in (INVENTORY_FILE, MANIFEST_FILE, OUTCOME_FILE, LEGACY_MANIFEST_FILE):
        check_output_path(out / name, option="out", inputs=inputs, force=True)


def build_study(settings: BuildSettings, out: str | Path, *, overwrite: bool = False) -> Inventory:
    """Build the settings' study inventory into ``out`` as a stage, and return it.

    Every check that needs no dataset comes first (the configurations, the outputs, the
    stage's lock); a fresh study is refused beside an inventory it shares sources with.
    """
    out = Path(out)
    study = get_study(settings.study)
    _check_sources(settings, study.sourced)
    configurations = settings.parsed_configurations()
    study.check_configurations(configurations)
    _check_outputs(settings, out)
    check_inventory_unlocked(out)
    inventory = build_study_inventory(
        study.name,
        configurations,
        seed=settings.seed,
        banks=settings.sources.banks() if study.sourced else (),
        per_dataset=settings.per_dataset,
        preflight_per_dataset=settings.preflight_per_dataset,
        priors=settings.sources.priors(),
        items=settings.items,
        reused=None if settings.reused is None else read_inventory(settings.reused),
        panel=settings.panel,
        presentation=settings.presentation,
    )
    if study.fresh:
        earlier = sibling_inventories(out, settings.sources.exclude)
        refuse_shared_sources(study.name, inventory, earlier)
    write_inventory(out, inventory, overwrite=overwrite)
    return inventory
