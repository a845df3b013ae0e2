"""Judge stages written in a child process that kills itself (SIGKILL) part-way, for the tests.

``python -c "import stage_writers; stage_writers.main()" WHAT OUT ...`` writes one stage and
sends itself SIGKILL after ``STAGE_KILL_AFTER`` writes (a last line cut in half, as a kill
mid-write leaves it, where the stage appends lines itself).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from readout_audit import load_model
from readout_audit._util import JsonlAppender
from readout_audit.judge import (
    PAPER_SEED,
    Inventory,
    build_inventory,
    combine_runs,
    load_gsm8k_jsonl,
    parse_configuration,
    write_inventory,
)
from readout_audit.judge.inventory import choose_sources, read_inventory
from readout_audit.judge.protocol import planned_record
from readout_audit.judge.run import JUDGE
from readout_audit.judge.run._run import keep_planned, run_config
from readout_audit.judge.search import (
    PROGRAMMES,
    PROPOSAL_CONTEXTS,
    BeamSettings,
    Bridge,
    SearchSetup,
    run_search,
    write_proposals,
)
from readout_audit.log import Manifest, RunDirectory, StageFile, read_run

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
KILL_AFTER = "STAGE_KILL_AFTER"


def kill_after(writes: int) -> None:
    """Count one write; at the given count, end this process with SIGKILL."""
    kill_after.count = getattr(kill_after, "count", 0) + 1  # type: ignore[attr-defined]
    if kill_after.count == writes:  # type: ignore[attr-defined]
        os.kill(os.getpid(), signal.SIGKILL)


def killing_appends(stage: type[Any], method: str = "append") -> None:
    """Make ``stage``'s appends count towards ``STAGE_KILL_AFTER``: the kill comes after one."""
    limit = int(os.environ.pop(KILL_AFTER))
    append = getattr(stage, method)

    def killing(self: object, record: object) -> None:
        append(self, record)
        kill_after(limit)

    setattr(stage, method, killing)


def gsm8k_inventory(seed: int = PAPER_SEED, judge: str = "f3=FINAL3@smollm2-135m") -> Inventory:
    """An inventory of one GSM8K question per phase for one judge configuration."""
    bank = load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl")
    configuration = parse_configuration(judge, seed)
    return build_inventory(
        [bank], [configuration], seed=seed, per_dataset=1, preflight_per_dataset=1
    )


PROPOSAL_BEAM = BeamSettings(first_width=4, width=2, depth=2)
"""A small beam over the first two proposal contexts: one stage line per context."""


def fake_judge(
    inventory_dir: Path, run: Path, phase: str, names: tuple[str, ...] | None = None
) -> None:
    """A judge whose verdict is a fixed function of each request's wire hash; resumable.

    ``names``: the configurations it runs (all when None).
    """
    inventory = read_inventory(inventory_dir)
    configurations = [
        c for c in inventory.settings.configurations if names is None or c.name in names
    ]
    chosen = {c.name for c in configurations}
    planned = [r for r in inventory.requests if r.phase == phase and r.configuration in chosen]
    limit = int(os.environ.get(KILL_AFTER, "0"))
    with RunDirectory(run, JUDGE) as run_dir:
        manifest = Manifest.create(JUDGE.name, None, run_config(inventory, configurations))
        run_dir.start(manifest.model_copy(update={"model": {"spec": "fake-judge"}}))
        keep_planned(run_dir, planned)
        for request in planned:
            if (request.request_id,) in run_dir.done:
                continue
            p = int(request.wire_sha256[:2], 16) / 255
            verdict = "correct" if p >= 0.5 else "incorrect"
            probs = {"correct": p, "incorrect": 1 - p, "no_answer": 0.0}
            run_dir.append(planned_record(request, "completed", verdict=verdict, label_probs=probs))
            if limit:
                kill_after(limit)
        run_dir.finish(JUDGE.summary(read_run(run)))


def search_setup(keep: int = 1) -> SearchSetup:
    """A screen of two bridges over one development and one confirmation question."""
    bank = load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl")
    programme = PROGRAMMES["screen"].with_counts(development=1, confirmation=1, keep=keep)
    return SearchSetup(
        programme=programme,
        configuration=parse_configuration("c=FINAL3@smollm2-135m", PAPER_SEED),
        chosen=choose_sources([bank], seed=PAPER_SEED, per_dataset=1, preflight_per_dataset=1),
        seed=PAPER_SEED,
        presentation="sorted",
        pool=[
            Bridge(text="Actually", token_ids=(1,), origin="proposal", logprob=-1.0),
            Bridge(text="However", token_ids=(2,), origin="proposal", logprob=-2.0),
        ],
    )


def main() -> None:
    """Write the stage the arguments name: ``search OUT``, ``combine OUT RUN...``,
    ``inventory OUT`` or ``proposals OUT``."""
    what, out, *rest = sys.argv[1:]
    if what == "search":
        run_search(out, search_setup(), fake_judge)
    elif what == "combine":
        killing_appends(RunDirectory)
        combine_runs(rest, out)
    elif what == "inventory":
        killing_appends(JsonlAppender, "write_text")  # the inventory's request lines
        write_inventory(out, gsm8k_inventory())
    elif what == "proposals":
        model = load_model("smollm2-135m")
        killing_appends(StageFile)
        write_proposals(model, out, PROPOSAL_BEAM, PROPOSAL_CONTEXTS[:2])
