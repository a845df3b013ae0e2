"""``readout judge search`` as one call: typed settings in, a finished search directory out.

The search directory's lock is taken before anything is read or loaded, so a second search
into it is refused at once; then the sources are drawn, the pool read (or seeded with the
proposer's tokenizer), the judge and proposer opened once, and every stage run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

from readout_audit._util import INT_MAX, OneOf, Seed, option_hint
from readout_audit.judge.inventory import (
    PAPER_SEED,
    SourceSettings,
    choose_sources,
    parse_configuration,
)
from readout_audit.judge.protocol import Phase, Presentation, ResponseFormat
from readout_audit.judge.run import JUDGE, JudgeExecution, JudgeRun, judge_phase
from readout_audit.judge.search import (
    PROGRAMMES,
    Programme,
    SearchResult,
    SearchSetup,
    read_proposals,
    search_stages,
    seed_pool,
)
from readout_audit.log import RunDirectory, RunLock
from readout_audit.model import EMBEDDED_SPEC, ScoringModel, is_served
from readout_audit.progress import ProgressMode, announce


class SearchSettings(BaseModel):
    """A cue search as ``readout judge search`` takes it: programme, judge, pool and sources."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    programme: Annotated[str, OneOf(lambda: sorted(PROGRAMMES))]
    """screen: rank a proposals file's pool, freeze 16; extend: 20 seeds, two extension rounds,
    freeze the best two per scaffold with baselines and controls."""
    configuration: str = Field(json_schema_extra=option_hint(metavar="NAME=CONTRACT@JUDGE"))
    """The judge and its contract, e.g. local3=FINAL3@smollm2-135m; its bootstrap seed is
    --seed."""
    response_format: ResponseFormat = "json_schema"
    """How a served judge's bodies ask for structured output."""
    proposals: Path | None = None
    """screen: a readout judge propose file (its retained pool is ranked)."""
    proposer: str = EMBEDDED_SPEC
    """extend: the local model that grows strings (its tokenizer measures token length)."""
    sources: SourceSettings = SourceSettings()
    seed: Seed = PAPER_SEED
    presentation: Presentation = "sorted"
    development: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Development questions per dataset [screen 12, extend 8]."""
    confirmation: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Withheld confirmation questions per dataset [screen 12, extend 24]."""
    keep: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """Bridges frozen [screen 16; extend 2 per scaffold]."""
    rounds: int | None = Field(default=None, ge=0, le=INT_MAX, strict=True)
    """Extension rounds [extend 2]."""
    per_round: int | None = Field(default=None, ge=1, le=INT_MAX, strict=True)
    """New strings per round [32]."""

    @model_validator(mode="after")
    def _pool(self) -> SearchSettings:
        if (self.programme == "screen") != (self.proposals is not None):
            raise ValueError(
                "--proposals is the pool of --programme screen (extend starts from its seed "
                "strings)"
            )
        if not self.sources.named():
            raise ValueError("give --gsm8k, --drop or --halueval (one or more)")
        return self

    @property
    def judge(self) -> str:
        """The judge's model spec, from the configuration."""
        return parse_configuration(self.configuration, self.seed).judge

    def plan(self) -> Programme:
        """The programme with the counts given here."""
        return PROGRAMMES[self.programme].with_counts(
            development=self.development,
            confirmation=self.confirmation,
            keep=self.keep,
            rounds=self.rounds,
            per_round=self.per_round,
        )


def _setup(settings: SearchSettings, proposer: ScoringModel | None) -> SearchSetup:
    """The search's programme, configuration, drawn sources and pool."""
    plan = settings.plan()
    chosen = choose_sources(
        settings.sources.banks(),
        seed=settings.seed,
        per_dataset=plan.confirmation,
        preflight_per_dataset=plan.development,
        priors=settings.sources.priors(),
    )
    if settings.proposals is not None:
        pool, digest = read_proposals(settings.proposals)
    else:
        assert proposer is not None  # the settings require one of the two
        pool, digest = seed_pool(proposer.codec), None
    return SearchSetup(
        programme=plan,
        configuration=parse_configuration(
            settings.configuration, settings.seed, settings.response_format
        ),
        chosen=chosen,
        seed=settings.seed,
        presentation=settings.presentation,
        pool=pool,
        proposals_sha256=digest,
        codec=None if proposer is None else proposer.codec,
    )


def search_cues(
    settings: SearchSettings,
    out: str | Path,
    execution: JudgeExecution,
    open_local: Callable[[str], ScoringModel] | None = None,
    *,
    progress: ProgressMode = "off",
) -> SearchResult:
    """Run the search into ``out``: development stages, the frozen selection, confirmation.

    ``open_local`` opens a local judge or proposer from its spec (once each; one model serves
    both when they are the same spec; default: :meth:`JudgeExecution.open_local`). Each stage
    is announced on stderr as it starts, unless progress is off.
    """
    out = Path(out)
    judge = settings.judge
    opener = open_local or execution.open_local
    out.mkdir(parents=True, exist_ok=True)
    lock = RunLock(out)
    lock.acquire()  # before any source is read or model loaded
    try:
        judge_model = None if is_served(judge) else opener(judge)
        proposer = None
        if settings.proposals is None:
            same = judge_model is not None and judge_model.info.spec == settings.proposer
            proposer = judge_model if same else opener(settings.proposer)
        setup = _setup(settings, proposer)

        def stage(inventory: Path, run: Path, phase: Phase) -> None:
            announce(progress, f"{phase}: {inventory.name}")
            phase_run = JudgeRun(
                out=run, phase=phase, unqualified=True, execution=execution, progress=progress
            )
            # a member of the search's stage, which holds the lock: opened here, not claimed
            with RunDirectory(run, JUDGE) as directory:
                judge_phase(
                    inventory,
                    phase_run,
                    directory,
                    judge_model if judge_model is not None else opener,
                )

        return search_stages(out, setup, stage, proposer)
    finally:
        lock.release()
