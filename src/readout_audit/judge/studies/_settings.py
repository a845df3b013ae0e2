"""``readout judge build`` as one call: typed settings in, a finished inventory stage out.

The inventory directory is a stage (``judge.inventory._file``): refused at once while another
process writes it, resumed when it holds the same settings, refused (listing the differences)
when it holds others, unless overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from readout_audit._util import INT_MAX, SEED_MAX, OneOf, Seed, option_hint
from readout_audit.judge.inventory import (
    INVENTORY_FILE,
    INVENTORY_KIND,
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
from readout_audit.judge.studies._study import STUDIES, get_study
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

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    study: Annotated[str, OneOf(lambda: list(STUDIES))] = "confirmation"
    """confirmation: the presentation study; decomposition: six bridges x two earlier values
    under HALL, HALL_R and FINAL3; formatting-pilot: colon placements x two earlier values;
    repeat: three passes on a decomposition's sources (--from-inventory); reference-switch:
    generated items graded in two reference worlds."""
    items: int = Field(default=SWITCH_ITEMS, ge=4, le=INT_MAX, strict=True)
    """Generated items of the reference switch (a multiple of 4)."""
    reused: Path | None = Field(default=None, json_schema_extra=option_hint("--from-inventory"))
    """The repeat panel: the decomposition inventory whose sources it reuses."""
    panel: dict[str, Annotated[int, Field(le=INT_MAX)]] | None = Field(
        default=None, json_schema_extra=option_hint(metavar="DATASET=N", repeat=True)
    )
    """The repeat panel: sources per dataset, the first in the decomposition's sampling order
    [default: drop=56, halueval=24] (repeatable)."""
    sources: SourceSettings = SourceSettings()
    seed: Seed = PAPER_SEED
    per_dataset: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Sources per dataset [default: the paper's: confirmation 100, decomposition 120,
    formatting-pilot 8]."""
    preflight_per_dataset: int = Field(default=10, ge=0, le=INT_MAX, strict=True)
    """Preflight sources per dataset (disjoint from the confirmation sources)."""
    configurations: tuple[str, ...] = Field(
        min_length=1,
        json_schema_extra=option_hint(
            "--configuration", metavar="NAME=CONTRACT@JUDGE", repeat=True
        ),
    )
    """A judge and its contract (FINAL3, FINAL4, HALL, HALL_R), e.g. local3=FINAL3@smollm2-135m
    or served=FINAL4@openai:http://127.0.0.1:8080/v1#smollm2 (repeatable); the k-th gets
    bootstrap seed --bootstrap-seed + k."""
    response_formats: dict[str, ResponseFormat] = Field(
        default_factory=dict,
        json_schema_extra=option_hint("--response-format", metavar="NAME=FORM", repeat=True),
    )
    """How configuration NAME's bodies ask for structured output: json_schema (OpenAI, vLLM,
    SGLang; the default), json_object (llama-cpp-python) or none (the label read from the text)
    (repeatable)."""
    bootstrap_seed: int | None = Field(default=None, ge=0, le=SEED_MAX, strict=True)
    """The first configuration's bootstrap seed; the others count up from it [default:
    --seed]."""
    presentation: Presentation | None = None
    """A robustness study's one presentation: sorted (every dictionary's keys sorted) or
    insertion [default: sorted; the repeat panel keeps its decomposition's]."""

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

    @model_validator(mode="after")
    def _datasets(self) -> BuildSettings:
        """A study drawing sources needs a dataset; another takes none, nor --limit or --exclude."""
        study = STUDIES[self.study]
        named = self.sources.named()
        if study.sourced and not named:
            raise ValueError("give --gsm8k, --drop or --halueval (one or more)")
        given = [*named, *(name for name in ("limit", "exclude") if getattr(self.sources, name))]
        if not study.sourced and given:
            raise ValueError(f"the {self.study} study reads no dataset: drop --{given[0]}")
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


def _check_outputs(settings: BuildSettings, out: Path) -> None:
    """Refuse, even overwriting, an ``out`` whose files are this build's inputs or not files."""
    given = [*([settings.reused] if settings.reused is not None else []), *settings.sources.exclude]
    inputs = [path / INVENTORY_FILE if path.is_dir() else path for path in given]
    for name in (INVENTORY_FILE, MANIFEST_FILE, OUTCOME_FILE, LEGACY_MANIFEST_FILE):
        check_output_path(
            out / name, option="out", inputs=inputs, force=True, own=(out, INVENTORY_KIND)
        )


def build_study(settings: BuildSettings, out: str | Path, *, overwrite: bool = False) -> Inventory:
    """Build the settings' study inventory into ``out`` as a stage, and return it.

    Every check that needs no dataset comes first (the configurations, the outputs, the
    stage's lock); a study drawing sources is refused beside an inventory it shares sources
    with, whichever was built first (``refuse_shared_sources``).
    """
    out = Path(out)
    study = get_study(settings.study)
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
    if study.sourced:
        siblings = sibling_inventories(out, settings.sources.exclude)
        refuse_shared_sources(study.name, inventory, siblings)
    write_inventory(out, inventory, overwrite=overwrite)
    return inventory
