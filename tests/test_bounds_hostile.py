"""Bounds on seeds, replicate counts, text lengths, side files and reads: each hostile input is
refused in one line naming it, before any work. Every hostile input is made here."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hostile import refused
from pydantic import ValidationError

from readout_audit import InputError, Item
from readout_audit._util import _input
from readout_audit._util._input import read_input_bytes
from readout_audit.data import generate_controlled_logic
from readout_audit.judge import SearchSettings, load_bank
from readout_audit.judge.inventory import parse_number
from readout_audit.judge.studies import BuildSettings
from readout_audit.model import ServedSettings, TextCodec, wrap_model
from readout_audit.prompt._render import render
from readout_audit.recover import (
    RecoverSetup,
    RecoverSources,
    read_hidden,
    recover_splits,
    seeded_name,
)
from readout_audit.recover import _sources as recover_sources
from readout_audit.recover._setup import Configuration
from readout_audit.recover._store import HIDDEN_FILE, HiddenLayout, HiddenWriter
from readout_audit.recover._truncate import fit_to_limit
from readout_audit.scoring import prepare
from readout_audit.serve import CostCap
from readout_audit.stats._validate import MAX_REPLICATES, check_replicates

pytestmark = pytest.mark.cost(30)

RECOVER = ["audit", "recover", "--generate", "controlled-logic", "--n", "4", "--train-n", "8"]
HUGE = "9" * 400


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (f"lexical@{HUGE}", "'lexical@99999999999999999999999999999999'... (408 characters)"),
        ("lexical@" + "9" * 5000, "(5,008 characters)"),
        (f"lexical@{1 << 63}", f"'lexical@{1 << 63}'"),
        ("lexical@٥٢", "'lexical@٥٢'"),
        ("lexical@", "'lexical@'"),
    ],
)
def test_an_eval_seed_is_bounded_as_seed_is_before_any_work(tmp_path, name, shown):
    error = refused([*RECOVER, "--eval", name, "--out", tmp_path / "o"], shown, "'eval'")
    assert "integer in [0, 2^63) in ASCII digits" in error
    assert not (tmp_path / "o").exists()


def test_no_split_is_drawn_before_every_eval_name_is_checked(monkeypatch):
    def draw(split, n, seed):
        raise AssertionError(f"drew {split} at {seed}")

    monkeypatch.setitem(recover_sources.GENERATORS, "controlled-logic", draw)
    with pytest.raises(InputError, match="SEED of NAME@SEED") as caught:
        recover_splits(generate="controlled-logic", evals=["id,lexical@" + HUGE])
    assert caught.value.field == "eval"


@pytest.mark.parametrize(
    ("evals", "repeated", "first"),
    [
        ("lexical@52,lexical@052", "'lexical@052'", "'lexical@52'"),
        ("lexical@52,lexical@52", "'lexical@52'", "'lexical@52'"),
        ("lexical,lexical@0", "'lexical@0'", "'lexical'"),
    ],
)
def test_one_draw_named_twice_is_refused(tmp_path, evals, repeated, first):
    args = [*RECOVER, "--eval", evals, "--out", tmp_path / "o"]
    error = refused(args, f"{repeated} draws the same items as {first}", "'eval'")
    assert "seed 52" in error or "seed 0" in error
    assert not (tmp_path / "o").exists()


def test_seeds_are_kept_as_integers_under_one_name():
    splits = recover_splits(generate="controlled-logic", n=3, train_n=4, evals=["lexical@052,id"])
    assert list(splits.evals) == ["lexical@52", "id"]
    drawn = recover_splits(generate="controlled-logic", n=3, train_n=4, evals=["lexical@52"])
    assert splits.evals["lexical@52"] == drawn.evals["lexical@52"]
    assert seeded_name("lexical@52") == ("lexical", 52)
    assert seeded_name("lexical@٥٢") is None and seeded_name("lexical@" + "9" * 20) is None


@pytest.mark.parametrize("option", ["--n-boot", "--n-perm"])
def test_recover_replicates_are_bounded_before_any_work(tmp_path, option):
    error = refused([*RECOVER, option, "10000000000", "--out", tmp_path / "o"], option)
    assert "100<=x<=1000000" in error
    assert not (tmp_path / "o").exists()


def test_compare_replicates_are_bounded_before_any_run_is_read(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    args = ["compare", tmp_path / "a", tmp_path / "b", "--n-boot", "1e10"]
    refused(args, "--n-boot")
    error = refused([*args[:3], "--n-boot", str(10**10)], "--n-boot")
    assert "100<=x<=1000000" in error


def test_library_replicates_are_bounded_too():
    with pytest.raises(InputError, match="less than or equal to 1000000") as caught:
        RecoverSetup(n_boot=10**10)
    assert caught.value.field == "n-boot"
    with pytest.raises(InputError) as caught:
        RecoverSetup(n_perm=0)
    assert caught.value.field == "n-perm"
    with pytest.raises(ValueError, match="1,000,000"):
        check_replicates(MAX_REPLICATES + 1)


def test_a_notebooks_settings_hold_the_bounds_and_choices_their_commands_enforce():
    # the bounds live on the fields, not in the commands: a notebook meets the same refusal
    with pytest.raises(InputError, match="greater than or equal to 10") as caught:
        RecoverSetup(probe_rows=1)
    assert caught.value.field == "probe-rows"
    with pytest.raises(InputError, match="greater than or equal to 100") as caught:
        RecoverSetup(n_perm=99)
    assert caught.value.field == "n-perm"
    with pytest.raises(ValidationError, match="'nonsense' is none of controlled-logic, paper-"):
        RecoverSources(generate="nonsense")
    with pytest.raises(ValidationError, match="'nope' is none of confirmation, decomposition"):
        BuildSettings(study="nope", configurations=("f3=FINAL3@smollm2-135m",))
    with pytest.raises(ValidationError, match="'rank' is none of extend, screen"):
        SearchSettings(programme="rank", configuration="c=FINAL3@smollm2-135m")
    # the served settings too: once plain dataclasses that took any concurrency or server
    with pytest.raises(InputError, match="greater than or equal to 1") as caught:
        ServedSettings(concurrency=0)
    assert caught.value.field == "concurrency"
    with pytest.raises(InputError) as caught:
        ServedSettings(server="my-server")
    assert caught.value.field == "server"
    with pytest.raises(InputError, match="greater than 0") as caught:
        ServedSettings(timeout_s=0.0)
    with pytest.raises(InputError, match="greater than or equal to 1") as caught:
        CostCap(max_tokens=0)
    assert caught.value.field == "max_tokens" and caught.value.source == "cost cap"
    assert check_replicates(MAX_REPLICATES) == 1_000_000


def test_a_truncated_hidden_state_file_names_its_expected_size(tmp_path):
    layout = HiddenLayout(layers=(1, 2), dim=3)
    writer = HiddenWriter(tmp_path, layout)
    for value in (1.0, 2.0):
        writer.append(np.full(layout.row_shape, value))
    path = tmp_path / HIDDEN_FILE
    os.truncate(path, layout.row_bytes + 10)
    with pytest.raises(InputError) as caught:
        read_hidden(tmp_path, layout, needed=2)
    assert caught.value.source == str(path)
    assert "holds 58 bytes" in str(caught.value) and "96 bytes expected" in str(caught.value)
    assert read_hidden(tmp_path, layout, needed=1)[0].max() == 1.0


@pytest.mark.model
def test_report_of_a_recover_run_with_a_truncated_hidden_state_file(tmp_path):
    from click.testing import CliRunner

    from readout_audit._cli import main

    out = tmp_path / "run"
    args = ["audit", "recover", "--generate", "controlled-logic", "--n", "6", "--train-n", "9"]
    args += ["--eval", "id", "--n-perm", "100", "--n-boot", "100", "--limit", "5"]
    result = CliRunner().invoke(main, [*args, "--no-progress", "--out", str(out)])
    assert result.exit_code == 0, result.output
    hidden = out / HIDDEN_FILE
    size = hidden.stat().st_size
    os.truncate(hidden, size - 7)
    # summary.json records the file's size: the report does not trust it, recomputes, and fails
    assert json.loads((out / "summary.json").read_text())["integrity"]["file_bytes"] == {
        HIDDEN_FILE: size
    }
    error = refused(["report", out], str(hidden), f"{size:,} bytes expected")
    assert f"holds {size - 7:,} bytes" in error


def test_a_small_read_fits_under_a_memory_ulimit(tmp_path):
    small = tmp_path / "items.jsonl"
    small.write_text('{"id": "a"}\n')
    script = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "from readout_audit._util._input import read_input_bytes\n"
        "cap = 3 << 29\n"  # 1.5 GiB: a 2 GiB buffer cannot be reserved
        "resource.setrlimit(resource.RLIMIT_AS, (cap, cap))\n"
        "print(len(read_input_bytes(Path(sys.argv[1]))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(small)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "12"


def test_a_file_that_grows_while_read_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "growing.jsonl"
    path.write_bytes(b"0123456789")
    monkeypatch.setattr(_input, "check_regular", lambda *a, **k: 4)  # its size when checked
    with pytest.raises(InputError, match="grew while being read") as caught:
        read_input_bytes(path)
    assert caught.value.source == str(path)


class CountingTokenizer:
    """A tokenizer that records every text it is asked to encode (one id per character)."""

    eos_token_id = unk_token_id = bos_token_id = None

    def __init__(self) -> None:
        self.seen: list[int] = []

    def __call__(self, text, add_special_tokens=False):
        self.seen.append(len(text))
        return {"input_ids": [ord(c) % 50 for c in text]}

    def convert_tokens_to_ids(self, token):
        return None


def test_text_longer_than_the_window_can_use_is_never_tokenised():
    tokenizer = CountingTokenizer()
    codec = TextCodec(tokenizer, name="counting", context_window=1024)
    big = "x" * 3_000_000  # 3 MB: far over 1,024 tokens × 64 characters
    with pytest.raises(InputError) as caught:
        render(Item(id="huge", prompt=big, options=[" a"]), codec)
    assert caught.value.item_id == "huge" and caught.value.field == "prompt"
    assert "3,000,002 characters" in str(caught.value) and "65,536 at most" in str(caught.value)
    with pytest.raises(InputError) as caught:
        render(Item(id="opt", prompt="Q:", options=[" a", big]), codec)
    assert caught.value.item_id == "opt" and caught.value.field == "options"
    with pytest.raises(InputError) as caught:
        render(Item(id="chat", messages=[{"role": "user", "content": big}], options=["a"]), codec)
    assert caught.value.item_id == "chat" and caught.value.field == "messages"
    with pytest.raises(InputError, match="not tokenised"):
        codec.encode(big)
    assert max(tokenizer.seen) < 10  # only the empty prefix probe reached the tokenizer
    with pytest.raises(InputError, match="60000 tokens, beyond the model's window of 1024"):
        render(Item(id="within", prompt="x" * 60_000, options=[" a"]), codec)
    assert max(tokenizer.seen) == 60_000  # within the bound: tokenised, measured in tokens


@pytest.mark.model
def test_a_huge_prompt_is_refused_before_it_is_tokenised(tmp_path):
    items = tmp_path / "items.jsonl"
    prompt = "word " * 120_000  # 600,000 characters: over SmolLM2's 8,192 tokens × 64
    items.write_text(json.dumps({"id": "big", "prompt": prompt, "options": [" a", " b"]}) + "\n")
    error = refused(["score", "--items", items, "--out", tmp_path / "o"], "'big'", "'prompt'")
    assert "600,002 characters" in error and "not tokenised" in error
    assert not (tmp_path / "o").exists()


@pytest.mark.model
def test_wrap_model_refuses_a_string_or_a_larger_tokenizer(torch_model, hf_tokenizer):
    with pytest.raises(InputError, match="expected a transformers tokenizer, got str"):
        wrap_model(torch_model, "HuggingFaceTB/SmolLM2-135M")
    bigger = copy.deepcopy(hf_tokenizer)
    rows = torch_model.get_input_embeddings().num_embeddings
    bigger.add_tokens([f"<extra_{i}>" for i in range(rows - len(bigger) + 1)])
    with pytest.raises(InputError, match=f"knows {rows + 1:,} tokens, but the model embeds only"):
        wrap_model(torch_model, bigger)


def _gsm8k(path: Path, final: str) -> Path:
    row = {"question": "How many?", "answer": f"Count them.\n#### {final}"}
    path.write_text(json.dumps(row) + "\n")
    return path


def test_a_reference_of_400_digits_is_no_finite_number(tmp_path):
    assert parse_number(HUGE) is None and parse_number("1" + "0" * 15) is None
    assert parse_number("٥٢") is None and parse_number("999,999,999,999,999") == 999999999999999.0
    with pytest.raises(InputError, match="does not state a finite number") as caught:
        load_bank(_gsm8k(tmp_path / "gsm8k.jsonl", HUGE), "gsm8k")
    assert caught.value.line == 1 and caught.value.item_id == "gsm8k:0"
    assert caught.value.field == "answer"
    row = {"knowledge": "k", "question": "How many?", "right_answer": HUGE}
    (tmp_path / "halu.jsonl").write_text(json.dumps(row) + "\n")
    bank = load_bank(tmp_path / "halu.jsonl", "halueval")
    assert bank.sources == [] and bank.skipped == {"non_numeric_answer": 1}


def test_judge_build_refuses_a_400_digit_reference_in_one_line(tmp_path):
    gsm8k = _gsm8k(tmp_path / "gsm8k.jsonl", HUGE)
    args = ["judge", "build", "--gsm8k", gsm8k, "--configuration", "f3=FINAL3@smollm2-135m"]
    refused([*args, "--out", tmp_path / "inv"], str(gsm8k), "gsm8k:0", "'answer'")
    assert not (tmp_path / "inv").exists()


@pytest.mark.parametrize("kind", ["fifo", "loop"])
def test_a_halueval_path_that_exists_is_read_as_a_file(tmp_path, kind):
    path = tmp_path / f"{kind}.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(path)
    reason = "not a regular file" if kind == "fifo" else "a loop of symbolic links"
    args = ["judge", "build", "--halueval", path, "--configuration", "f3=FINAL3@smollm2-135m"]
    refused([*args, "--out", tmp_path / "inv"], str(path), reason)
    assert not (tmp_path / "inv").exists()


@pytest.mark.model
def test_recover_still_cuts_a_context_too_long_to_tokenise(hf_tokenizer):
    codec = TextCodec(hf_tokenizer, name="small-window", context_window=256)  # 16,384 chars
    source = generate_controlled_logic("depth", 1, 0)[0]
    long = source.model_copy(update={"context": "Bob is big. " * 3000})  # 36,000 characters

    def build(item):
        return prepare(Configuration("main", "words").item(item, chat=True), codec, {}, 0, "m")

    fitted = fit_to_limit(long, build, 200)
    assert fitted.dropped_tokens is None and 0 < fitted.dropped_words < 9000
    kept = len(fitted.prepared.rendering.token_ids)
    assert kept + max(len(e.token_ids) for e in fitted.prepared.encodings) <= 200
    assert fitted.source.context == " ".join(long.context.split()[fitted.dropped_words :])
