"""Where a judge study's sources come from: the datasets, their splits, the excluded inventories."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from readout_audit._util import INT_MAX, option_hint
from readout_audit.judge.inventory._banks import DATASETS, load_bank, split_problem
from readout_audit.judge.inventory._build import PriorInventory
from readout_audit.judge.inventory._fresh import read_earlier
from readout_audit.judge.inventory._sources import SourceBank
from readout_audit.judge.protocol import PlannedRequest

_WHERE = "FILE|HUB-ID"


class SourceSettings(BaseModel):
    """Each dataset's file or hub id and split, what a bank admits, and what it excludes."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    gsm8k: str | None = Field(default=None, json_schema_extra=option_hint(metavar=_WHERE))
    """GSM8K: its JSON-lines file, or a hub dataset id or local copy (e.g. openai/gsm8k,
    configuration main)."""
    gsm8k_split: str | None = Field(default=None, min_length=1)
    """The hub dataset's split [default: test] (a file is read whole)."""
    drop: str | None = Field(default=None, json_schema_extra=option_hint(metavar=_WHERE))
    """DROP in the hub's layout: a JSON-lines or JSON-array file, or a hub dataset id or local
    copy (e.g. ucinlp/drop)."""
    drop_split: str | None = Field(default=None, min_length=1)
    """The hub dataset's split [default: train] (a file is read whole)."""
    halueval: str | None = Field(default=None, json_schema_extra=option_hint(metavar=_WHERE))
    """HaluEval QA (qa_data.json's layout): a JSON-lines or JSON-array file, or a hub dataset
    id or local copy (e.g. pminervini/HaluEval, configuration qa)."""
    halueval_split: str | None = Field(default=None, min_length=1)
    """The hub dataset's split [default: data] (a file is read whole)."""
    drop_dates: bool = False
    """Admit a DROP number typed date (a year) as a reference (the paper's workload is numbers
    only)."""
    allow_download: bool = False
    """Let hub ids download (else offline)."""
    exclude: tuple[Path, ...] = Field(default=(), json_schema_extra=option_hint(repeat=True))
    """An earlier inventory (its directory or inventory.jsonl) whose source ids, clusters and
    normalised questions are not used again (repeatable)."""
    limit: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Only the first N rows of each dataset, read before the sources are drawn."""

    @model_validator(mode="after")
    def _read(self) -> SourceSettings:
        """Refuse a setting nothing reads: a split without its hub dataset, dates without DROP."""
        for dataset in DATASETS:
            where, split = getattr(self, dataset), getattr(self, f"{dataset}_split")
            if split is not None and where is None:
                raise ValueError(f"--{dataset}-split is not read without --{dataset}")
            problem = None if where is None else split_problem(where, dataset, split)
            if problem is not None:
                raise ValueError(problem)
        if self.drop_dates and self.drop is None:
            raise ValueError("--drop-dates is not read without --drop")
        return self

    def named(self) -> list[str]:
        """The datasets given, in the order GSM8K, DROP, HaluEval."""
        return [name for name in DATASETS if getattr(self, name) is not None]

    def banks(self) -> list[SourceBank]:
        """The named datasets' sources, each dataset read once."""
        return [
            load_bank(
                getattr(self, dataset),
                dataset,
                split=getattr(self, f"{dataset}_split"),
                allow_download=self.allow_download,
                dates=dataset == "drop" and self.drop_dates,
                limit=self.limit,
            )
            for dataset in self.named()
        ]

    def priors(self) -> list[tuple[PriorInventory, list[PlannedRequest]]]:
        """The excluded inventories' planned requests, each with its name, hash and size."""
        return [read_earlier(path, "--exclude names it") for path in self.exclude]
