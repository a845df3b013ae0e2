"""The item: one scored question, as a raw prompt or chat messages, with its declared options."""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from readout_audit._exceptions import InputError


def _as_number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


class Message(BaseModel):
    """One chat turn, rendered with the model's own chat template."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["system", "user", "assistant"]
    """Who speaks; other roles are rejected rather than passed to a template that may drop them."""
    content: str
    """The turn's text, used verbatim."""


ItemT = TypeVar("ItemT", bound="IdentifiedItem")


class IdentifiedItem(BaseModel):
    """Base of every input item: a unique id (integers are kept as text) and a cluster."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    """Unique identifier within the file; integers are accepted and kept as text."""
    cluster: str | None = None
    """Resampling cluster (passage, paper, source); defaults to the item itself."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Free-form fields carried into the records."""
    _origin: tuple[str, int] | None = PrivateAttr(default=None)
    """(file, line) the item was read from, for errors found after loading."""

    @property
    def origin(self) -> tuple[str, int] | None:
        """(file, line) the item was read from, if it came from a file."""
        return self._origin

    def error(self, message: str, field: str | None = None) -> InputError:
        """An ``InputError`` about this item, naming its file and line when it came from one."""
        source, line = self._origin or (None, None)
        return InputError(message, source=source, line=line, item_id=self.id, field=field)

    def derived(self, item: ItemT) -> ItemT:
        """``item`` (built from this one) remembering this item's file and line."""
        item._origin = self._origin
        return item

    @field_validator("id", "cluster", mode="before")
    @classmethod
    def _integer_ids_as_text(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @property
    def cluster_key(self) -> str:
        """The resampling cluster: ``cluster`` when given, else the item id."""
        return self.cluster if self.cluster is not None else self.id

    def input_problem(self) -> tuple[str, str] | None:
        """(field, message) of what makes this user input unusable though well typed, or None."""
        return None


class Item(IdentifiedItem):
    """One item of a scoring run; exactly one of ``prompt`` and ``messages`` is given."""

    prompt: str | None = None
    """A raw prompt used verbatim (no chat template)."""
    messages: tuple[Message, ...] | None = None
    """Chat turns rendered with the model's chat template and its generation prompt."""
    options: tuple[str, ...]
    """The declared answer strings, each scored as a continuation of the rendered context."""
    stem: str | None = None
    """Answer stem appended after the opening of the assistant turn (assistant prefill)."""
    target: str | float | bool | None = None
    """The intended answer (usually one of ``options``), for downstream checks."""
    images: tuple[str, ...] = ()
    """Image files for a vision-language model: shown at the start of the first user turn, or
    at a raw prompt's own image placeholders (e.g. LLaVA's ``USER: <image>\n… ASSISTANT:``)."""

    @field_validator("options")
    @classmethod
    def _options_nonempty_and_unique(cls, options: tuple[str, ...]) -> tuple[str, ...]:
        if not options:
            raise ValueError("must list at least one option")
        for index, option in enumerate(options):
            if option == "":
                raise ValueError(f"option {index} is the empty string")
        seen: dict[str, int] = {}
        for index, option in enumerate(options):
            if option in seen:
                raise ValueError(f"option {index} repeats option {seen[option]} ({option!r})")
            seen[option] = index
        return options

    @field_validator("messages")
    @classmethod
    def _messages_nonempty(cls, messages: tuple[Message, ...] | None) -> tuple[Message, ...] | None:
        if messages is not None and not messages:
            raise ValueError("must hold at least one message")
        return messages

    def input_problem(self) -> tuple[str, str] | None:
        """A text or number target that is none of the options would be scored silently wrong."""
        target = self.target
        if target is None or isinstance(target, bool):
            return None
        if isinstance(target, str):
            found = any(o.strip() == target.strip() for o in self.options)
        else:
            found = any(_as_number(o) == float(target) for o in self.options)
        if found:
            return None
        return "target", f"{target!r} is not one of the options {list(self.options)!r}"

    @model_validator(mode="after")
    def _prompt_xor_messages(self) -> Item:
        if (self.prompt is None) == (self.messages is None):
            raise ValueError("give exactly one of 'prompt' and 'messages'")
        return self
