"""Where a judge study's sources come from: the datasets, their splits, the excluded inventories."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit.judge.inventory._banks import DATASETS, load_bank
from readout_audit.judge.inventory._build import PriorInventory
from readout_audit.judge.inventory._file import read_planned
from readout_audit.judge.inventory._sources import SourceBank
from readout_audit.judge.protocol import PlannedRequest


class SourceSettings(BaseModel):
    """Each dataset's file or hub id and split, what a bank admits, and what it excludes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gsm8k: str | None = None
    gsm8k_split: str = "test"
    drop: str | None = None
    drop_split: str = "train"
    halueval: str | None = None
    halueval_split: str = "data"
    drop_dates: bool = False
    """Admit a DROP number typed date (a year) as a reference."""
    allow_download: bool = False
    exclude: tuple[Path, ...] = ()
    """Earlier inventories whose sources are not drawn again."""
    limit: int | None = Field(default=None, ge=1)
    """Rows of each dataset read before the sources are drawn (None: all)."""

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
