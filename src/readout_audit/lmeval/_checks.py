"""The lm-eval audit's checks: the options audit's checks per task, and logged-run reproduction."""

from __future__ import annotations

from collections.abc import Sequence

from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.lmeval._reproduce import reproduction_check
from readout_audit.log import Check
from readout_audit.options import options_checks

CUE = (
    "Change the end of doc_to_text (an answer cue; --stem 'Answer:' measures one) or "
    "num_fewshot; the task's knobs, ranked, are under 'What to change'."
)
REPAIRS = {
    "option_mass": CUE,
    "argmax": CUE,
    "continuation": CUE,
    "first_tokens": "lm-eval's acc is not affected (it scores each full continuation); for the "
    "option mass to separate the choices, make doc_to_choice's first tokens differ.",
    "ending": "Set target_delimiter: ' ' (a space before each choice), or end doc_to_text "
    "with the separator.",
    "stem": "Try another --stem, or change num_fewshot or the chat template "
    "(--apply_chat_template).",
}
"""Each options check's repair in lm-eval's terms: the task YAML's keys and the command's
options, never a readout lm-eval already uses (its acc scores full continuations)."""
MERGED = "End doc_to_text without its trailing whitespace and set target_delimiter: ' '."
"""The ending check's repair where the choices merge with the context's end."""


def in_lm_eval_terms(check: Check, name: str) -> Check:
    """``check`` named for its task or group, its repair (if any) in lm-eval's terms."""
    repair = check.repair and REPAIRS.get(check.name, check.repair)
    if check.name == "ending" and check.evidence.get("n_boundary_not_preserved"):
        repair = MERGED
    return check.model_copy(update={"name": f"{check.name} {name}", "repair": repair})


def by_task(records: Sequence[LMEvalRecord]) -> dict[str, list[LMEvalRecord]]:
    """The records of each task, in the order the tasks first appear."""
    tasks: dict[str, list[LMEvalRecord]] = {}
    for record in records:
        tasks.setdefault(record.task, []).append(record)
    return tasks


def lm_eval_checks(records: Sequence[LMEvalRecord]) -> list[Check]:
    """Reproduction of a logged run, then the options audit's checks per task and group.

    Each is named by its task or group (``reproduced mmlu_x``, ``option_mass mmlu``), with its
    repair in lm-eval's terms; a group's checks read its tasks' documents together.
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
        checks += [in_lm_eval_terms(check, name) for check in options_checks(variants, name)]
    return checks
