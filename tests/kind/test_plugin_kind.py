"""A new audit kind defined here, registered once, run through ``readout`` end to end.

The kind ("toy") reads each item's scored position and records whether the unrestricted
argmax is one of its options; its summary is that share with an interval, its check fails
when fewer than half the items have an option at the argmax. Nothing outside this module
knows about it: the ``readout`` subprocesses import it as a plug-in (READOUT_AUDIT_PLUGINS),
and its runs go through ``readout report``, ``compare``, ``export`` and ``table`` as a built-in
kind's do.
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd
import pytest
from pydantic import Field

from readout_audit import KindSettings, RunSettings, ScoreResult, read_run, score_item
from readout_audit.cli import (
    audit_group,
    model_options,
    option_hint,
    register_commands,
    run_command,
    settings_from,
    settings_options,
    user_errors,
)
from readout_audit.data import load_items
from readout_audit.kind import AuditKind, Job, register_kind, run_kind
from readout_audit.log import Check, Interval, ScoreRecord, Summary
from readout_audit.readout import position_request
from readout_audit.report import Section, TableBlock
from readout_audit.scoring import PreparedItem, check_rendered, prepare, scoring_config
from readout_audit.stats import bootstrap_ci

pytestmark = pytest.mark.cost(25)

HERE = Path(__file__).parent


class ToyRecord(ScoreRecord):
    """A scored position and whether an option holds its argmax."""

    option_at_argmax: bool


class ToySummary(Summary):
    """The share of items whose argmax is an option."""

    kind: str = "toy"
    option_at_argmax: Interval


@dataclass(frozen=True)
class ToyPayload:
    prepared: PreparedItem


def toy_record(model: Any, job: Job[ToyPayload], scores: Any) -> ToyRecord:
    base = score_item(model, job.payload.prepared, top_k=3, scores=scores)
    return ToyRecord(**base.model_dump(), option_at_argmax=base.argmax_is_option)


def toy_summary(run: Any) -> ToySummary:
    hits = np.array([r.option_at_argmax for r in run.records], dtype=float)
    clusters = [r.cluster for r in run.records]
    share = bootstrap_ci(hits, n_boot=2000, seed=0, clusters=clusters)
    return ToySummary(
        n_records=len(run.records),
        n_items=len({r.item_id for r in run.records}),
        option_at_argmax=Interval.from_bootstrap(share, clusters, n_boot=2000),
    )


def toy_checks(records: Sequence[ToyRecord]) -> list[Check]:
    share = sum(r.option_at_argmax for r in records) / max(len(records), 1)
    verdict = "pass" if share >= 0.5 else "fail"
    return [Check("toy_argmax", verdict, f"an option is the argmax on {share:.0%} of items")]


def toy_sections(run: Any, summary: ToySummary) -> list[Section]:
    rows = [
        [r.item_id, f"{r.option_mass}", "yes" if r.option_at_argmax else "NO"] for r in run.records
    ]
    share = summary.option_at_argmax
    return [
        Section(
            "Toy",
            [
                TableBlock("Items", ["item", "mass", "option at argmax"], rows),
                TableBlock(
                    "Share",
                    ["estimate", "low", "high"],
                    [[f"{share.estimate:.4f}", f"{share.low:.4f}", f"{share.high:.4f}"]],
                ),
            ],
        )
    ]


TOY: AuditKind[ToyRecord, ToySummary] = AuditKind(
    name="toy",
    title="toy audit",
    record_type=ToyRecord,
    summary_type=ToySummary,
    make_record=toy_record,
    summarise=toy_summary,
    sections=toy_sections,
    checks=toy_checks,
)
register_kind(TOY)


class ToySettings(KindSettings):
    """What a toy run reads: its settings are its options and its stage, as a built-in's are."""

    kind = TOY

    items: Path = Field(json_schema_extra=option_hint(path="file"))
    """An item JSONL file."""

    def preflight(self, codec: Any, run: RunSettings) -> None:
        check_rendered(load_items(self.items), codec, run, 4)

    def run(self, model: Any, out: Any, run: RunSettings) -> ScoreResult:
        items = load_items(self.items)
        prepared = [prepare(item, model.codec, run.template_kwargs, 4) for item in items]
        jobs = [
            Job(p.key, position_request(p.rendering, p.encodings, 4), ToyPayload(p))
            for p in prepared
        ]
        config = scoring_config(items, 3, 4, run.template_kwargs)
        return run_kind(TOY, model, out, config, lambda _: jobs, run)


@click.command("toy")
@settings_options(ToySettings)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@model_options
@user_errors
def toy_command(out: Path, **options: Any) -> None:
    """Run the toy kind."""
    run_command(settings_from(ToySettings, options), out, options)


@register_commands
def toy_commands(cli: click.Group) -> None:
    """``readout audit toy``, and a top-level command of the plug-in's own beside it."""
    audit_group.add_command(toy_command)

    @cli.command("toy-share")
    @click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
    def toy_share(run_dir: Path) -> None:
        """Print a toy run's share of items whose argmax is an option."""
        summary = read_run(run_dir).summary
        assert isinstance(summary, ToySummary)
        click.echo(f"{summary.option_at_argmax.estimate:.6f}")


QUESTIONS = [
    ("Is fire hot?", "yes"),
    ("Is snow black?", "no"),
    ("Do fish swim?", "yes"),
    ("Can stones fly?", "no"),
    ("Is the sun a star?", "yes"),
    ("Do cats bark?", "no"),
]


N_ITEMS = 8
"""Items of the toy run, two per cluster; each costs a batch-size-1 run ~0.5 s of CPU."""


def readout(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "readout_audit", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=plugin_env(),
    )


def plugin_env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path, "READOUT_AUDIT_PLUGINS": Path(__file__).stem}


def write_items(path: Path, n: int) -> None:
    lines = []
    for i in range(n):
        question, _ = QUESTIONS[i % len(QUESTIONS)]
        content = f"{question} Answer yes or no. (question {i})"
        lines.append(
            json.dumps(
                {
                    "id": f"q{i:02d}",
                    "messages": [{"role": "user", "content": content}],
                    "options": ["Yes", "No"],
                    "cluster": f"c{i % 4}",
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")


def wait_for_records(path: Path, n: int, process: subprocess.Popen[str], limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= n:
            return
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    raise AssertionError(f"no {n} records within {limit} s")


@pytest.mark.model
def test_a_kind_defined_in_a_test_runs_resumes_reports_and_compares(tmp_path):
    items = tmp_path / "items.jsonl"
    write_items(items, N_ITEMS)
    out, whole = tmp_path / "run", tmp_path / "whole"
    command = ["audit", "toy", "--items", str(items), "--out", str(out), "--batch-size", "1"]

    first = subprocess.Popen(
        [sys.executable, "-m", "readout_audit", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=plugin_env(),
    )
    try:
        wait_for_records(out / "records.jsonl", 3, first, limit=240)
        # paused, the writer keeps its lock and writes no more records (the kill below then
        # lands mid-run however long the second writer takes, so few items are needed)
        first.send_signal(signal.SIGSTOP)
        # a second writer on the same directory stops at once, before loading the model
        started = time.monotonic()
        second = readout(*command, timeout=120)
        assert second.returncode == 1
        assert f"is being written by process {first.pid}" in second.stderr
        assert time.monotonic() - started < 60
    finally:
        first.send_signal(signal.SIGKILL)
        first.communicate(timeout=60)

    # the kill left complete lines; cut the last one in half, as a kill mid-write would
    records = out / "records.jsonl"
    data = records.read_bytes()
    lines = data.splitlines(keepends=True)
    assert len(lines) < N_ITEMS and len(set(lines)) == len(lines)
    records.write_bytes(b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    cut_id = json.loads(lines[-1])["item_id"]
    report = readout("report", str(out), "--plain")
    assert report.returncode == 0, report.stderr
    assert "interrupted mid-record" in report.stdout and "finished\n" not in report.stdout
    assert f"{len(lines) - 1} records" in report.stdout
    assert read_run(out).state == "cut"

    resumed = readout(*command)
    assert resumed.returncode == 0, resumed.stderr
    run = read_run(out)
    assert run.state == "finished" and run.cut_line is None
    assert sorted(r.item_id for r in run.records) == [f"q{i:02d}" for i in range(N_ITEMS)]
    assert cut_id in {r.item_id for r in run.records}  # re-scored after the cut
    assert len(run.manifest.invocations) == 2

    uninterrupted = readout("audit", "toy", "--items", str(items), "--out", str(whole))
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    again = read_run(whole)
    assert isinstance(run.summary, ToySummary) and isinstance(again.summary, ToySummary)
    assert run.summary.model_dump(exclude={"this_invocation"}) == again.summary.model_dump(
        exclude={"this_invocation"}
    )
    hits = [r.option_at_argmax for r in run.records]
    assert run.summary.option_at_argmax.estimate == pytest.approx(sum(hits) / len(hits), abs=1e-12)
    assert run.summary.checks[0].name == "toy_argmax"

    report = readout("report", str(out), "--plain")
    assert report.returncode == 0, report.stderr
    written = readout("report", str(out), "--html", str(tmp_path / "toy.html"))
    assert written.returncode == 0, written.stderr
    html = (tmp_path / "toy.html").read_text()
    for text in (
        "toy audit",
        "Share",
        "toy_argmax",
        f"{run.summary.option_at_argmax.estimate:.4f}",
    ):
        assert text in report.stdout and text in html
    assert "finished" in report.stdout

    # the plug-in's own top-level command, registered as the built-in modules register theirs
    listed = readout("--help")
    assert "toy-share" in listed.stdout and "audit" in listed.stdout
    share = readout("toy-share", str(out))
    assert share.returncode == 0, share.stderr
    assert float(share.stdout) == pytest.approx(run.summary.option_at_argmax.estimate, abs=1e-6)

    compared = readout("compare", str(out), str(whole), "--json", str(tmp_path / "c.json"))
    assert compared.returncode == 0, compared.stderr
    comparison = json.loads((tmp_path / "c.json").read_text())
    assert comparison["kind"] == "toy" and comparison["n_paired"] == N_ITEMS
    mass = comparison["differences"]["production"][0]
    assert mass["metric"] == "option mass"
    assert abs(mass["difference"]["estimate"]) < 1e-4  # batch 1 vs 32: float32 rounding only

    exported = readout("export", str(out), "--out", str(tmp_path / "toy.csv"))
    assert exported.returncode == 0, exported.stderr
    frame = pd.read_csv(tmp_path / "toy.csv").set_index("item_id")
    assert sorted(frame.index) == [f"q{i:02d}" for i in range(N_ITEMS)]
    for record in run.records:  # the plug-in's own field is a column of its own
        assert frame.loc[record.item_id, "option_at_argmax"] == record.option_at_argmax

    tabled = readout("table", str(out), str(whole), "--csv", str(tmp_path / "runs.csv"))
    assert tabled.returncode == 0, tabled.stderr
    rows = pd.read_csv(tmp_path / "runs.csv")
    assert list(rows["kind"]) == ["toy", "toy"] and list(rows["records"]) == [N_ITEMS] * 2
    passed = int(sum(hits) / len(hits) >= 0.5)  # toy_checks' one verdict, worked out here
    assert list(rows["PASS"]) == [passed] * 2 and list(rows["FAIL"]) == [1 - passed] * 2


def test_the_plugin_imports_only_public_modules_of_the_package():
    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    imported = [
        node.module or ""
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("readout_audit")
    ]
    assert "readout_audit.cli" in imported  # its command is built as the built-in ones are
    assert [m for m in imported if any(p.startswith("_") for p in m.split("."))] == []
