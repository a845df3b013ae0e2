"""Every judge artifact is a stage: a second writer is refused, naming the one writing it, and
a writer killed part-way (SIGKILL) is resumed by the same call, to what an uninterrupted one
writes. Inventories, proposals, a search and its rounds, a served judge's run, combined runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from stage_writers import (
    FIXTURES,
    KILL_AFTER,
    PROPOSAL_BEAM,
    fake_judge,
    gsm8k_inventory,
    search_setup,
)

from readout_audit import InputError, RunDirectoryError
from readout_audit._cli import main
from readout_audit.judge import (
    PAPER_SEED,
    BeamSettings,
    build_inventory,
    combine_runs,
    load_gsm8k_jsonl,
    parse_configuration,
    read_inventory,
    run_search,
    run_served_judge,
    write_inventory,
    write_proposals,
)
from readout_audit.judge.inventory import (
    INVENTORY_FILE,
    LEGACY_MANIFEST_FILE,
    MANIFEST_FILE,
    OUTCOME_FILE,
)
from readout_audit.judge.search import PROPOSAL_CONTEXTS, beams_path
from readout_audit.log import RunLock, read_run
from readout_audit.log._stage import stage_lock
from readout_audit.serve import Endpoint

GSM8K = str(FIXTURES / "gsm8k_test_head.jsonl")
HOLDER = f"is being written by process {os.getpid()}"
CONFIGURATIONS = ["--configuration", "f3=FINAL3@smollm2-135m"]
SERVED = "s4=FINAL4@openai:http://127.0.0.1:9/v1#smollm2"  # nothing listens: never reached


def child(*args: str, kill_after: int) -> None:
    """Run ``stage_writers.main`` in a child process that SIGKILLs itself part-way."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        KILL_AFTER: str(kill_after),
    }
    code = "import stage_writers; stage_writers.main()"
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True)
    assert done.returncode == -9, done.stderr.decode()


def build(out: Path, *args: str):
    return CliRunner().invoke(main, ["judge", "build", "--gsm8k", GSM8K, *args, "--out", str(out)])


# inventories


def test_a_second_inventory_build_is_refused_before_it_reads_a_dataset(tmp_path):
    with_lock = RunLock(tmp_path)  # the inventory directory's
    with_lock.acquire()
    try:
        refused = CliRunner().invoke(
            main,
            [
                "judge",
                "build",
                "--gsm8k",
                str(tmp_path / "nowhere.jsonl"),
                *CONFIGURATIONS,
                "--out",
                str(tmp_path),
            ],
        )
        with pytest.raises(RunDirectoryError, match=HOLDER):
            write_inventory(tmp_path, gsm8k_inventory())
    finally:
        with_lock.release()
    assert refused.exit_code == 1 and HOLDER in refused.output  # not the missing dataset
    assert not (tmp_path / INVENTORY_FILE).exists()


def test_an_inventory_build_killed_mid_line_resumes_to_the_uninterrupted_files(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    write_inventory(whole, gsm8k_inventory())
    write_inventory(cut, gsm8k_inventory())
    # what a writer killed mid-append leaves: its manifest unfinished, a last line cut in half
    manifest = json.loads((cut / MANIFEST_FILE).read_text())
    manifest["invocations"][-1]["finished"] = None
    (cut / MANIFEST_FILE).write_text(json.dumps(manifest))
    lines = (whole / INVENTORY_FILE).read_bytes().splitlines(keepends=True)
    (cut / INVENTORY_FILE).write_bytes(b"".join(lines[:3]) + lines[3][:40])
    with pytest.raises(InputError, match="unfinished inventory: run the same build again"):
        read_inventory(cut)
    write_inventory(cut, gsm8k_inventory())
    for name in (INVENTORY_FILE, OUTCOME_FILE):
        assert (cut / name).read_bytes() == (whole / name).read_bytes()
    invocations = json.loads((cut / MANIFEST_FILE).read_text())["invocations"]
    assert len(invocations) == 2 and invocations[-1]["finished"] and invocations[-1]["planned"]
    assert read_inventory(cut).requests == read_inventory(whole).requests
    with pytest.raises(RunDirectoryError, match=r"config\.seed: 20261007154 -> 5"):
        write_inventory(cut, gsm8k_inventory(seed=5))


def test_an_inventory_build_killed_after_two_requests_resumes_to_the_uninterrupted_files(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    write_inventory(whole, gsm8k_inventory())
    child("inventory", str(killed), kill_after=2)  # a real SIGKILL after the second line
    assert len((killed / INVENTORY_FILE).read_bytes().splitlines()) == 2
    with pytest.raises(InputError, match="unfinished inventory"):
        read_inventory(killed)
    write_inventory(killed, gsm8k_inventory())
    for name in (INVENTORY_FILE, OUTCOME_FILE):
        assert (killed / name).read_bytes() == (whole / name).read_bytes()
    invocations = json.loads((killed / MANIFEST_FILE).read_text())["invocations"]
    assert [i["finished"] is not None for i in invocations] == [False, True]


def test_an_inventory_of_the_earlier_layout_is_read_and_only_checked(tmp_path):
    built = gsm8k_inventory()
    write_inventory(tmp_path / "new", built)
    old = tmp_path / "old"
    old.mkdir()
    (old / INVENTORY_FILE).write_bytes((tmp_path / "new" / INVENTORY_FILE).read_bytes())
    legacy = {
        "schema_version": 1,
        "version": "0.1.0",
        **built.settings.model_dump(mode="json"),
        **built.outcome.model_dump(mode="json"),
    }
    (old / LEGACY_MANIFEST_FILE).write_text(json.dumps(legacy))
    again = read_inventory(old)
    assert (again.settings, again.outcome, again.requests) == (
        built.settings,
        built.outcome,
        built.requests,
    )
    write_inventory(old, built)  # the same inventory: nothing written
    assert sorted(p.name for p in old.iterdir()) == sorted(
        [INVENTORY_FILE, LEGACY_MANIFEST_FILE, ".lock"]
    )
    with pytest.raises(InputError, match="holds another inventory than this build plans"):
        write_inventory(old, gsm8k_inventory(seed=5))


# proposals


def test_a_second_proposer_is_refused_before_its_model_loads(tmp_path):
    out = tmp_path / "proposals.json"
    lock = stage_lock(beams_path(out))
    lock.acquire()
    try:
        args = ["judge", "propose", "--out", str(out), "--model", "hf:nobody/nothing"]
        refused = CliRunner().invoke(main, args)
    finally:
        lock.release()
    assert refused.exit_code == 1 and HOLDER in refused.output  # not the model's absence
    assert not out.exists()


class _Interrupted(Exception):
    pass


class _Stopping:
    """A model that stops (as a kill would) at its ``calls``-th forward."""

    def __init__(self, model, calls: int) -> None:
        self._model, self._left = model, calls

    def __getattr__(self, name: str):
        return getattr(self._model, name)

    def next_token_logprobs(self, prompts):
        self._left -= 1
        if self._left == 0:
            raise _Interrupted
        return self._model.next_token_logprobs(prompts)


@pytest.mark.model
def test_proposals_interrupted_between_contexts_resume_to_the_uninterrupted_file(model, tmp_path):
    settings = BeamSettings(first_width=4, width=2, depth=2)
    contexts = PROPOSAL_CONTEXTS[:2]
    whole, cut = tmp_path / "whole.json", tmp_path / "cut.json"
    write_proposals(model, whole, settings, contexts)
    with pytest.raises(_Interrupted):  # in the second context: the first one's beam is kept
        write_proposals(_Stopping(model, 3), cut, settings, contexts)
    assert not cut.exists()
    kept = beams_path(cut).read_bytes()
    assert kept.count(b"\n") == 1
    beams_path(cut).write_bytes(kept + b'{"context": 1, "propos')  # a line cut by a kill
    again = _Stopping(model, 99)
    write_proposals(again, cut, settings, contexts)
    assert again._left == 99 - 2  # only the second context's two forwards ran
    assert cut.read_bytes() == whole.read_bytes()
    assert beams_path(cut).read_bytes() == beams_path(whole).read_bytes()
    manifest = json.loads(Path(str(beams_path(cut)) + ".manifest.json").read_text())
    assert [i["finished"] is not None for i in manifest["invocations"]] == [False, True]


@pytest.mark.model
def test_a_proposer_killed_after_its_first_context_resumes_at_the_second(
    model, tmp_path, float32_budget
):
    whole, killed = tmp_path / "whole.json", tmp_path / "killed.json"
    write_proposals(model, whole, PROPOSAL_BEAM, PROPOSAL_CONTEXTS[:2])
    child("proposals", str(killed), kill_after=1)  # its own model; a real SIGKILL
    assert not killed.exists() and beams_path(killed).read_bytes().count(b"\n") == 1
    again = _Stopping(model, 99)
    write_proposals(again, killed, PROPOSAL_BEAM, PROPOSAL_CONTEXTS[:2])
    assert again._left == 99 - 2  # only the second context's two forwards ran
    # the first context's beam came from the killed process's own load of the model
    for mine, theirs in zip(_beams(killed), _beams(whole), strict=True):
        assert [p["text"] for p in mine] == [p["text"] for p in theirs]
        for a, b in zip(mine, theirs, strict=True):
            assert abs(a["logprob"] - b["logprob"]) <= len(a["token_ids"]) * float32_budget(512)
    manifest = json.loads(Path(str(beams_path(killed)) + ".manifest.json").read_text())
    assert [i["finished"] is not None for i in manifest["invocations"]] == [False, True]


def _beams(out: Path) -> list[list[dict]]:
    """Each context's proposals, as the stage file keeps them."""
    return [json.loads(line)["proposals"] for line in beams_path(out).read_text().splitlines()]


# a search and its rounds


def test_a_second_search_is_refused_at_once(tmp_path):
    out = tmp_path / "search"
    out.mkdir()
    lock = RunLock(out)
    lock.acquire()
    try:
        with pytest.raises(RunDirectoryError, match=HOLDER):
            run_search(out, search_setup(), fake_judge)
        args = ["judge", "search", str(out), "--programme", "extend", "--gsm8k", GSM8K]
        args += ["--configuration", "c=FINAL3@hf:nobody/nothing", "--no-progress"]
        refused = CliRunner().invoke(main, args)  # before its judge or proposer loads
    finally:
        lock.release()
    assert refused.exit_code == 1 and HOLDER in refused.output
    assert sorted(p.name for p in out.iterdir()) == [".lock"]


def test_a_search_killed_mid_confirmation_resumes_to_the_uninterrupted_search(tmp_path):
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    run_search(whole, search_setup(), fake_judge)
    # development-0 holds 2 bridges x 1 question = 2 requests; the kill comes mid-confirmation
    child("search", str(cut), kill_after=2 + 1)
    assert (cut / "selection.json").exists() and not (cut / "confirmation.json").exists()
    assert len(read_run(cut / "confirmation.run").records) == 1
    result = run_search(cut, search_setup(), fake_judge)
    for name in ("search.json", "selection.json", "confirmation.json"):
        assert (cut / name).read_bytes() == (whole / name).read_bytes()
    for stage in ("development-0.run", "confirmation.run"):
        done = {r.item_id: r.model_dump() for r in read_run(cut / stage).records}
        assert done == {r.item_id: r.model_dump() for r in read_run(whole / stage).records}
    assert [b.text for b in result.selection.frozen][-1] == ""  # the matched blank control
    invocations = json.loads((cut / "manifest.json").read_text())["invocations"]
    assert [i["finished"] is not None for i in invocations] == [False, True]
    with pytest.raises(RunDirectoryError, match=r"Differences: .*programme\.keep: 1 -> 2"):
        run_search(cut, search_setup(keep=2), fake_judge)


# a served judge's run and combined runs


def test_a_second_served_judge_run_is_refused_at_once(tmp_path):
    built = gsm8k_inventory(judge=SERVED)
    write_inventory(tmp_path / "inventory", built)
    out = tmp_path / "run"
    out.mkdir()
    lock = RunLock(out)
    lock.acquire()
    try:
        with pytest.raises(RunDirectoryError, match=HOLDER):
            run_served_judge(
                tmp_path / "inventory", out, [Endpoint("http://127.0.0.1:9/v1")], phase="preflight"
            )
        args = ["judge", "run", str(tmp_path / "inventory"), "--phase", "preflight"]
        refused = CliRunner().invoke(main, [*args, "--out", str(out), "--no-progress"])
    finally:
        lock.release()
    assert refused.exit_code == 1 and HOLDER in refused.output
    assert sorted(p.name for p in out.iterdir()) == [".lock"]
    # a served judge's run resumed after kill -9: test_judge_chat_llama's
    # test_judge_run_drives_a_served_judge_through_the_run_ledger


def _runs(tmp_path: Path) -> list[Path]:
    """Two judges' preflight runs of one inventory (f3, local, and s4, served)."""
    bank = load_gsm8k_jsonl(GSM8K)
    configurations = [
        parse_configuration(text, PAPER_SEED + i)
        for i, text in enumerate(["f3=FINAL3@smollm2-135m", SERVED])
    ]
    built = build_inventory(
        [bank], configurations, seed=PAPER_SEED, per_dataset=1, preflight_per_dataset=1
    )
    write_inventory(tmp_path / "inventory", built)
    runs = [tmp_path / "f3.run", tmp_path / "s4.run"]
    fake_judge(tmp_path / "inventory", runs[0], "preflight", ("f3",))
    fake_judge(tmp_path / "inventory", runs[1], "preflight", ("s4",))
    return runs


def test_combined_runs_are_refused_while_written_and_resumed_after_kill_9(tmp_path):
    runs = _runs(tmp_path)
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    combine_runs(runs, whole)
    assert len(read_run(whole).records) == 2 * 12  # 1 preflight source x 12 calls each
    cut.mkdir()
    lock = RunLock(cut)
    lock.acquire()
    try:
        with pytest.raises(RunDirectoryError, match=HOLDER):
            combine_runs(runs, cut)
    finally:
        lock.release()
    child("combine", str(cut), *map(str, runs), kill_after=3)
    assert len(read_run(cut).records) == 3 and read_run(cut).summary is None
    combine_runs(runs, cut)
    done, expected = read_run(cut), read_run(whole)
    assert [r.model_dump() for r in done.records] == [r.model_dump() for r in expected.records]
    assert done.summary is not None and expected.summary is not None
    assert done.summary.model_dump(exclude={"timing"}) == expected.summary.model_dump(
        exclude={"timing"}
    )
    other = combine_runs(runs[:1], tmp_path / "one")
    assert len(other.records) == 12
    with pytest.raises(RunDirectoryError, match="another configuration"):
        combine_runs(runs[:1], cut)
