"""How a logic item becomes a forced-choice prompt with a literal answer slot (seed 003, §3).

The prompt ends with ``Answer: <answer>`` (prefilled as the assistant's reply under a chat
template), and each label is scored as a fixed continuation such as ``true</answer>``. A
*configuration* is one prompt wording with one verbalizer; the main one is ``main/words``, and
the paper's robustness check runs 20 (5 wordings × 4 verbalizers here).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.data import LABELS, Item, LogicItem, Message
from readout_audit.model import TextCodec
from readout_audit.recover._offsets import OffsetGrid
from readout_audit.stats import MAX_REPLICATES

ANSWER_SLOT = "Answer: <answer>"
"""The literal slot every prompt ends with; the answer-slot readouts sit on its last token."""
CLOSE = "</answer>"
"""What follows the label in every candidate continuation."""
MAIN = "main/words"


@dataclass(frozen=True)
class Verbalizer:
    """The words that stand for the labels, and how the prompt names the choice."""

    words: tuple[str, str, str]
    """Label words in the label order (true, false, unknown)."""
    choices: str
    """The choice as the question puts it, e.g. ``true, false, or unknown``."""
    listed: bool = False
    """Also list the options, one per line, before the question (``A) true`` ...)."""

    def candidates(self) -> tuple[str, ...]:
        """The scored continuations: each word followed by the closing tag."""
        return tuple(f"{word}{CLOSE}" for word in self.words)


VERBALIZERS: dict[str, Verbalizer] = {
    "words": Verbalizer(("true", "false", "unknown"), "true, false, or unknown"),
    "capitalised": Verbalizer(("True", "False", "Unknown"), "True, False, or Unknown"),
    "abc": Verbalizer(("A", "B", "C"), "A (true), B (false), or C (unknown)"),
    "abc-options": Verbalizer(("A", "B", "C"), "A, B, or C", listed=True),
}
"""Built-in verbalizers; the ``abc`` ones have one token per label (the equal-token control)."""

PROMPTS: dict[str, str] = {
    "main": "{context}\n\n{options}Based on the above information, is the following statement "
    "{choices}?\nStatement: {statement}\n\nGive your answer inside <answer></answer> tags.",
    "question-first": "Is the following statement {choices}, given the facts below?\n"
    "Statement: {statement}\n\nFacts:\n{context}\n\n{options}Give your answer inside "
    "<answer></answer> tags.",
    "terse": "Facts: {context}\nClaim: {statement}\n{options}Verdict ({choices}), inside "
    "<answer></answer> tags.",
    "judge": "You check claims against a set of facts and rules. Use only what is stated.\n\n"
    "{context}\n\nClaim: {statement}\n{options}Is the claim {choices}? Reply inside "
    "<answer></answer> tags.",
    "plain": "{context}\n\n{options}Question: is it {choices} that {statement_clause}?\n"
    "Answer inside <answer></answer> tags.",
}
"""Built-in prompt wordings: ``{context}``, ``{statement}``, ``{choices}`` and ``{options}``
(the listed options, or nothing) are filled per item."""


def _clause(statement: str) -> str:
    """A statement as a clause: its final full stop dropped, its first letter kept."""
    return statement.strip().rstrip(".")


@dataclass(frozen=True)
class Configuration:
    """One prompt wording with one verbalizer, named ``prompt/verbalizer``."""

    prompt: str
    verbalizer: str

    @property
    def name(self) -> str:
        """``prompt/verbalizer``, the records' ``variant``."""
        return f"{self.prompt}/{self.verbalizer}"

    @classmethod
    def parse(cls, name: str) -> Configuration:
        """A configuration from its name, checked against the built-in wordings and verbalizers."""
        prompt, sep, verbalizer = name.partition("/")
        if not sep or prompt not in PROMPTS or verbalizer not in VERBALIZERS:
            raise InputError(
                f"{name!r} is not PROMPT/VERBALIZER with PROMPT one of {sorted(PROMPTS)} and "
                f"VERBALIZER one of {sorted(VERBALIZERS)}",
                field="configurations",
            )
        return cls(prompt, verbalizer)

    def item(self, source: LogicItem, *, chat: bool) -> Item:
        """The scored item: the filled prompt (a user turn, or raw text) ending in the slot."""
        verbalizer = VERBALIZERS[self.verbalizer]
        listed = "".join(
            f"{word}) {label}\n" for word, label in zip(verbalizer.words, LABELS, strict=True)
        )
        text = PROMPTS[self.prompt].format(
            context=source.context.strip(),
            statement=source.statement.strip(),
            statement_clause=_clause(source.statement),
            choices=verbalizer.choices,
            options=f"Options:\n{listed}\n" if verbalizer.listed else "",
        )
        context: dict[str, Any] = (
            {"messages": (Message(role="user", content=text),)}
            if chat
            else {"prompt": f"{text}\n\n"}
        )
        return source.derived(
            Item(
                id=source.id,
                **context,
                stem=ANSWER_SLOT,
                options=verbalizer.candidates(),
                cluster=source.cluster_key,
                metadata=source.metadata,
            )
        )


ALL_CONFIGURATIONS = tuple(
    Configuration(prompt, verbalizer) for prompt in PROMPTS for verbalizer in VERBALIZERS
)
"""Every built-in configuration (5 wordings × 4 verbalizers = the paper's 20 variants)."""


@dataclass(frozen=True)
class RecoverSetup:
    """What a recovery run reads and how its summary analyses it."""

    configurations: tuple[Configuration, ...] = (Configuration("main", "words"),)
    """The first is the main configuration; the others are the surface controls."""
    variant_items: int | None = 300
    """Items per split scored under each configuration after the first (None: all)."""
    layers: tuple[int, ...] | None = None
    """Hidden-state layers stored and probed (embeddings = 0); default the middle and last."""
    chat: bool | None = None
    """Render with the chat template (default: when the tokenizer has one)."""
    probe_seeds: tuple[int, ...] = (42, 123, 456)
    probe_rows: int = 2000
    seed: int = 0
    """Seed of the permutation null, the bootstraps and the fit-budget subsamples."""
    n_perm: int = 10_000
    n_boot: int = 10_000
    grid: OffsetGrid = field(default_factory=OffsetGrid)
    prior: tuple[float, ...] | None = None
    """Target label prior of the offset fit (uniform by default)."""
    collapse_threshold: float = 0.8
    """A configuration's string scores are collapsed when one label takes this share or more."""
    max_tokens: int | None = 1024
    """Token limit of a prompt with its longest candidate (the paper's 1,024); a longer item
    loses the first words of its context (None: only the model's window limits)."""

    def __post_init__(self) -> None:
        if not self.configurations:
            raise InputError("name at least one configuration", field="configurations")
        names = [c.name for c in self.configurations]
        if len(set(names)) != len(names):
            raise InputError(f"configurations repeat: {names}", field="configurations")
        if self.prior is not None and (
            len(self.prior) != len(LABELS) or min(self.prior) < 0 or abs(sum(self.prior) - 1) > 1e-9
        ):
            raise InputError(
                f"the prior must be {len(LABELS)} non-negative numbers summing to 1, "
                f"got {self.prior}",
                field="prior",
            )
        self.grid.check_size(len(LABELS) - 1)
        if not 0 < self.collapse_threshold <= 1:
            raise InputError("must be in (0, 1]", field="collapse-threshold")
        if self.max_tokens is not None and self.max_tokens < 16:
            raise InputError(
                f"must be at least 16 tokens, got {self.max_tokens}", field="max-tokens"
            )
        for name, count in (("n-perm", self.n_perm), ("n-boot", self.n_boot)):
            if not 1 <= count <= MAX_REPLICATES:
                raise InputError(f"must be in [1, {MAX_REPLICATES:,}], got {count}", field=name)
        if not self.probe_seeds:
            raise InputError("name at least one probe seed", field="probe-seeds")
        if any(not 0 <= seed < 1 << 63 for seed in (*self.probe_seeds, self.seed)):
            raise InputError(
                f"seeds must be in [0, 2^63), got {[*self.probe_seeds, self.seed]}",
                field="probe-seeds" if self.seed >= 0 else "seed",
            )

    def uses_chat(self, codec: TextCodec) -> bool:
        """Whether items render through the chat template (by default when there is one)."""
        return self.chat if self.chat is not None else codec.chat_template_sha256 is not None

    def resolved_layers(self, count: int) -> tuple[int, ...]:
        """The stored layers as indices 0..count-1, the last always among them."""
        wanted = self.layers if self.layers is not None else (count // 2, count - 1)
        resolved = []
        for layer in (*wanted, count - 1):
            if not -count <= layer < count:
                raise InputError(
                    f"layer {layer} is outside the model's {count} hidden states", field="layers"
                )
            resolved.append(layer % count)
        return tuple(sorted(set(resolved)))

    def as_config(self) -> dict[str, Any]:
        """The setup as the manifest records it."""
        return {
            "configurations": [c.name for c in self.configurations],
            "variant_items": self.variant_items,
            "chat": self.chat,
            "probe_seeds": list(self.probe_seeds),
            "probe_rows": self.probe_rows,
            "seed": self.seed,
            "n_perm": self.n_perm,
            "n_boot": self.n_boot,
            "grid": {"low": self.grid.low, "high": self.grid.high, "step": self.grid.step},
            "prior": list(self.prior) if self.prior is not None else None,
            "collapse_threshold": self.collapse_threshold,
            "max_tokens": self.max_tokens,
            "answer_slot": ANSWER_SLOT,
        }


def configurations_named(names: str) -> tuple[Configuration, ...]:
    """Configurations from comma-separated names, or ``all``: the 20 built-in ones, main first."""
    if names.strip() == "all":
        rest = [c for c in ALL_CONFIGURATIONS if c.name != MAIN]
        return (Configuration.parse(MAIN), *rest)
    return tuple(Configuration.parse(name.strip()) for name in names.split(","))
