"""``progress="off"`` (what ``--no-progress`` passes) silences every stage of the lift commands.

Each stage is run through the library call its command makes, progress off; nothing may reach
stderr (a progress bar, a line per record or step, a plan line).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from lift_cuts import EQUATION_TARGETS, equation_cut

from readout_audit.kind import quiet_loading
from readout_audit.lift import CutRun, CutSettings, cut_sources, score_lift, write_forecasts
from readout_audit.lift.sft import SftConfig, SftRun, fine_tune
from readout_audit.model import ScoringModel, load_model

pytestmark = pytest.mark.model

TEX = Path(__file__).parent.parent / "fixtures" / "tex"
CUTS = [equation_cut(target=t, paper=p) for p, t in list(EQUATION_TARGETS.items())[:4]]


@dataclass(frozen=True)
class FreshScorer:
    """The embedded scorer loaded afresh (training changes the model it is given)."""

    spec: str = "smollm2-135m"

    def open(self, preflight: object = None) -> ScoringModel:
        quiet_loading()  # as every model choice opens its model: the loaders' bars silenced
        return load_model(self.spec, dtype="float32")


def test_cut_predict_score_and_sft_write_nothing_on_stderr_when_progress_is_off(
    model, tmp_path, capsys
):
    cut_file = tmp_path / "cuts.jsonl"
    cut_file.write_text("".join(c.model_dump_json() + "\n" for c in CUTS))
    stages = {
        "cut": lambda: cut_sources(
            CutRun(
                sources=(TEX / "aipsamp.tex",),
                out=tmp_path / "cut.jsonl",
                settings=CutSettings(min_cuts=1),
            )
        ),
        "predict": lambda: write_forecasts(
            model, CUTS[:2], tmp_path / "z.jsonl", max_new_tokens=3, progress="off"
        ),
        "score": lambda: score_lift(model, CUTS[:2], tmp_path / "run", toy=False, progress="off"),
        "sft": lambda: fine_tune(
            SftRun(
                cuts=cut_file,
                out=tmp_path / "sft",
                training=SftConfig(steps=1, batch_size=1, rank=2, target_modules=("q_proj",)),
                progress="off",
            ),
            FreshScorer(),
        ),
    }
    for name, stage in stages.items():
        stage()
        err = capsys.readouterr().err
        assert err == "", (name, err)


def test_sft_progress_on_shows_its_plan_and_each_step(tmp_path, capsys):
    cut_file = tmp_path / "cuts.jsonl"
    cut_file.write_text("".join(c.model_dump_json() + "\n" for c in CUTS))
    training = SftConfig(steps=1, batch_size=1, rank=2, target_modules=("q_proj",))
    run = SftRun(cuts=cut_file, out=tmp_path / "sft", training=training, progress="lines")
    fine_tune(run, FreshScorer())
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "2 training papers (2 cuts), 2 held out (2 cuts, 0 held by a training " + (
        "example: not read); 1 step of 4 examples"
    )
    assert err[1].startswith("step 1/1: loss ") and len(err) == 2
