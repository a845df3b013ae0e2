"""Where a judge study's sources come from: the datasets, their splits, the excluded inventories."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._util import option_hint
from readout_audit.judge.inventory._banks import DATASETS, load_bank
from readout_audit.judge.inventory._build import PriorInventory
from readout_audit.judge.inventory._file import read_planned
from readout_audit.judge.inventory._sources import SourceBank
from readout_audit.judge.protocol import PlannedRequest

_WHERE = "FILE|HUB-ID"


class SourceSettings(BaseModel):
    """Each dataset's file or hub id and split, what a bank admits, and what it excludes."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    gsm8k: str | None = Field(default=None, json_schema_extra=option_hint(metavar=_WHERE))
    """GSM8K: its JSON-lines file, or a hub dataset id or local copy (e.g. openai/gsm8k,
    configuration main)."""
    gsm8k_split: str = "test"
    drop: str | None = Field(default=None, json_schema_extra=option_hint(metavar=_WHERE))
    """DROP in the hub's layout: a JSON-lines or JSON-array file, or a hub dataset id or local
    copy (e.g. ucinlp/drop)."""
    drop_split: str = "train"
    halueval: str | None = Field(default=None, json_schema_extra=option_hint(metavar=_WHERE))
    """HaluEval QA (qa_data.json's layout): a JSON-lines or JSON-array file, or a hub dataset
    id or local copy (e.g. pminervini/HaluEval, configuration qa)."""
    halueval_split: str = "data"
    drop_dates: bool = False
    """Admit a DROP number typed date (a year) as a reference (the paper's workload is numbers
    only)."""
    allow_download: bool = False
    """Let hub ids download (else offline)."""
    exclude: tuple[Path, ...] = Field(default=(), json_schema_extra=option_hint(repeat=True))
    """An earlier inventory (its directory or inventory.jsonl) whose source ids, clusters and
    normalised questions are not used again (repeatable)."""
    limit: int | None = Field(default=None, ge=1)
    """Only the first N rows of each dataset, read before the sources are drawn."""

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
        return [read_planned(path) for path in self.exclude]
