"""Running a cue search into one directory: development stages, a frozen selection, confirmation.

``OUT/search.json`` fixes the plan (programme, configuration, sources, pool), and
``OUT/manifest.json`` holds it as the search's identity, with each command that wrote to it;
``OUT/.lock`` is held by the one process writing the search. Each development
stage is an inventory (``development-K/``) run into ``development-K.run/``; an extension round's
new strings are written to ``extension-K.json`` before its stage is built. ``selection.json``
(the rankings and the frozen bridges, with the hashes of what they came from) is written before
the confirmation inventory exists, so no confirmation call can shape it; ``confirmation.json``
holds the confirmation tables. Every file, once written, is read back on a rerun, never
recomputed, so an interrupted search resumes where it stopped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from readout_audit._exceptions import InputError
from readout_audit._util import write_json_atomic
from readout_audit.data import read_json
from readout_audit.judge.inventory import (
    ChosenSources,
    Configuration,
    SelectedSource,
    assemble_inventory,
    sha256_json,
    write_inventory,
)
from readout_audit.judge.protocol import JudgeRecord, Phase, Presentation
from readout_audit.judge.search._confirm import SearchConfirmation, confirm_search
from readout_audit.judge.search._extend import extend_bridges
from readout_audit.judge.search._plan import Bridge, Programme, plan_stage
from readout_audit.judge.search._rank import (
    BridgeScore,
    extension_parents,
    frozen_roles,
    rank_bridges,
    score_bridges,
)
from readout_audit.log import (
    Manifest,
    RunLock,
    now,
    read_run,
    register_stage_kind,
    resumed_manifest,
    write_once,
)
from readout_audit.model import ScoringModel, TextCodec
from readout_audit.stats import hoeffding_epsilon

PLAN_FILE = "search.json"
SELECTION_FILE = "selection.json"
CONFIRMATION_FILE = "confirmation.json"

StageRunner = Callable[[Path, Path, Phase], None]
"""Runs an inventory directory's phase on the search's judge into a run directory (resumably)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Extension(_Frozen):
    """An extension round: each scaffold's parents and the new strings, fixed before judging."""

    round: int
    parents: dict[str, list[str]]
    bridges: list[Bridge]
    development_sha256: str
    """:func:`records_sha256` of the development records the parents were ranked on."""


class StageHash(_Frozen):
    """A development stage's inventory and records, as the selection saw them."""

    stage: str
    inventory_sha256: str
    records_sha256: str


class Selection(_Frozen):
    """The development rankings and the bridges frozen for confirmation."""

    rankings: dict[str, list[BridgeScore]]
    frozen: list[Bridge]
    roles: dict[str, str]
    """Each frozen text's role: ``frozen`` (ranked), ``baseline`` or ``control``."""
    development: list[StageHash]

    def hoeffding_epsilon(self, delta: float = 0.05) -> float | None:
        """The screen's uniform deviation bound sqrt(log(2M/δ)/2n) (the seed's Eq. 13 rationale).

        M strings ranked on n development questions; it assumes a pool fixed before any outcome,
        which extension rounds are not.
        """
        ranked = next(iter(self.rankings.values()), [])
        questions = max((s.planned for s in ranked), default=0)
        return hoeffding_epsilon(len(ranked), questions, delta) if questions else None


@dataclass(frozen=True)
class SearchSetup:
    """Everything a search needs besides its judge: programme, configuration, sources, pool."""

    programme: Programme
    configuration: Configuration
    chosen: ChosenSources
    seed: int
    presentation: Presentation
    pool: list[Bridge]
    proposals_sha256: str | None = None
    codec: TextCodec | None = None
    """The proposing model's tokenizer: token lengths of baselines and controls."""


@dataclass(frozen=True)
class SearchResult:
    """A finished search: its selection and its confirmation tables."""

    selection: Selection
    confirmation: SearchConfirmation


def records_sha256(records: Sequence[JudgeRecord]) -> str:
    """SHA-256 of the records' ids, outcomes, verdicts and displayed probabilities."""
    ordered = sorted(records, key=lambda r: r.item_id)
    return sha256_json([[r.item_id, r.outcome, r.verdict, r.label_probs] for r in ordered])


class _Search:
    """One search directory's stages, run in order."""

    def __init__(self, out: Path, setup: SearchSetup, judge: StageRunner) -> None:
        self.out, self.setup, self.judge = out, setup, judge
        selected = setup.chosen.selected
        self.development: list[SelectedSource] = [
            s.model_copy(update={"phase": "development"})
            for s in selected
            if s.phase == "preflight"
        ]
        self.confirmation = [s for s in selected if s.phase == "confirmation"]

    def stage(
        self,
        phase: Phase,
        name: str,
        bridges: Sequence[Bridge],
        sources: Sequence[SelectedSource],
        search: dict[str, Any],
    ) -> tuple[list[JudgeRecord], StageHash]:
        """Build (or check) a stage's inventory, run it; its records and their hashes."""
        setup = self.setup
        requests = plan_stage(
            phase,
            setup.configuration,
            sources,
            bridges,
            setup.programme.scaffolds,
            presentation=setup.presentation,
            seed=setup.seed,
            clean_controls=phase == "confirmation",
        )
        counts: dict[str, dict[str, int]] = {
            "sources": {phase: len(sources)},
            "requests": {phase: len(requests), "total": len(requests)},
            "bridges": {name: len(bridges)},
        }
        inventory = assemble_inventory(
            requests,
            setup.chosen,
            sources,
            [setup.configuration],
            seed=setup.seed,
            counts=counts,
            search={"programme": setup.programme.name, "stage": name, **search},
        )
        directory = self.out / name
        write_inventory(directory, inventory)  # a stage: resumed, or refused if another
        run = self.out / f"{name}.run"
        self.judge(directory, run, phase)
        records = read_run(run).of(JudgeRecord).records
        return records, StageHash(
            stage=name,
            inventory_sha256=inventory.outcome.inventory_sha256,
            records_sha256=records_sha256(records),
        )

    def rankings(
        self, records: Sequence[JudgeRecord], bridges: Sequence[Bridge]
    ) -> dict[str, list[BridgeScore]]:
        """Each scaffold's development ranking of every bridge evaluated so far."""
        programme = self.setup.programme
        return {
            scaffold: rank_bridges(score_bridges(records, bridges, scaffold), programme)
            for scaffold in programme.scaffolds
        }

    def extension(
        self,
        number: int,
        records: Sequence[JudgeRecord],
        evaluated: Sequence[Bridge],
        proposer: ScoringModel | None,
    ) -> list[Bridge]:
        """Round ``number``'s new strings: read back, or grown by the proposer and written."""
        path = self.out / f"extension-{number}.json"
        if path.exists():
            return Extension.model_validate(read_json(path)).bridges
        if proposer is None:
            raise InputError(f"extension round {number} needs a proposing model", field="proposer")
        programme = self.setup.programme
        chosen = {
            scaffold: extension_parents(ranked, programme)
            for scaffold, ranked in self.rankings(records, evaluated).items()
        }
        known = {b.text: b for b in evaluated}
        union = list(dict.fromkeys(t for texts in chosen.values() for t in texts))
        new = extend_bridges(proposer, [known[t] for t in union], known.keys(), programme, number)
        extension = Extension(
            round=number,
            parents=chosen,
            bridges=new,
            development_sha256=records_sha256(records),
        )
        write_once(path, extension.model_dump(mode="json"))
        return new

    def selection(
        self, records: Sequence[JudgeRecord], evaluated: Sequence[Bridge], stages: list[StageHash]
    ) -> Selection:
        """The frozen selection: read back, or ranked from development and written."""
        path = self.out / SELECTION_FILE
        if path.exists():
            selection = Selection.model_validate(read_json(path))
            held = [s.inventory_sha256 for s in selection.development]
            if held != [s.inventory_sha256 for s in stages]:
                raise InputError(
                    "was frozen from other development stages than this directory's",
                    source=str(path),
                )
            return selection
        programme = self.setup.programme
        rankings = self.rankings(records, evaluated)
        roles = frozen_roles(rankings, programme)
        known = {b.text: b for b in evaluated}
        frozen = [known.get(t) or self._bridge(t, role) for t, role in roles.items()]
        selection = Selection(rankings=rankings, frozen=frozen, roles=roles, development=stages)
        write_once(path, selection.model_dump(mode="json"))
        return selection

    def _bridge(self, text: str, origin: str) -> Bridge:
        """A baseline or control string, with its tokens under the proposer's tokenizer."""
        codec = self.setup.codec
        if text and codec is None:
            raise InputError(
                f"{origin} {text!r} needs the proposing model's tokenizer", field="proposer"
            )
        ids = tuple(codec.encode(text)) if text and codec is not None else ()
        return Bridge(text=text, token_ids=ids, origin=origin)


def search_plan(setup: SearchSetup) -> dict[str, Any]:
    """The plan ``search.json`` fixes: programme, configuration, seed, sources and pool."""
    return {
        "programme": asdict(setup.programme),
        "configuration": setup.configuration.model_dump(mode="json"),
        "seed": setup.seed,
        "presentation": setup.presentation,
        "proposals_sha256": setup.proposals_sha256,
        "sources": [
            {"id": s.source.id, "phase": s.phase, "x": s.x, "y": s.y} for s in setup.chosen.selected
        ],
        "pool": [b.model_dump(mode="json") for b in setup.pool],
    }


SEARCH_KIND = "judge-search"
"""The ``kind`` of a search directory's manifest (``OUT/manifest.json``)."""
register_stage_kind(SEARCH_KIND, "a cue search")
SEARCH_MANIFEST = "manifest.json"


def run_search(
    out: str | Path,
    setup: SearchSetup,
    judge: StageRunner,
    proposer: ScoringModel | None = None,
) -> SearchResult:
    """Every stage of a search, in order, holding the directory's lock; a rerun goes on.

    A second search into the directory while one runs is refused at once, naming it.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    lock = RunLock(out)
    lock.acquire()
    try:
        return search_stages(out, setup, judge, proposer)
    finally:
        lock.release()


def search_stages(
    out: Path, setup: SearchSetup, judge: StageRunner, proposer: ScoringModel | None
) -> SearchResult:
    """The stages of a search whose directory's lock the caller holds.

    The plan is the search's identity: its manifest (``OUT/manifest.json``) refuses another,
    listing the differences, and ``search.json`` keeps it whole; each stage's files are
    read back on a rerun.
    """
    plan = json.loads(json.dumps(search_plan(setup)))  # as it reads back: lists, not tuples
    manifest = resumed_manifest(
        out / SEARCH_MANIFEST,
        Manifest.create(SEARCH_KIND, None, plan, {"search": setup.seed}),
        f"{out} holds a search",
    )
    write_once(out / PLAN_FILE, plan, "use a new directory")
    search = _Search(out, setup, judge)
    evaluated: list[Bridge] = []
    records: list[JudgeRecord] = []
    stages: list[StageHash] = []
    for number in range(setup.programme.rounds + 1):
        new = setup.pool if number == 0 else search.extension(number, records, evaluated, proposer)
        found, stage = search.stage(
            "development",
            f"development-{number}",
            new,
            search.development,
            {"proposals": setup.proposals_sha256},
        )
        evaluated += new
        records += found
        stages.append(stage)
    selection = search.selection(records, evaluated, stages)
    found, _ = search.stage(
        "confirmation",
        "confirmation",
        selection.frozen,
        search.confirmation,
        {"selection": sha256_json(selection.model_dump(mode="json"))},
    )
    confirmation = confirm_search(found, selection.frozen, selection.roles, setup.programme)
    write_once(out / CONFIRMATION_FILE, confirmation.model_dump(mode="json"))
    manifest.invocations[-1].finished = now()
    write_json_atomic(out / SEARCH_MANIFEST, manifest.model_dump(mode="json"))
    return SearchResult(selection=selection, confirmation=confirmation)
