"""Text to token ids and back, and chat-template rendering, from the model's own tokenizer."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from readout_audit._exceptions import InputError

CHARS_PER_TOKEN = 64
"""Characters one token stands for, generously: text longer than the window times this cannot
fit, and is refused before the tokenizer sees it (a 300 MB text aborts the tokenizer)."""
WINDOW_UNKNOWN = 1 << 20
"""The window assumed for that bound when the model declares none (a million tokens)."""


class TextCodec:
    """The model's tokenizer as the readouts need it.

    Rendered chat text already holds the template's special tokens, so text is encoded without
    adding any; a raw prompt gets the tokenizer's own leading special tokens (``prefix_ids``).
    """

    def __init__(self, tokenizer: Any, *, name: str, context_window: int | None) -> None:
        self._tok = tokenizer
        self._templater: Any = tokenizer
        """What applies the chat template: the tokenizer, or a multimodal processor."""
        self.name = name
        self.context_window = context_window
        self.width: int | None = None
        """The model's hidden size, when its configuration is read before the weights: what a
        check such as a LoRA rank's needs before the slow load; None when not known."""
        self.prefix_ids: tuple[int, ...] = tuple(
            tokenizer("", add_special_tokens=True)["input_ids"]
        )
        stop = {tokenizer.eos_token_id} if tokenizer.eos_token_id is not None else set()
        for special in ("<|im_end|>", "<|eot_id|>", "<|end|>", "<end_of_turn>"):
            token_id = tokenizer.convert_tokens_to_ids(special)
            if isinstance(token_id, int) and token_id != tokenizer.unk_token_id:
                stop.add(token_id)
        self.stop_ids: frozenset[int] = frozenset(stop)

    @property
    def chat_template(self) -> str | None:
        """The chat template text, or None when the tokenizer has none."""
        for owner in (self._templater, self._tok):
            template = getattr(owner, "chat_template", None)
            if isinstance(template, str):
                return template
        return None

    @property
    def chat_template_sha256(self) -> str | None:
        """SHA-256 of the chat template text, recorded in every manifest."""
        template = self.chat_template
        return hashlib.sha256(template.encode("utf-8")).hexdigest() if template else None

    @property
    def vocab_size(self) -> int:
        """Number of token ids the tokenizer knows."""
        return len(self._tok)

    @property
    def max_chars(self) -> int:
        """The longest text worth tokenising: the window times :data:`CHARS_PER_TOKEN`."""
        return CHARS_PER_TOKEN * (self.context_window or WINDOW_UNKNOWN)

    def too_long(self, chars: int) -> str | None:
        """Why a text of ``chars`` characters is not tokenised, or None when it may be."""
        if chars <= self.max_chars:
            return None
        window = f"{self.context_window:,} tokens" if self.context_window else "unknown"
        return (
            f"holds {chars:,} characters, more than the model's window ({window}) can use "
            f"({self.max_chars:,} at most); not tokenised"
        )

    def _tokenised(self, text: str, *, specials: bool) -> list[int]:
        if (why := self.too_long(len(text))) is not None:
            raise InputError(f"a text {why}")
        return list(self._tok(text, add_special_tokens=specials)["input_ids"])

    def encode(self, text: str) -> list[int]:
        """Token ids of ``text`` with no special tokens added."""
        return self._tokenised(text, specials=False)

    @property
    def eos_token_id(self) -> int | None:
        """The tokenizer's end-of-sequence id, where a library cuts generated text."""
        eos = self._tok.eos_token_id
        return eos if isinstance(eos, int) else None

    def encode_with_specials(self, text: str) -> list[int]:
        """Token ids of ``text`` encoded alone with special tokens added, less BOS and EOS.

        This is how lm-polygraph encodes the token it reads (``"True"``) and its raw prompts.
        """
        ids = self._tokenised(text, specials=True)
        drop = {self._tok.bos_token_id, self._tok.eos_token_id} - {None}
        return [i for i in ids if i not in drop]

    @property
    def tokenizer(self) -> Any:
        """The underlying tokenizer (for generation stop strings)."""
        return self._tok

    def decode(self, ids: Sequence[int], *, skip_special_tokens: bool = False) -> str:
        """Text of a token sequence (special tokens kept unless asked otherwise)."""
        return str(self._tok.decode(list(ids), skip_special_tokens=skip_special_tokens))

    def token_surface(self, token_id: int) -> str:
        """The surface string of one token as it would appear in decoded text."""
        return self.decode([token_id])

    def render_chat(
        self,
        messages: Sequence[Mapping[str, Any]],
        template_kwargs: Mapping[str, Any],
        *,
        generation_prompt: bool = True,
    ) -> str:
        """Render messages with the chat template, ending at the opening of the assistant turn.

        ``generation_prompt=False`` continues the final message instead (a prefilled turn).
        """
        if self.chat_template is None:
            raise ValueError(f"tokenizer {self.name} has no chat template; give a raw 'prompt'")
        extra = {} if generation_prompt else {"continue_final_message": True}
        text = self._templater.apply_chat_template(
            [dict(message) for message in messages],
            tokenize=False,
            add_generation_prompt=generation_prompt,
            **extra,
            **dict(template_kwargs),
        )
        return str(text)
