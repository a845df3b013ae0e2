"""The three natural-source studies from the command line on the embedded judge, end to end."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit.judge.analysis import DecompositionAnalysis, RepeatAnalysis
from readout_audit.judge.protocol import DECOMPOSITION_PRIMARY, DECOMPOSITION_SECONDARY

pytestmark = pytest.mark.cost(35)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
SOURCES = ["--halueval", str(FIXTURES / "halueval_qa_rows.jsonl")]


def invoke(*args: str) -> str:
    result = CliRunner().invoke(main, [*args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def run(inventory: Path, out: Path) -> None:
    invoke(
        "judge",
        "run",
        str(inventory),
        "--phase",
        "confirmation",
        "--out",
        str(out),
        "--plain",
        "--no-progress",
    )


@pytest.mark.model  # the CLI loads the embedded model itself
def test_decomposition_and_repeat_build_run_and_report_and_the_pilot_builds(tmp_path):
    decomposition, repeat, pilot = (tmp_path / name for name in ("dec", "rep", "pilot"))
    judges = [
        "--configuration",
        "hall=HALL@smollm2-135m",
        "--configuration",
        "hallr=HALL_R@smollm2-135m",
        "--configuration",
        "final3=FINAL3@smollm2-135m",
    ]
    out = invoke(
        "judge",
        "build",
        "--study",
        "decomposition",
        *SOURCES,
        "--per-dataset",
        "1",
        *judges,
        "--out",
        str(decomposition),
    )
    assert "wrote 42 requests" in out and "halueval: 10 rows, 8 sources" in out
    final3 = ["--configuration", "final3=FINAL3@smollm2-135m"]
    reuse = ["judge", "build", "--study", "repeat", "--from-inventory", str(decomposition), *final3]
    out = invoke(*reuse, "--panel", "halueval=1", "--out", str(repeat))
    assert "wrote 26 requests" in out  # 18 calls and the 8 fixture calls
    out = invoke(
        "judge",
        "build",
        "--study",
        "formatting-pilot",
        *SOURCES,
        "--per-dataset",
        "1",
        "--exclude",
        str(decomposition),
        *final3,
        "--out",
        str(pilot),
    )
    assert "wrote 12 requests" in out
    nowhere = ["--out", str(tmp_path / "no")]
    refused = CliRunner().invoke(main, [*reuse, *SOURCES, *nowhere])
    assert (
        refused.exit_code == 2
        and "repeat study reads no dataset: drop --halueval" in refused.output
    )
    bad = CliRunner().invoke(main, [*reuse, "--panel", "halueval", *nowhere])
    assert bad.exit_code != 0 and "DATASET=N" in bad.output and not (tmp_path / "no").exists()

    for inventory in (decomposition, repeat):  # the pilot runs as the repeat panel does
        run(inventory, tmp_path / f"run-{inventory.name}")
    done = read_run(tmp_path / "run-dec")
    found = done.summary.study_result
    assert isinstance(found, DecompositionAnalysis) and len(done.records) == 42
    # every slot's estimate again from the records, by hand (one source: its own value)
    accepted = {
        (r.configuration, r.source_id, r.cell): float(r.verdict == r.positive_label)
        for r in done.records
    }
    roles = {"HALL": "hall", "HALL_R": "hallr", "FINAL3": "final3"}
    contrasts = {c.name: c for c in (*DECOMPOSITION_PRIMARY, *DECOMPOSITION_SECONDARY)}
    (source,) = {r.source_id for r in done.records}
    for test in (*found.primary, *found.secondary):
        contrast = contrasts[test.contrast]
        value = sum(sign * accepted[(roles[c], source, cell)] for c, cell, sign in contrast.terms)
        assert test.estimate == pytest.approx(value)
        assert test.method == "hoeffding" and test.p_raw == pytest.approx(
            min(1.0, 2 * math.exp(-2 * value**2 / (2 * contrast.value_range[1]) ** 2))
        )  # one source: nothing varies, Hoeffding over the contrast's range
    report = invoke("judge", "report", str(tmp_path / "run-dec"), "--plain")
    assert "Primary family: I_HALL(Actual)" in report and "Acceptance per contract" in report
    repeated = read_run(tmp_path / "run-rep").summary.study_result
    assert isinstance(repeated, RepeatAnalysis) and [p.planned for p in repeated.passes] == [
        1,
        1,
        1,
        1,
    ]
    # a local judge computes each identical body alike: every repeat group agrees
    assert all(a.same_verdict == a.groups == 1 for a in repeated.agreement + repeated.fixtures)
    report = invoke("judge", "report", str(tmp_path / "run-rep"), "--plain")
    assert "Acceptances per pass" in report and "Three-pass patterns" in report
