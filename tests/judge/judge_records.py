"""Hand-built judge records for the analysis tests: a planned request and the verdict it got."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from readout_audit.judge import JudgeRecord
from readout_audit.judge.protocol import CONFIRMATION_CELLS, PREFLIGHT_CELLS, PRESENTATIONS

TARGETS = {"bare_correct": "correct", "revision": "correct", "no_answer": "no_answer"}
"""Target labels that are not ``incorrect`` (FINAL3)."""


def record(
    configuration: str,
    source: str,
    cell: str,
    presentation: str,
    verdict: str | None,
    *,
    phase: str = "confirmation",
    dataset: str = "gsm8k",
    distance: str | None = "near",
    probs: Mapping[str, float | None] | None = None,
    mass: float | None = None,
) -> JudgeRecord:
    """One FINAL3 record; no verdict means a sent request whose outcome is unknown."""
    request_id = f"{phase}:{configuration}:{source}:{cell}:{presentation}"
    return JudgeRecord(
        item_id=request_id,
        variant=f"{cell}/{presentation}",
        phase=phase,
        configuration=configuration,
        contract="FINAL3",
        source_id=source,
        dataset=dataset,
        cluster=source,
        distance=distance,
        cell=cell,
        presentation=presentation,
        target_label=TARGETS.get(cell, "incorrect"),
        positive_label="correct",
        wire_sha256="0" * 64,
        content_sha256="1" * 64,
        outcome="completed" if verdict is not None else "unknown",
        verdict=verdict,
        label_probs=dict(probs) if probs is not None else None,
        label_mass=mass,
    )


Cell = tuple[str, str]
"""(presentation, cell)."""


def source_records(
    configuration: str,
    source: str,
    *,
    phase: str = "confirmation",
    dataset: str = "gsm8k",
    distance: str = "near",
    accepted: Collection[Cell] = (),
    wrong: Collection[Cell] = (),
    missing: Collection[Cell] = (),
) -> list[JudgeRecord]:
    """Every planned request of one source: right verdicts, except the cells listed.

    ``accepted``: a cue cell judged ``correct``; ``wrong``: a control judged wrongly;
    ``missing``: no verdict (unknown outcome).
    """
    cells = CONFIRMATION_CELLS if phase == "confirmation" else PREFLIGHT_CELLS
    found = []
    for presentation in PRESENTATIONS:
        for cell in cells:
            key = (presentation, cell)
            target = TARGETS.get(cell, "incorrect")
            if key in missing:
                verdict = None
            elif key in accepted:
                verdict = "correct"
            elif key in wrong:
                verdict = "incorrect" if target == "correct" else "correct"
            else:
                verdict = target
            found.append(
                record(
                    configuration,
                    source,
                    cell,
                    presentation,
                    verdict,
                    phase=phase,
                    dataset=dataset,
                    distance=distance,
                )
            )
    return found


def panel(
    configuration: str,
    per_dataset: Mapping[str, int],
    accepted: Mapping[str, Collection[Cell]] | None = None,
    missing: Mapping[str, Collection[Cell]] | None = None,
) -> list[JudgeRecord]:
    """Confirmation records of sources ``{dataset}-{k}`` (alternately near and far)."""
    accepted, missing = accepted or {}, missing or {}
    found = []
    for dataset, n in per_dataset.items():
        for k in range(n):
            source = f"{dataset}-{k:03d}"
            found += source_records(
                configuration,
                source,
                dataset=dataset,
                distance=("near", "far")[k % 2],
                accepted=accepted.get(source, ()),
                missing=missing.get(source, ()),
            )
    return found
