"""How a logic item becomes a forced-choice prompt with a literal answer slot (seed 003, §3).

The prompt ends with ``Answer: <answer>`` (prefilled as the assistant's reply under a chat
template), and each label is scored as a fixed continuation such as ``true</answer>``. A
*configuration* is one prompt wording with one verbalizer; the main one is ``main/words``, and
the paper's robustness check runs 20 (5 wordings × 4 verbalizers here).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import (
    Field,
    field_validator,
)

from readout_audit._exceptions import InputError
from readout_audit._util import INT_MAX, CheckedSettings, Seed, option_hint
from readout_audit.data import LABELS, Item, LogicItem, Message
from readout_audit.model import TextCodec
from readout_audit.recover._offsets import OffsetGrid
from readout_audit.stats import MAX_REPLICATES

MIN_REPLICATES = 100
"""The fewest permutations or bootstrap replicates a recovery run takes: fewer cannot resolve
a p-value or an interval's end to 0.01."""

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

    def __str__(self) -> str:
        return self.name

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


@contextmanager
def _field_problem() -> Iterator[None]:
    """An ``InputError`` of a check as a problem of the field being validated (named by it)."""
    try:
        yield
    except InputError as error:
        raise ValueError(error.message) from None


class RecoverSetup(CheckedSettings):
    """What a recovery run reads and how its summary analyses it.

    Built by hand, a refused value is an ``InputError`` naming its field as its option is
    spelled (``n-boot``); ``readout audit recover`` generates its options from these fields.
    By hand, ``variant_items=None`` scores every item under every configuration, and
    ``max_tokens=None`` leaves only the model's window as the limit.
    """

    option_spelling: ClassVar[bool] = True

    configurations: tuple[Configuration, ...] = Field(
        default=(Configuration("main", "words"),),
        json_schema_extra=option_hint(metavar="PROMPT/VERBALIZER,..."),
    )
    """Comma-separated PROMPT/VERBALIZER configurations, the first the main one, or ``all`` for
    the 20 built-in ones (prompts main, question-first, terse, judge, plain × verbalizers
    words, capitalised, abc, abc-options)."""
    variant_items: int | None = Field(default=300, ge=1, le=INT_MAX, strict=True)
    """Items per split scored under each configuration after the first."""
    layers: tuple[Annotated[int, Field(ge=-INT_MAX, le=INT_MAX, strict=True)], ...] | None = None
    """Comma-separated hidden-state layers to store and probe (0 = embeddings, -1 = last)
    [the middle and the last]."""
    chat: bool | None = None
    """Render through the chat template [when the tokenizer has one]."""
    prior: tuple[float, ...] | None = None
    """Target label prior of the offset fit, e.g. 0.4,0.3,0.3 [uniform]."""
    grid: OffsetGrid = Field(
        default=(-10.0, 10.0, 0.05),
        validate_default=True,
        json_schema_extra=option_hint(metavar="LOW,HIGH,STEP"),
    )
    """Offset grid LOW,HIGH,STEP."""
    probe_rows: int = Field(default=2000, ge=10, le=INT_MAX, strict=True)
    """Most training rows one probe fits on (at least 10: a probe of fewer rows is noise)."""
    probe_seeds: tuple[Seed, ...] = (42, 123, 456)
    """Comma-separated seeds of the probes: each takes its own block of the training rows when
    there are enough for all, else its own bootstrap replicate of them."""
    collapse_threshold: float = Field(default=0.8, gt=0, le=1)
    """Share of one label at which raw string scores count as collapsed."""
    seed: Seed = 0
    """Seed of the permutation null, the bootstraps and the fit-budget subsamples."""
    max_tokens: int | None = Field(default=1024, ge=16, le=INT_MAX, strict=True)
    """Token limit of a prompt with its longest candidate (the paper's 1,024); a longer item loses
    the first words of its context, and its record says how many."""
    n_perm: int = Field(default=10_000, ge=MIN_REPLICATES, le=MAX_REPLICATES, strict=True)
    """Permutations of the null (at least 100; at most 1,000,000: memory grows with replicates
    × items, and a million already fixes a p-value's third decimal)."""
    n_boot: int = Field(default=10_000, ge=MIN_REPLICATES, le=MAX_REPLICATES, strict=True)
    """Bootstrap replicates (at least 100; at most 1,000,000: memory grows with replicates ×
    items, and a million already fixes a p-value's third decimal)."""

    @field_validator("configurations", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        """Configurations given by name (``main/words``, or ``all``) parsed."""
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, tuple | list) and value and all(isinstance(v, str) for v in value):
            with _field_problem():
                return configurations_named(",".join(value))
        return value

    @field_validator("configurations")
    @classmethod
    def _distinct(cls, value: tuple[Configuration, ...]) -> tuple[Configuration, ...]:
        names = [c.name for c in value]
        if not names:
            raise ValueError("name at least one configuration")
        if len(set(names)) != len(names):
            raise ValueError(f"configurations repeat: {names}")
        return value

    @field_validator("prior")
    @classmethod
    def _prior(cls, value: tuple[float, ...] | None) -> tuple[float, ...] | None:
        if value is not None and (
            len(value) != len(LABELS) or min(value) < 0 or abs(sum(value) - 1) > 1e-9
        ):
            raise ValueError(
                f"the prior must be {len(LABELS)} non-negative numbers summing to 1, got {value}"
            )
        return value

    @field_validator("grid", mode="before")
    @classmethod
    def _grid(cls, value: Any) -> Any:
        """A grid given as LOW, HIGH, STEP, refused when its offset vectors are too many."""
        with _field_problem():
            grid = OffsetGrid(*value) if isinstance(value, tuple | list) else value
            if isinstance(grid, OffsetGrid):
                grid.check_size(len(LABELS) - 1)
        return grid

    @field_validator("probe_seeds")
    @classmethod
    def _probe_seeds(cls, seeds: tuple[int, ...]) -> tuple[int, ...]:
        if not seeds:
            raise ValueError("name at least one probe seed")
        return seeds

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
