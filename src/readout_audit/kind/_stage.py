"""One path from settings to a finished run, for a command and a notebook alike.

A kind's settings are its stage (:class:`KindSettings`): :func:`run_stage` checks and locks
the run directory before anything loads, runs the settings' checks with the tokenizer alone,
opens the model and runs them (which binds the model's ledger to the run and finishes it
through :func:`run_kind`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from readout_audit.kind._choice import ModelChoice
from readout_audit.kind._claim import claim
from readout_audit.kind._kind import AuditKind
from readout_audit.kind._run_settings import RunSettings
from readout_audit.kind._runner import ScoreResult
from readout_audit.log import RunDirectory
from readout_audit.model import ScoringModel, TextCodec


class KindSettings(BaseModel):
    """A kind's settings, which are its stage: what one run reads, its preflight, its run.

    A kind subclasses it with its own fields and :meth:`run`; :func:`run_stage` runs any of
    them one way. ``kind`` is the run directory's kind (a directory of another is refused).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    kind: ClassVar[AuditKind[Any, Any]]

    def read_inputs(self) -> None:
        """Read what the run reads (its items, splits, documents), before anything loads.

        Bad input stops a run before the slow steps; none by default.
        """

    def preflight(self, codec: TextCodec, run: RunSettings) -> None:
        """Checks with the tokenizer alone, before the weights load (none by default).

        Items rendered against the context window: bad input stops a run before the slow step.
        """

    def run(self, model: ScoringModel, out: RunDirectory, run: RunSettings) -> ScoreResult:
        """Run on the opened model into the locked run directory ``out``."""
        raise NotImplementedError(f"{type(self).__name__} does not say how it runs")


def run_stage(
    settings: KindSettings,
    out: str | Path,
    *,
    model: ModelChoice | ScoringModel | None = None,
    run: RunSettings | None = None,
) -> ScoreResult:
    """The one path into a run: inputs read, ``out`` checked and locked, preflight, model, run.

    ``run_stage(OptionsSettings(items="mc.jsonl", spec="answer"), "runs/a",
    model=ModelChoice("hf:org/model"))``. ``out``'s run directory is opened (locked, made if
    need be) before the model loads, so a second writer is refused at once, and closed at the
    end whatever happens. ``model`` is a model to open (default: the embedded one) or one
    already open (a notebook's): the preflight then reads its tokenizer before the run.
    """
    run = run or RunSettings()
    settings.read_inputs()
    with claim(out, settings.kind) as directory:

        def preflight(codec: TextCodec) -> None:
            settings.preflight(codec, run)

        if isinstance(model, ScoringModel):
            preflight(model.codec)
            opened = model
        else:
            opened = (model or ModelChoice()).open(preflight)
        return settings.run(opened, directory, run)
