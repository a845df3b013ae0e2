"""How a judge is driven, typed: a local model's placement and batch, a served one's pools.

:func:`run_judge` runs one phase of an inventory on whichever its configurations name: a
served judge through endpoints built from the settings, a local one on the model the caller
opens (``open_local``, called only for a local judge, after every check that needs no model).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit.judge.inventory import read_inventory
from readout_audit.judge.protocol import Phase
from readout_audit.judge.run._run import (
    JudgePlan,
    chosen_configurations,
    run_local_judge,
    run_served_judge,
)
from readout_audit.kind import ScoreResult
from readout_audit.model import (
    DEFAULT_BATCH_SIZE,
    ScoringModel,
    api_headers,
    is_served,
    parse_served_spec,
)
from readout_audit.progress import ProgressMode
from readout_audit.serve import CostCap, Endpoint


class JudgeExecution(BaseModel):
    """What drives a judge besides its inventory: each field read by a local or a served one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    device: str = "auto"
    dtype: str = "auto"
    batch_size: int = Field(default=DEFAULT_BATCH_SIZE, ge=1)
    """A local judge's requests per forward."""
    allow_download: bool = False
    concurrency: int = Field(default=4, ge=1)
    """A served judge's requests in flight per endpoint."""
    starts_per_s: float | None = Field(default=None, gt=0)
    request_timeout: float = Field(default=120.0, gt=0)
    api_key_env: str | None = None
    """The environment variable holding a served judge's API key."""
    endpoint: tuple[str, ...] = ()
    """URLs used instead of the inventory's (one pool each); the bodies stay as planned."""
    max_spend_tokens: int | None = Field(default=None, ge=0)
    max_spend_usd: float | None = Field(default=None, ge=0)
    usd_per_mtok_prompt: float = Field(default=0.0, ge=0)
    usd_per_mtok_completion: float = Field(default=0.0, ge=0)

    def endpoints(self, judge: str) -> list[Endpoint]:
        """A served judge's endpoints: ``endpoint`` or its spec's URLs, with the key's header."""
        headers = api_headers(self.api_key_env)
        urls = self.endpoint or parse_served_spec(judge).base_urls
        return [
            Endpoint(url, self.concurrency, self.starts_per_s, self.request_timeout, headers)
            for url in urls
        ]

    def cap(self) -> CostCap | None:
        """The cost cap over the run's ledger (None when neither tokens nor money is capped)."""
        if self.max_spend_tokens is None and self.max_spend_usd is None:
            return None
        return CostCap(
            max_tokens=self.max_spend_tokens,
            max_usd=self.max_spend_usd,
            usd_per_mtok_prompt=self.usd_per_mtok_prompt,
            usd_per_mtok_completion=self.usd_per_mtok_completion,
        )


def inventory_judge(inventory_dir: str | Path, configurations: Sequence[str] = ()) -> str:
    """The one judge the named configurations of an inventory share (all when none named)."""
    return chosen_configurations(read_inventory(inventory_dir), configurations)[0].judge


def run_judge(
    inventory_dir: str | Path,
    out: str | Path,
    execution: JudgeExecution,
    open_local: Callable[[str], ScoringModel] | ScoringModel,
    *,
    phase: Phase,
    configurations: Sequence[str] = (),
    unqualified: bool = False,
    progress: ProgressMode = "off",
) -> tuple[ScoreResult, JudgePlan]:
    """Run one phase of an inventory on its judge, served or local; a rerun resumes.

    ``open_local``: the local judge's model, or how to open it from its spec.
    """
    judge = inventory_judge(inventory_dir, configurations)
    if is_served(judge):
        return run_served_judge(
            inventory_dir,
            out,
            execution.endpoints(judge),
            phase=phase,
            configurations=configurations,
            unqualified=unqualified,
            cap=execution.cap(),
            progress=progress,
        )
    model = open_local if isinstance(open_local, ScoringModel) else open_local(judge)
    return run_local_judge(
        model,
        inventory_dir,
        out,
        phase=phase,
        configurations=configurations,
        unqualified=unqualified,
        batch_size=execution.batch_size,
        progress=progress,
    )
