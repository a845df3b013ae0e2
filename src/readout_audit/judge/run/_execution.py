"""How a judge is driven, typed: a local model's placement and batch, a served one's pools.

:func:`run_judge` runs one phase of an inventory (:class:`JudgeRun`) on whichever judge its
configurations name: a served judge through endpoints built from the settings, a local one on
the model opened on the settings' device and dtype (or the caller's ``open_local``), only after
every check that needs no model.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._util import INT_MAX, option_hint
from readout_audit.judge.inventory import read_inventory
from readout_audit.judge.protocol import Phase
from readout_audit.judge.run._kind import JUDGE
from readout_audit.judge.run._run import (
    JudgePlan,
    chosen_configurations,
    run_local_judge,
    run_served_judge,
)
from readout_audit.kind import ModelChoice, ScoreResult, claim
from readout_audit.log import RunDirectory
from readout_audit.model import (
    DEFAULT_BATCH_SIZE,
    Device,
    Dtype,
    ScoringModel,
    ServedSettings,
    is_served,
    parse_served_spec,
)
from readout_audit.progress import ProgressMode
from readout_audit.serve import CostCap, Endpoint


class JudgeExecution(BaseModel):
    """What drives a judge besides its inventory: each field read by a local or a served one."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, allow_inf_nan=False, use_attribute_docstrings=True
    )

    device: Device = Field(default="auto", json_schema_extra=option_hint(read_by="local"))
    """A local judge's device: auto (cuda if available, else mps, else cpu), cpu, cuda, cuda:N
    or mps."""
    dtype: Dtype = Field(default="auto", json_schema_extra=option_hint(read_by="local"))
    """A local judge's weights' dtype; auto is bfloat16 on a GPU and float32 on the CPU."""
    batch_size: int = Field(
        default=DEFAULT_BATCH_SIZE,
        ge=1,
        le=INT_MAX,
        strict=True,
        json_schema_extra=option_hint(read_by="local"),
    )
    """A local judge's requests per forward (a shared prefix is encoded once)."""
    allow_download: bool = False
    """Let hf: judges download from the Hub."""
    served: ServedSettings = Field(
        default_factory=ServedSettings, json_schema_extra=option_hint(read_by="served")
    )
    """A served judge's key, pools, pacing, timeout and cost cap over the run's ledger."""
    endpoint: tuple[str, ...] = Field(
        default=(), json_schema_extra=option_hint(metavar="URL", repeat=True, read_by="served")
    )
    """Send a served judge's requests here instead of the inventory's URLs (the model name and
    the bodies stay as planned); repeatable, one pool each."""

    def open_local(self, spec: str) -> ScoringModel:
        """Open a local judge (or proposer) from its spec, on this device and dtype."""
        choice = ModelChoice(
            spec, device=self.device, dtype=self.dtype, allow_download=self.allow_download
        )
        return choice.open()

    def endpoints(self, judge: str) -> list[Endpoint]:
        """A served judge's endpoints: ``endpoint`` or its spec's URLs, with the key's header."""
        return self.served.endpoints(self.endpoint or parse_served_spec(judge).base_urls)

    def cap(self) -> CostCap | None:
        """The cost cap over the run's ledger (None when neither tokens nor money is capped)."""
        return self.served.cap


def inventory_judge(inventory_dir: str | Path, configurations: Sequence[str] = ()) -> str:
    """The one judge the named configurations of an inventory share (all when none named)."""
    return chosen_configurations(read_inventory(inventory_dir), configurations)[0].judge


class JudgeRun(BaseModel):
    """One phase of an inventory on its judge, as ``readout judge run`` takes it."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    out: Path
    """Run directory."""
    phase: Phase
    """Preflight first; confirmation runs the configurations whose preflight gates passed."""
    configurations: tuple[str, ...] = Field(
        default=(), json_schema_extra=option_hint("--configuration", metavar="NAME", repeat=True)
    )
    """Configurations to run (repeatable; default all). One run drives one judge."""
    unqualified: bool = False
    """Confirm without (or despite) preflight: recorded, and the analysis still gates."""
    execution: JudgeExecution = JudgeExecution()
    progress: ProgressMode = Field(default="off", json_schema_extra=option_hint(skip=True))
    """off: nothing on stderr; else a progress bar."""


def run_judge(
    inventory_dir: str | Path,
    run: JudgeRun,
    open_local: Callable[[str], ScoringModel] | ScoringModel | None = None,
) -> tuple[ScoreResult, JudgePlan]:
    """Run one phase of an inventory on its judge, served or local; a rerun resumes.

    ``run.out`` is checked and locked before the judge opens. ``open_local``: the local
    judge's model, or how to open it from its spec (default: :meth:`JudgeExecution.open_local`).
    """
    with claim(run.out, JUDGE) as directory:
        return judge_phase(inventory_dir, run, directory, open_local)


def judge_phase(
    inventory_dir: str | Path,
    run: JudgeRun,
    directory: RunDirectory,
    open_local: Callable[[str], ScoringModel] | ScoringModel | None = None,
) -> tuple[ScoreResult, JudgePlan]:
    """:func:`run_judge` into a run directory its caller opened (a cue search, for its stages)."""
    execution = run.execution
    judge = inventory_judge(inventory_dir, run.configurations)
    if is_served(judge):
        return run_served_judge(
            inventory_dir,
            directory,
            execution.endpoints(judge),
            phase=run.phase,
            configurations=run.configurations,
            unqualified=run.unqualified,
            cap=execution.cap(),
            progress=run.progress,
        )
    if isinstance(open_local, ScoringModel):
        model = open_local
    else:
        model = (open_local or execution.open_local)(judge)
    return run_local_judge(
        model,
        inventory_dir,
        directory,
        phase=run.phase,
        configurations=run.configurations,
        unqualified=run.unqualified,
        batch_size=execution.batch_size,
        progress=run.progress,
    )
