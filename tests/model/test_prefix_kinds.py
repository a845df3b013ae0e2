"""Every kind that scores locally reads the same numbers with prefix sharing on as off.

Each kind runs twice on one small input whose contexts open with a long common block (a
few-shot block, an instruction, a paper's text): once with prefix sharing on, once with every
context encoded in full. Records paired by their key agree within the float32 budget, and the
run with sharing encodes that block once where the plain run encodes it per context.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from few_shot import SHOTS

from readout_audit import (
    HiddenLayout,
    LMEvalRun,
    LogicItem,
    MCItem,
    OptionsSettings,
    PTrueSettings,
    QAItem,
    RecoverRun,
    Run,
    RunSettings,
    YesNoItem,
    YesNoSettings,
    read_hidden,
    read_run,
)
from readout_audit.judge import (
    PAPER_SEED,
    build_inventory,
    load_gsm8k_jsonl,
    parse_configuration,
    run_local_judge,
    write_inventory,
)
from readout_audit.lift import Cut, score_lift
from readout_audit.lift._cut import sha256_text
from readout_audit.lmeval import DocReading, TaskOptions, audit_lm_eval
from readout_audit.model import PositionRequest
from readout_audit.options import audit_options
from readout_audit.prompt import ANSWER
from readout_audit.ptrue import audit_ptrue
from readout_audit.recover import RecoverSetup, RecoverSplits, audit_recover
from readout_audit.yesno import audit_yesno

pytestmark = pytest.mark.cost(70)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"

INSTRUCTION = (
    "Read the question below carefully. It asks about a simple fact of everyday life, the kind "
    "of thing most adults know without looking it up. Think about what the words mean, ignore "
    "any trick in the phrasing, and answer with a single word: yes if the statement in the "
    "question is true, no if it is false.\n\n"
)
"""A long shared instruction (about 70 tokens) before every yes/no question."""
RULES = (
    "Every cat in the village is either black or grey. Black cats sleep in the barn. Grey cats "
    "sleep in the house. Tom is a cat in the village. Tom does not sleep in the barn. Mia is a "
    "cat in the village. Mia is black. Anything that sleeps in the house is warm at night. "
    "Nothing that sleeps in the barn is warm at night."
)
"""One set of facts shared by every recovery item: the prompt opens with it."""
PAPER = (
    "We study the harmonic oscillator, the simplest model of a particle bound near a stable "
    "equilibrium. Its potential is quadratic in the displacement, so the force is linear and the "
    "classical motion is a sinusoid whose frequency does not depend on the amplitude. "
    "In quantum mechanics the same potential gives a ladder of equally spaced levels. "
    "We first recall the classical solution, then introduce the ladder operators, and finally "
    "compute the spectrum and the ground state wave function.\n\n"
    "The classical equation of motion follows from Newton's second law. "
    "Writing the displacement as x and the spring constant as k, the particle obeys a linear "
    "second order equation whose solutions oscillate with angular frequency omega. "
    "The energy is conserved and split between kinetic and potential parts.\n\n"
    "The ladder operators lower and raise the energy by one quantum. "
    "Their commutator is one, and the Hamiltonian is a number operator plus one half."
)
"""A short paper: every prose cut's window (its last 2,000 characters) opens at its start."""


def tokens_of(record: Any) -> int:
    """Context and scored tokens a record's log-probabilities are read over (its budget)."""
    if hasattr(record, "target_logprobs"):  # lift: the prompt, then the target token by token
        return record.n_prompt_tokens + len(record.target_token_ids)
    if hasattr(record, "n_tokens"):  # options summed over their tokens
        return record.n_tokens + max(len(t or ()) for t in record.option_token_ids)
    return record.prompt_tokens + 4  # a judge's labels: a few tokens each


def record_key(record: Any) -> tuple[str, ...]:
    """A record's identity within its run: its item, its variant, and its split if it has one."""
    return (record.item_id, record.variant, getattr(record, "split", ""))


def compare(a: Any, b: Any, tolerance: float, where: str = "record") -> float:
    """Assert two dumped records agree; the largest difference between their floats.

    Floats agree within ``tolerance``, everything else (ids, texts, flags, counts) exactly. A
    top-k list is compared by rank: its log-probabilities within tolerance, and the token at a
    rank only where its neighbours are further than twice the tolerance away (a near-tie may
    swap them).
    """
    if isinstance(a, float) and isinstance(b, float):
        assert abs(a - b) <= tolerance, f"{where}: {a} != {b} within {tolerance}"
        return abs(a - b)
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), f"{where}: keys {a.keys()} != {b.keys()}"
        return max((compare(a[k], b[k], tolerance, f"{where}.{k}") for k in a), default=0.0)
    if isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), f"{where}: {len(a)} != {len(b)} elements"
        if where.endswith(".top"):
            return compare_top(a, b, tolerance, where)
        pairs = enumerate(zip(a, b, strict=True))
        return max((compare(x, y, tolerance, f"{where}[{i}]") for i, (x, y) in pairs), default=0.0)
    assert a == b, f"{where}: {a!r} != {b!r}"
    return 0.0


def compare_top(a: list[dict], b: list[dict], tolerance: float, where: str) -> float:
    """Top-k tokens by rank: log-probabilities within tolerance, ids where no near-tie."""
    logprobs = [t["logprob"] for t in a]
    largest = 0.0
    for rank, (x, y) in enumerate(zip(a, b, strict=True)):
        largest = max(largest, compare(x["logprob"], y["logprob"], tolerance, f"{where}[{rank}]"))
        gaps = [abs(logprobs[rank] - logprobs[j]) for j in (rank - 1, rank + 1) if 0 <= j < len(a)]
        if all(gap > 2 * tolerance for gap in gaps):
            assert x["id"] == y["id"], f"{where}[{rank}]: token {x['id']} != {y['id']}"
    return largest


@dataclass
class Measured:
    """One kind run both ways: the runs, the tokens each encoded, the plain run's contexts."""

    shared: Run[Any]
    plain: Run[Any]
    shared_tokens: int
    plain_tokens: int
    contexts: list[tuple[int, ...]]
    """Every context the plain run encoded, batch by batch (a batch's equal contexts once)."""


def run_both_ways(model, run: Callable[[Path], Path], tmp_path: Path) -> Measured:
    """Run a kind with prefix sharing on, then off, counting the tokens each encodes.

    The session's model keeps the prefixes of whatever batch ran last; a lone context that
    shares nothing is scored first, so the sharing run starts from no kept prefix it could
    use, whichever test ran before, and its encoded tokens are its own.
    """
    model.score_positions([PositionRequest(model.codec.encode("Hello"))])
    start = model.encoded_tokens
    shared = read_run(run(tmp_path / "shared"))
    middle = model.encoded_tokens
    contexts: list[tuple[int, ...]] = []
    score_positions = model.score_positions

    def spy(requests):
        contexts.extend(dict.fromkeys(tuple(r.context) for r in requests))
        return score_positions(requests)

    model.score_positions = spy
    model.share_prefixes = False
    try:
        plain = read_run(run(tmp_path / "plain"))
    finally:
        model.share_prefixes = True
        del model.score_positions
    return Measured(shared, plain, middle - start, model.encoded_tokens - middle, contexts)


def common_prefix(rows: list[tuple[int, ...]]) -> int:
    """How many leading tokens every row shares."""
    n = 0
    while all(len(r) > n and r[n] == rows[0][n] for r in rows):
        n += 1
    return n


# --- the kinds, each on a small input whose contexts share a long block ------------------------


def options_run(model) -> Callable[[Path], Path]:
    """Two few-shot items under three rungs that keep the question's opening."""
    items = [
        MCItem(
            id=kind,
            question=f"{SHOTS}Q: Which of these is a {kind}?",
            choices=[a, b],
            answer=answer,
        )
        for kind, a, b, answer in [("flower", "rose", "stone", "A"), ("fish", "oak", "salmon", "B")]
    ]
    variants = ["production", "stem", "instruction_deleted"]

    def run(out: Path) -> Path:
        settings = OptionsSettings(items=items, spec=ANSWER, variants=variants, greedy_tokens=4)
        return audit_options(model, settings, out, RunSettings(batch_size=4)).directory

    return run


def ptrue_run(model) -> Callable[[Path], Path]:
    """Two few-shot questions with their answers given: six readouts each, no generation."""
    items = [
        QAItem(
            id="planet",
            question=f"{SHOTS}Q: Which of these is a planet? A. Mars B. spoon\nA:",
            gold="A",
            answer="A",
        ),
        QAItem(
            id="drink",
            question=f"{SHOTS}Q: Which of these is a drink? A. chair B. tea\nA:",
            gold="B",
            answer="A",
        ),
    ]

    def run(out: Path) -> Path:
        settings = PTrueSettings(items=items)
        return audit_ptrue(model, settings, out, RunSettings(batch_size=4)).directory

    return run


def yesno_run(model) -> Callable[[Path], Path]:
    """Four questions after one long instruction; the diagnostic reads them too."""
    items = [
        YesNoItem(id=f"q{i}", question=f"{INSTRUCTION}{q}", label=label)
        for i, (q, label) in enumerate(
            [
                ("Is Paris the capital of France?", "yes"),
                ("Do fish live in trees?", "no"),
                ("Is ice cold?", "yes"),
                ("Can a cow fly over the moon?", "no"),
            ]
        )
    ]

    def run(out: Path) -> Path:
        settings = YesNoSettings(items=items, greedy_tokens=3)
        return audit_yesno(model, settings, out, RunSettings(batch_size=2)).directory

    return run


def recover_run(model) -> Callable[[Path], Path]:
    """Four statements about one set of facts, read with hidden states at two positions."""

    def item(i: str, statement: str, label: str | None) -> LogicItem:
        return LogicItem(id=i, context=RULES, statement=statement, label=label)

    splits = RecoverSplits(
        fit=[item("f1", "Tom is grey.", None), item("f2", "Mia is warm at night.", None)],
        evals={
            "held": [
                item("e1", "Tom is warm at night.", "true"),
                item("e2", "Mia sleeps in the house.", "false"),
            ]
        },
    )
    setup = RecoverSetup(n_perm=100, n_boot=100, probe_rows=10)

    def run(out: Path) -> Path:
        settings = RecoverRun(splits=splits, setup=setup)
        return audit_recover(model, settings, out, RunSettings(batch_size=2)).directory

    return run


def prose_cut(number: int, end: int, target: str) -> Cut:
    """A prose cut of the paper after its first ``end`` characters."""
    context = PAPER[:end].rstrip()
    return Cut(
        id=f"osc:block{number}",
        kind="prose",
        paper="osc",
        key=f"block{number}",
        source="osc.tex",
        paper_sha256=sha256_text(PAPER),
        display_start=end,
        cut_offset=end,
        target_end=end + len(target),
        context=context,
        prefix="",
        target=target,
        target_sha256=sha256_text(target),
    )


def lift_run(model) -> Callable[[Path], Path]:
    """Two prose cuts of one paper: both windows and controls open with its first paragraph."""
    first = PAPER.index("The classical")
    second = PAPER.index("The ladder operators")
    cuts = [
        prose_cut(1, first, "The classical equation of motion follows from Newton's law."),
        prose_cut(2, second, "The ladder operators lower and raise the energy."),
    ]
    forecasts = {cuts[0].id: {"guess": "Newton's law gives the motion."}}

    def run(out: Path) -> Path:
        return score_lift(model, cuts, out, forecasts=forecasts, toy=False, batch_size=4).directory

    return run


def judge_run(model, tmp_path: Path) -> Callable[[Path], Path]:
    """A FINAL3 preflight of one GSM8K source: twelve requests under one judge instruction."""
    built = build_inventory(
        [load_gsm8k_jsonl(FIXTURES / "gsm8k_test_head.jsonl")],
        [parse_configuration("f3=FINAL3@smollm2-135m", PAPER_SEED)],
        seed=PAPER_SEED,
        per_dataset=1,
        preflight_per_dataset=1,
    )
    inventory = tmp_path / "inventory"
    write_inventory(inventory, built)

    def run(out: Path) -> Path:
        result, _ = run_local_judge(model, inventory, out, phase="preflight", batch_size=4)
        return result.directory

    return run


TASK = """task: tp_threeshot
dataset_path: json
dataset_kwargs:
  data_files:
    dev: {dev}
    test: {test}
test_split: test
fewshot_split: dev
output_type: multiple_choice
doc_to_text: "{{{{question}}}}\\nA. {{{{choices[0]}}}}\\nB. {{{{choices[1]}}}}\\nAnswer:"
doc_to_choice: [A, B]
doc_to_target: answer
num_fewshot: 3
fewshot_config:
  sampler: first_n
metric_list:
  - metric: acc
"""
DEV = [
    ("Which of these animals lives in the sea and breathes with gills?", ["shark", "horse"], 0),
    ("Which of these objects would you use to write on paper?", ["spoon", "pencil"], 1),
    ("Which of these is a season of the year that follows summer?", ["autumn", "lunch"], 0),
]
TEST = [
    ("Which of these is a planet in our solar system?", ["Mars", "spoon"], 0),
    ("Which of these is a drink people have in the morning?", ["chair", "coffee"], 1),
    ("Which of these animals can fly over mountains?", ["eagle", "snail"], 0),
]


def lm_eval_run(model, tmp_path: Path) -> Callable[[Path], Path]:
    """A three-shot task of lm-eval's own making over a local JSON-lines dataset."""
    root = tmp_path / "tasks"
    root.mkdir()
    for split, rows in (("dev", DEV), ("test", TEST)):
        lines = [json.dumps({"question": q, "choices": c, "answer": a}) for q, c, a in rows]
        (root / f"{split}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    task = TASK.format(dev=root / "dev.jsonl", test=root / "test.jsonl")
    (root / "tp_threeshot.yaml").write_text(task, encoding="utf-8")
    tasks = TaskOptions(tasks=("tp_threeshot",), include_path=str(root))
    reading = DocReading(stem=" The answer is", greedy_tokens=4)
    settings = LMEvalRun(tasks=tasks, reading=reading)  # lm-eval builds the documents once

    def run(out: Path) -> Path:
        return audit_lm_eval(model, settings, out, RunSettings(batch_size=4)).directory

    return run


KINDS: dict[str, Callable[[Any, Path], Callable[[Path], Path]]] = {
    "options": lambda model, _: options_run(model),
    "ptrue": lambda model, _: ptrue_run(model),
    "yesno": lambda model, _: yesno_run(model),
    "recover": lambda model, _: recover_run(model),
    "lift": lambda model, _: lift_run(model),
    "judge": judge_run,
    "lm-eval": lm_eval_run,
}
"""Each kind that scores locally: from the model and a folder, the run (into a directory)."""

HIDDEN_RTOL = 1e-5
"""Norm-relative tolerance of a stored hidden state (one position, one layer).

Sharing changes only the order of float32 reductions (attention over a cached prefix and a
padded remainder instead of one row), whose rounding (1.2e-7 a step) accumulates over the 30
layers to 1.1e-6 of a state's norm at most here; 1e-5 is ten times that, the margin the float32
budget leaves log-probabilities, and 2,000 times below the 2-4 % by which two items' states at
the same position differ, so a state read at a wrong position or row could not pass."""


def assert_same_hidden(shared: Run[Any], plain: Run[Any]) -> float:
    """Each record's stored hidden states agree with its plain twin's; the largest gap."""
    layout = HiddenLayout.from_config(shared.manifest.config["hidden"])
    a, b = read_hidden(shared.directory, layout), read_hidden(plain.directory, layout)
    rows = {record_key(r): r.hidden_row for r in plain.records}
    largest = 0.0
    for record in shared.records:
        x, y = a[record.hidden_row], b[rows[record_key(record)]]
        gap = np.linalg.norm(x - y, axis=-1) / np.linalg.norm(y, axis=-1)
        assert gap.max() <= HIDDEN_RTOL, f"{record_key(record)}: hidden states off by {gap}"
        largest = max(largest, float(gap.max()))
    return largest


@pytest.mark.model
@pytest.mark.parametrize("kind", list(KINDS))
def test_sharing_reads_the_numbers_plain_forwards_read(kind, model, tmp_path, float32_budget):
    found = run_both_ways(model, KINDS[kind](model, tmp_path), tmp_path)
    shared = {record_key(r): r for r in found.shared.records}
    plain = {record_key(r): r for r in found.plain.records}
    assert len(shared) == len(found.shared.records) == len(plain) >= 4
    assert shared.keys() == plain.keys()
    largest = 0.0
    for key, record in shared.items():
        tolerance = float32_budget(tokens_of(record))
        largest = max(largest, compare(record.model_dump(), plain[key].model_dump(), tolerance))
    longest = max(len(c) for c in found.contexts)
    compare(found.shared.artifacts, found.plain.artifacts, float32_budget(longest), "artifacts")
    hidden = assert_same_hidden(found.shared, found.plain) if kind == "recover" else None
    # sharing off: every context of every batch is encoded whole
    assert found.plain_tokens == sum(len(c) for c in found.contexts)
    # the block every context opens with (one token of each context is always its own)
    block = min(common_prefix(found.contexts), min(len(c) for c in found.contexts) - 1)
    n = len(found.contexts)
    print(
        f"\n{kind}: {n} contexts opening with {block} tokens; encoded {found.shared_tokens} "
        f"shared, {found.plain_tokens} plain (bound {found.plain_tokens - (n - 1) * block}); "
        f"largest difference {largest:.2e}, hidden {hidden}"
    )
    assert block >= 64
    # with sharing, that block is encoded once in the whole run, not once per context
    assert found.shared_tokens <= found.plain_tokens - (n - 1) * block < found.plain_tokens


def chat(model, content: str) -> tuple[int, ...]:
    """One user turn through the model's chat template, encoded."""
    text = model.codec.render_chat([{"role": "user", "content": content}], {})
    return tuple(model.codec.encode(text))


def encoded_by(model, contexts: list[tuple[int, ...]]) -> int:
    """Tokens the model encodes to score these contexts as one batch."""
    start = model.encoded_tokens
    model.score_positions([PositionRequest(c) for c in contexts])
    return model.encoded_tokens - start


@pytest.mark.model
def test_a_runs_first_context_is_kept_even_when_it_shares_the_chat_header(model):
    first, second = (chat(model, f"{SHOTS}Q: Which of these is a {k}?") for k in ("fish", "dog"))
    encoded_by(model, [chat(model, "An unrelated question before the run.")])
    encoded_by(model, [first])  # a run's first context alone: its encoding is kept
    # the second context starts from it whole, not from the 24 tokens of chat header the first
    # shares with the batch before
    assert encoded_by(model, [second]) == len(second) - common_prefix([first, second])


@pytest.mark.model
def test_a_batch_reuses_the_block_it_shares_with_the_last_batchs_prefix(model):
    questions = ("flower? A. rose B. stone", "fish? A. oak B. salmon")
    a, b = (
        [chat(model, f"{SHOTS}Q: Which of these is a {q}\nA:{s}") for s in (" A", " B")]
        for q in questions
    )
    block = common_prefix([a[0], b[0]])
    encoded_by(model, [tuple(model.codec.encode("Hello"))])  # nothing kept they share
    encoded_by(model, a)  # keeps the block and the first question: 123 tokens
    # the second batch shares the first 112 of them: attention is causal, so their keys and
    # values are its own, and only what follows the block is encoded
    assert encoded_by(model, b) <= sum(map(len, b)) - common_prefix(b) - block
