"""One analysis over several judges' runs of one inventory (a local and a served judge).

Each judge runs into its own directory; the primary family spans every configuration, so the
analysis reads their records together, from the files alone, into a run directory that
``readout report`` renders like any other.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.judge.analysis import PLANNED
from readout_audit.judge.protocol import JudgeRecord
from readout_audit.judge.run._kind import JUDGE
from readout_audit.kind import claim
from readout_audit.log import Invocation, Run, now, read_run


def _judge_run(directory: Path) -> Run[JudgeRecord]:
    run = read_run(directory)
    if run.manifest.kind != JUDGE.name:
        raise InputError(f"holds a {run.manifest.kind} run, not a judge run", source=str(directory))
    return run.of(JudgeRecord)


def combined_config(runs: Sequence[Run[JudgeRecord]]) -> dict[str, Any]:
    """The runs' configurations in order, refusing runs of different inventories or overlaps."""
    hashes = {run.manifest.config.get("inventory_sha256") for run in runs}
    if len(hashes) != 1:
        raise InputError(
            f"the runs come from different inventories ({sorted(map(str, hashes))}); a family "
            "is analysed over one inventory",
            field="inventory_sha256",
        )
    configurations: list[dict[str, Any]] = []
    for run in runs:
        for configuration in run.manifest.config["configurations"]:
            if any(c["name"] == configuration["name"] for c in configurations):
                raise InputError(
                    f"configuration {configuration['name']!r} is in two of the runs",
                    source=str(run.directory),
                    field="configurations",
                )
            configurations.append(configuration)
    first = runs[0].manifest.config
    return {
        **first,
        "configurations": configurations,
        "runs": [
            {"directory": str(run.directory), "judge": run.manifest.model["spec"]} for run in runs
        ],
    }


def combine_runs(directories: Sequence[str | Path], out: str | Path) -> Run[JudgeRecord]:
    """Write the runs' records together into ``out`` with their summary; returns it read back."""
    if not directories:
        raise InputError("needs at least one judge run", field="runs")
    runs = [_judge_run(Path(d)) for d in directories]
    config = combined_config(runs)
    first = runs[0].manifest
    manifest = first.model_copy(
        update={
            "config": config,
            "invocations": [Invocation(command=list(sys.argv), started=now())],
        }
    )
    plans = [run.artifacts.get(PLANNED) for run in runs]
    with claim(out, JUDGE) as run_dir:
        run_dir.start(manifest)
        if all(plan is not None for plan in plans):  # the joint plan, when every run kept one
            run_dir.write_artifact(PLANNED, [r for plan in plans for r in plan or []])
        for run in runs:
            for record in run.records:
                if JUDGE.record_key(record) not in run_dir.done:
                    run_dir.append(record)
        run_dir.finish(JUDGE.summary(read_run(out)))
    return read_run(out)
