"""Render an item into the exact scored context and describe its ending."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from readout_audit.data import Item
from readout_audit.model import TextCodec

Ending = Literal["newline", "space", "none"]
ContextSource = Literal["messages", "prompt"]
TAIL_CHARS = 60


def ending_class(text: str) -> Ending:
    """Class of a rendered context's last character: a newline, other whitespace, or none.

    "none" is the omitted separator (e.g. a template ending in ``[/INST]`` or ``Assistant:``).
    """
    if text.endswith(("\n", "\r")):
        return "newline"
    if text[-1:].isspace():
        return "space"
    return "none"


class RenderedContext(BaseModel):
    """What a record keeps of a rendering, so the scored context can be checked later."""

    rendered_sha256: str
    """SHA-256 of the rendered text (UTF-8, nothing added)."""
    rendered_tail: str
    """The rendered text's last 60 characters."""
    rendered_text: str | None = None
    """The whole rendered text; None in records written before it was kept."""
    n_tokens: int
    """Number of context tokens, leading special tokens included."""
    scored_index: int
    """Zero-based index of the last context token; the readout scores the token after it."""
    last_token_id: int
    """Id of the token at ``scored_index``."""
    ending: Ending
    """Class of the rendered ending: newline, space or none (no separator)."""
    rendered_from: ContextSource | None = None
    """The item's chat ``messages`` (through the template) or its raw ``prompt`` (verbatim);
    None in records written before this was recorded."""


@dataclass(frozen=True)
class ChatTurns:
    """Chat messages and the template arguments they are rendered with."""

    messages: tuple[Mapping[str, Any], ...]
    template_kwargs: Mapping[str, Any]


@dataclass(frozen=True)
class Rendering:
    """A scored context: its text, its token ids, and how options are encoded after it."""

    text: str
    token_ids: tuple[int, ...]
    """What the model reads: for an image item, with each image placeholder expanded."""
    prefix_ids: tuple[int, ...] = field(default=())
    """Leading special tokens (raw prompts only) that precede ``text`` when encoding options."""
    boundary_ids: tuple[int, ...] | None = None
    """The text's own tokens when they differ from ``token_ids`` (images not expanded): options
    are encoded after these, and their tokens follow ``token_ids``."""
    model_inputs: Mapping[str, Any] | None = field(default=None, compare=False)
    """Inputs besides the token ids (an image's pixel values), passed with the context."""
    source: ContextSource = "messages"
    """What the text was rendered from: chat ``messages`` or a raw ``prompt``."""
    chat: ChatTurns | None = field(default=None, compare=False)
    """The messages and template arguments whose rendering (up to the assistant turn's
    opening) is the whole text, when it is (no stem, no images): a chat API can score it."""

    @property
    def text_ids(self) -> tuple[int, ...]:
        """The tokens of the rendered text that options are encoded after."""
        return self.boundary_ids if self.boundary_ids is not None else self.token_ids

    def encode_continued(self, codec: TextCodec, continuation: str) -> list[int]:
        """Token ids of this context's text followed by ``continuation``, encoded together."""
        return [*self.prefix_ids, *codec.encode(self.text + continuation)]

    def context_fields(self) -> RenderedContext:
        """The rendering as recorded."""
        return RenderedContext(
            rendered_sha256=hashlib.sha256(self.text.encode("utf-8")).hexdigest(),
            rendered_tail=self.text[-TAIL_CHARS:],
            rendered_text=self.text,
            n_tokens=len(self.token_ids),
            scored_index=len(self.token_ids) - 1,
            last_token_id=self.token_ids[-1],
            ending=ending_class(self.text),
            rendered_from=self.source,
        )


def context_field(item: Item) -> ContextSource:
    """The item field that holds its context: ``messages`` or ``prompt``."""
    return "messages" if item.messages is not None else "prompt"


def render(
    item: Item, codec: TextCodec, template_kwargs: Mapping[str, Any] | None = None
) -> Rendering:
    """Render an item: a raw prompt verbatim, or messages through the chat template, plus stem.

    Images (a vision-language model's) lead the first user turn of messages, or fill a raw
    prompt's own image placeholders. Raises ``InputError`` naming the item when the context is
    empty or exceeds the model's window; text longer than the window can use in characters is
    refused before it is tokenised.
    """
    expand = getattr(codec, "image_inputs", None)
    if item.images and expand is None:
        raise item.error(f"the model ({codec.name}) takes no images", "images")
    if item.messages is not None:
        _check_chars(item, codec, sum(len(m.content) for m in item.messages))
        text = _chat_text(item, codec, _chat_messages(item), template_kwargs)
        prefix: tuple[int, ...] = ()
    else:
        text = item.prompt or ""
        prefix = codec.prefix_ids
    text += item.stem or ""
    _check_chars(item, codec, len(text))
    if expand is not None and item.images:
        return _render_with_images(item, codec, text, prefix, expand)
    ids = (*prefix, *codec.encode(text))
    _check_length(item, codec, ids)
    chat = (
        ChatTurns(tuple(_chat_messages(item)), dict(template_kwargs or {}))
        if item.messages is not None and not item.stem
        else None
    )
    return Rendering(
        text=text, token_ids=ids, prefix_ids=prefix, source=context_field(item), chat=chat
    )


def _chat_messages(item: Item) -> list[dict[str, Any]]:
    """The messages as the template takes them; an image item's images lead its first user turn."""
    assert item.messages is not None
    if not item.images:
        return [m.model_dump() for m in item.messages]
    messages: list[dict[str, Any]] = []
    for message in item.messages:
        parts: list[dict[str, str]] = [{"type": "text", "text": message.content}]
        if message.role == "user" and not any(m["role"] == "user" for m in messages):
            parts = [{"type": "image"} for _ in item.images] + parts
        messages.append({"role": message.role, "content": parts})
    return messages


def _chat_text(
    item: Item,
    codec: TextCodec,
    messages: list[dict[str, Any]],
    template_kwargs: Mapping[str, Any] | None,
) -> str:
    try:
        return codec.render_chat(messages, template_kwargs or {})
    except Exception as error:
        raise item.error(f"chat template failed: {error}", "messages") from None


def _check_chars(item: Item, codec: TextCodec, chars: int) -> None:
    """Refuse a context of ``chars`` characters with its longest option the window cannot use."""
    longest = max(len(option) for option in item.options)
    why = codec.too_long(chars + longest)
    if why is not None:
        field = "options" if longest > chars else context_field(item)
        raise item.error(f"the context with its longest option {why}", field)


def _check_length(item: Item, codec: TextCodec, ids: tuple[int, ...]) -> None:
    if not ids:
        raise item.error("renders to an empty context", context_field(item))
    window = codec.context_window
    if window is not None and len(ids) >= window:
        raise item.error(
            f"context is {len(ids)} tokens, beyond the model's window of {window}",
            context_field(item),
        )


def _render_with_images(
    item: Item, codec: TextCodec, text: str, prefix: tuple[int, ...], expand: Any
) -> Rendering:
    """Render an image item's text, each image placeholder expanded by the processor.

    The model reads the expansion; options are encoded after the text's own tokens.
    """
    placeholder = getattr(codec, "image_token", None)
    if item.prompt is not None and placeholder and text.count(placeholder) != len(item.images):
        raise item.error(
            f"the raw prompt holds {text.count(placeholder)} image placeholder(s) "
            f"{placeholder!r} for {len(item.images)} image(s)",
            "prompt",
        )
    expanded, inputs = expand(text, item.images, item_id=item.id)
    ids = (*prefix, *expanded)
    _check_length(item, codec, ids)
    return Rendering(
        text=text,
        token_ids=ids,
        prefix_ids=prefix,
        boundary_ids=(*prefix, *codec.encode(text)),
        model_inputs=inputs,
        source=context_field(item),
    )
