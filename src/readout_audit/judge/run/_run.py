"""Running a frozen inventory's phase on one judge into a run directory, resumably.

Preflight runs first; confirmation then runs only the configurations whose preflight gates
passed in both presentations (a skipped one keeps p = 1 in the primary family). Every record
is flushed as it completes, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.judge.analysis import (
    AMENDMENT,
    CHRONOLOGY,
    NO_RECORD,
    PLANNED,
    JudgeSummary,
    chronology,
    kept_plan,
)
from readout_audit.judge.inventory import Configuration, Inventory, read_inventory
from readout_audit.judge.protocol import JudgeRecord, Phase, PlannedRequest, planned_record
from readout_audit.judge.run._chat import CHAT_PATH, run_chat_judge
from readout_audit.judge.run._kind import JUDGE
from readout_audit.judge.run._local import local_jobs
from readout_audit.judge.studies import analyse_judge
from readout_audit.kind import (
    RunOut,
    RunSettings,
    ScoreResult,
    amended_tags,
    opened_run,
    run_kind,
    run_path,
    timed_summary,
)
from readout_audit.log import Manifest, RunDirectory, read_run
from readout_audit.model import DEFAULT_BATCH_SIZE, ModelInfo, ScoringModel
from readout_audit.progress import ProgressMode, as_mode
from readout_audit.serve import (
    LEDGER_FILE,
    CostCap,
    Endpoint,
    Ledger,
    RetryPolicy,
    execution_record,
)


@dataclass(frozen=True)
class JudgePlan:
    """What one ``judge run`` does: the configurations run, and those preflight held back."""

    configurations: list[Configuration]
    skipped: list[str]
    """Configurations whose preflight gates failed: not run in confirmation."""


def chosen_configurations(inventory: Inventory, names: Sequence[str]) -> list[Configuration]:
    """The named configurations (all when none are named); they must share one judge."""
    known = {c.name: c for c in inventory.settings.configurations}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InputError(
            f"configuration(s) {unknown} are not in the inventory ({sorted(known)})",
            field="configuration",
        )
    chosen = [known[n] for n in names] if names else list(known.values())
    judges = sorted({c.judge for c in chosen})
    if len(judges) > 1:
        raise InputError(
            f"one run drives one judge, but these configurations name {judges}: run each "
            "judge's configurations into its own directory (--configuration)",
            field="configuration",
        )
    return chosen


def keep_planned(run_dir: RunDirectory, requests: Sequence[PlannedRequest]) -> None:
    """Add requests to the run's plan (``artifacts/planned.json``) before any is answered.

    Each is kept as the record of unknown outcome it is analysed as until its own arrives.
    """
    kept = {r["item_id"]: r for r in run_dir.artifact(PLANNED) or []}
    new = [r for r in requests if r.request_id not in kept]
    for request in new:
        unknown = planned_record(request, "unknown", error=NO_RECORD)
        kept[request.request_id] = unknown.model_dump(mode="json")
    if new:
        run_dir.write_artifact(PLANNED, list(kept.values()))


def keep_chronology(
    run_dir: RunDirectory, ledger: Ledger, requests: Sequence[PlannedRequest]
) -> None:
    """The confirmation stream's balance over its send-time quartiles, kept as an artifact.

    Only the protocol's confirmation has the primary cells it counts: a study's run keeps none.
    """
    cells = {
        r.request_id: f"{r.cell}/{r.presentation}" for r in requests if r.phase == "confirmation"
    }
    sent = [(e.sent_at, e.tag) for e in ledger.entries() if e.tag in cells and e.sent_at]
    found = chronology(sent, cells)
    if found is not None:
        run_dir.write_artifact(CHRONOLOGY, found.model_dump(mode="json"))


def preflight_summary(out: Path) -> JudgeSummary | None:
    """The analysis of the preflight already in a run directory, against its plan (or None)."""
    if not (out / "manifest.json").exists():
        return None
    run = read_run(out).of(JudgeRecord)
    done = [r for r in run.records if r.phase == "preflight"]
    planned = kept_plan(run.artifacts, "preflight")
    return analyse_judge(done, planned=planned) if done or planned else None


def plan_phase(
    inventory: Inventory, out: Path, phase: Phase, names: Sequence[str], *, unqualified: bool
) -> JudgePlan:
    """The configurations this phase runs; confirmation needs each one's preflight passed.

    A study's inventory has no preflight: its own controls gate it.
    """
    chosen = chosen_configurations(inventory, names)
    if phase == "preflight" or unqualified or inventory.settings.study is not None:
        return JudgePlan(chosen, [])  # a study's gates are its own controls
    summary = preflight_summary(out)
    passed = {q.configuration: q.preflight for q in summary.qualification} if summary else {}
    missing = [c.name for c in chosen if passed.get(c.name) is None]
    if missing:
        raise InputError(
            f"configuration(s) {missing} have no preflight in {out}: run --phase preflight "
            "first (or pass --unqualified to confirm without it)",
            field="phase",
        )
    return JudgePlan(
        [c for c in chosen if passed[c.name]], [c.name for c in chosen if not passed[c.name]]
    )


def inventory_counts(
    inventory: Inventory, configurations: Sequence[Configuration]
) -> dict[str, dict[str, int]]:
    """Per configuration run and phase, the inventory's planned requests (its kept plan's size)."""
    counts: dict[str, dict[str, int]] = {c.name: {} for c in configurations}
    for request in inventory.requests:
        if request.configuration in counts:
            phases = counts[request.configuration]
            phases[request.phase] = phases.get(request.phase, 0) + 1
    return counts


def run_config(inventory: Inventory, configurations: Sequence[Configuration]) -> dict[str, Any]:
    """The run's identity: the inventory's hash, its configurations and the analysis family.

    The family is every configuration of the inventory, whichever judge runs it; the inventory
    counts are what the run's kept plan is checked against. A cue search
    stage's run also names its stage (``InventorySettings.search``).
    """
    config: dict[str, Any] = {
        "inventory_sha256": inventory.outcome.inventory_sha256,
        "inventory_seed": inventory.settings.seed,
        "configurations": [c.model_dump(mode="json") for c in configurations],
        "family": [c.model_dump(mode="json") for c in inventory.settings.configurations],
        "inventory_counts": inventory_counts(inventory, configurations),
    }
    if inventory.settings.search is not None:
        config["search"] = inventory.settings.search
    if inventory.settings.study is not None:
        config["study"] = inventory.settings.study
    return config


def run_local_judge(
    model: ScoringModel,
    inventory_dir: str | Path,
    out: RunOut,
    *,
    phase: Phase,
    configurations: Sequence[str] = (),
    unqualified: bool = False,
    batch_size: int | None = None,
    progress: bool | ProgressMode = False,
) -> tuple[ScoreResult, JudgePlan]:
    """Run one phase of an inventory on a local judge model; a rerun resumes."""
    inventory = read_inventory(inventory_dir)
    plan = plan_phase(inventory, run_path(out), phase, configurations, unqualified=unqualified)
    names = {c.name for c in plan.configurations}
    chosen = chosen_configurations(inventory, list(configurations))
    for configuration in chosen:
        if configuration.model != model.info.name and configuration.judge != model.info.spec:
            raise InputError(
                f"configuration {configuration.name!r} names judge {configuration.judge!r}, "
                f"not the loaded model {model.info.spec!r}",
                field="configuration",
            )
    todo = [r for r in inventory.requests if r.phase == phase and r.configuration in names]
    model_name = chosen[0].model

    def plan_jobs(run_dir: RunDirectory) -> list[Any]:
        keep_planned(run_dir, todo)
        return local_jobs(todo, model_name, model.codec)

    result = run_kind(
        JUDGE,
        model,
        out,
        run_config(inventory, chosen),
        plan_jobs,
        RunSettings(batch_size=batch_size or DEFAULT_BATCH_SIZE, progress=as_mode(progress)),
        seeds={"inventory": inventory.settings.seed},
    )
    return result, plan


def served_info(
    configurations: Sequence[Configuration], endpoints: Sequence[Endpoint]
) -> ModelInfo:
    """What the manifest records of a served judge: its spec, endpoints and response formats."""
    first = configurations[0]
    return ModelInfo(
        spec=first.judge,
        name=first.model,
        files=(),
        dtype="served",
        context_window=None,
        tokenizer="the server's",
        chat_template_sha256=None,
        served={
            "endpoints": [e.base_url for e in endpoints],
            "api": CHAT_PATH,
            "response_format": {c.name: c.response_format for c in configurations},
        },
    )


SETTLED = ("completed", "unparsed")
"""Outcomes a rerun keeps; a failed or unknown request's record is withdrawn and retried."""


def run_served_judge(
    inventory_dir: str | Path,
    out: RunOut,
    endpoints: Sequence[Endpoint],
    *,
    phase: Phase,
    configurations: Sequence[str] = (),
    unqualified: bool = False,
    cap: CostCap | None = None,
    progress: ProgressMode = "off",
) -> tuple[ScoreResult, JudgePlan]:
    """Run one phase of an inventory on a served chat judge, through the run's request ledger.

    Each request's record is appended as it settles, so an interruption keeps every settled
    one. A rerun withdraws the records of failed and unknown requests and sends only what never
    completed (a failed call again, an unknown one once released); completed replies are read
    back from the ledger.
    """
    inventory = read_inventory(inventory_dir)
    directory = run_path(out)
    plan = plan_phase(inventory, directory, phase, configurations, unqualified=unqualified)
    chosen = chosen_configurations(inventory, list(configurations))
    names = {c.name for c in plan.configurations}
    planned = [r for r in inventory.requests if r.phase == phase and r.configuration in names]
    started = time.perf_counter()
    with opened_run(out, JUDGE) as run_dir:
        manifest = Manifest.create(
            JUDGE.name,
            served_info(chosen, endpoints),
            run_config(inventory, chosen),
            {"inventory": inventory.settings.seed},
        )
        run_dir.start(manifest, retried=lambda r: r.outcome not in SETTLED)
        run_dir.record_execution(execution_record(endpoints, RetryPolicy(), cap))
        keep_planned(run_dir, planned)
        todo = [r for r in planned if (r.request_id,) not in run_dir.done]
        amended = amended_tags(run_dir)

        def keep(record: JudgeRecord) -> None:
            """Append a record, marked when an amendment released its request's call."""
            if record.item_id in amended:
                marked = {**record.metadata, AMENDMENT: amended[record.item_id]}
                record = record.model_copy(update={"metadata": marked})
            run_dir.append(record)

        with Ledger(directory / LEDGER_FILE) as ledger:
            new = run_chat_judge(
                todo,
                plan.configurations,
                endpoints,
                ledger,
                cap=cap,
                progress=progress,
                on_record=keep,
            )
            if phase == "confirmation" and inventory.settings.study is None:
                keep_chronology(run_dir, ledger, inventory.requests)
        seconds = time.perf_counter() - started
        summary = timed_summary(JUDGE, directory, len(new), seconds, None)
        run_dir.finish(summary)
    return ScoreResult(directory=directory, summary=summary, n_new=len(new)), plan
