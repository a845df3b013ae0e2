"""What a judge analysis is frozen with: the configuration family, its seeds, weights and draws."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from readout_audit._exceptions import InputError
from readout_audit.judge.protocol import PRESENTATIONS, Presentation

PAPER_BOOTSTRAP_SEED = 20261007154
"""Seed 004's first configuration's bootstrap seed; the k-th configuration uses this plus k."""
PRIMARY_DRAWS = 49_999
"""Bootstrap draws of the primary test: p ≥ 1/50,000."""


class JudgeAnalysisSettings(BaseModel):
    """The frozen analysis choices; read from a run's manifest ``config`` (see ``from_config``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    configurations: list[str] | None = None
    """The primary family's configurations, in order (default: those in the records, sorted)."""
    seeds: dict[str, int] = Field(default_factory=dict)
    """Bootstrap seed per configuration (default: ``PAPER_BOOTSTRAP_SEED`` + family position)."""
    dataset_weights: dict[str, float] | None = None
    """Planned dataset weights w_d of Eq. 8 (default: equal over the datasets planned)."""
    n_boot: int = Field(default=PRIMARY_DRAWS, ge=1)
    alpha: float = Field(default=0.05, gt=0, lt=1)
    tolerance: float = Field(default=1e-12, ge=0)
    """Slack of the centred bootstrap p's comparison."""
    search_stage: str | None = None
    """A cue search's stage (``development-0``, ``confirmation``): no gates or test families,
    which belong to the protocol's inventories; the search ranks and confirms on its own."""
    study: str | None = None
    """A robustness study's name (``reference-switch``): its own gates and family replace the
    confirmation study's."""
    study_design: dict[str, Any] | None = None
    """The study's manifest entry (its judges, families, panel): what its analysis reads."""
    inventory_counts: dict[str, dict[str, int]] | None = None
    """Per configuration run and phase, the inventory's planned requests: the run's kept plan
    must hold as many (None: a run made before they were kept)."""

    @field_validator("dataset_weights")
    @classmethod
    def _weights_sum_to_one(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is None:
            return None
        if not value or any(w < 0 for w in value.values()):
            raise ValueError(f"Expected non-negative dataset weights, but got {value}")
        if not math.isclose(sum(value.values()), 1.0, abs_tol=1e-9):
            raise ValueError(f"Expected dataset weights summing to 1, but got {value}")
        return value

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> JudgeAnalysisSettings:
        """Settings from a manifest's config.

        Reads ``family`` (the inventory's configurations: objects with ``name`` and
        ``bootstrap_seed``, in the family's order; a run made before it was kept names its own
        ``configurations`` instead), ``dataset_weights``, and ``analysis`` (any field of this
        model, overriding the others).
        """
        found: dict[str, Any] = {}
        listed = config.get("family", config.get("configurations"))
        if listed is not None:
            found["configurations"] = [c["name"] for c in listed]
            found["seeds"] = {
                c["name"]: c["bootstrap_seed"] for c in listed if "bootstrap_seed" in c
            }
        if config.get("dataset_weights") is not None:
            found["dataset_weights"] = config["dataset_weights"]
        if config.get("inventory_counts") is not None:
            found["inventory_counts"] = config["inventory_counts"]
        if config.get("search") is not None:
            found["search_stage"] = config["search"].get("stage")
        if config.get("study") is not None:
            found["study"] = config["study"].get("name")
            found["study_design"] = config["study"]
            if config["study"].get("dataset_weights") is not None:
                found.setdefault("dataset_weights", config["study"]["dataset_weights"])
        found.update(config.get("analysis") or {})
        try:
            return cls.model_validate(found)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(p) for p in problem["loc"])
            raise InputError(problem["msg"], source="manifest config", field=where) from None

    @property
    def presentation(self) -> Presentation:
        """The study's one presentation (an inventory built before it was recorded: insertion)."""
        found = (self.study_design or {}).get("presentation", "insertion")
        if found not in PRESENTATIONS:
            raise InputError(
                f"expected one of {', '.join(PRESENTATIONS)}, got {found!r}",
                source="manifest config",
                field="study.presentation",
            )
        return found  # type: ignore[no-any-return]

    def family(self, present: Iterable[str]) -> list[str]:
        """The family's configurations; a configuration in the records must belong to it."""
        names = sorted(set(present))
        if self.configurations is None:
            return names
        stray = [n for n in names if n not in self.configurations]
        if stray:
            raise InputError(
                f"records of configuration(s) {stray} outside the analysis family "
                f"{self.configurations}",
                field="configuration",
            )
        return list(self.configurations)

    def seed(self, configuration: str, family: list[str]) -> int:
        """The configuration's bootstrap seed."""
        if configuration in self.seeds:
            return self.seeds[configuration]
        return PAPER_BOOTSTRAP_SEED + family.index(configuration)

    def weights(self, datasets: Iterable[str]) -> dict[str, float]:
        """w_d for the planned datasets: the frozen ones, or equal weights when none are set."""
        planned = sorted(set(datasets))
        if self.dataset_weights is None:
            return {d: 1 / len(planned) for d in planned}
        unweighted = [d for d in planned if d not in self.dataset_weights]
        if unweighted:
            raise InputError(
                f"dataset(s) {unweighted} have no weight in {self.dataset_weights}",
                field="dataset",
            )
        return dict(self.dataset_weights)
