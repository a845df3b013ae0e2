"""The lm-eval audit's checks: the options audit's checks per task, and logged-run reproduction."""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.lmeval._reproduce import reproduction_check
from readout_audit.log._summary import Check
from readout_audit.options._checks import options_checks


def by_task(records: Sequence[LMEvalRecord]) -> dict[str, list[LMEvalRecord]]:
    """The records of each task, in the order the tasks first appear."""
    tasks: dict[str, list[LMEvalRecord]] = {}
    for record in records:
        tasks.setdefault(record.task, []).append(record)
    return tasks


def lm_eval_checks(records: Sequence[LMEvalRecord]) -> list[Check]:
    """Reproduction of a logged run, then checks 1–6 of the options audit per task and group.

    Each is named by its task or group (``reproduced mmlu_x``, ``option_mass mmlu``); a
    group's checks read its tasks' documents together.
    """
    checks = []
    for task, found in by_task(records).items():
        original = [r for r in found if r.variant == "production"]
        if (reproduced := reproduction_check(task, original)) is not None:
            checks.append(reproduced)
    groups: dict[str, list[LMEvalRecord]] = {}
    for record in records:
        if record.group is not None:
            groups.setdefault(record.group, []).append(record)
    for name, found in [*by_task(records).items(), *groups.items()]:
        variants: dict[str, list[LMEvalRecord]] = {}
        for record in found:
            variants.setdefault(record.variant, []).append(record)
        checks += [
            check.model_copy(update={"name": f"{check.name} {name}"})
            for check in options_checks(variants, name)
        ]
    return checks
