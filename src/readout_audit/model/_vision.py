"""Vision-language models: the processor's chat template and image inputs beside the tokenizer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit.model._codec import TextCodec


class VisionCodec(TextCodec):
    """A processor seen as a codec: text as its tokenizer encodes it, images as pixel inputs.

    The same readouts then run on a vision-language model: the rendered context is the
    processor's expansion of the text and images, and options are encoded after the text.
    """

    def __init__(self, processor: Any, *, name: str, context_window: int | None) -> None:
        super().__init__(processor.tokenizer, name=name, context_window=context_window)
        self._processor = processor
        self._templater = processor  # its chat template places the image parts
        self.image_token: str | None = getattr(processor, "image_token", None)
        """The placeholder a raw prompt writes where an image goes (LLaVA's ``<image>``)."""

    def image_inputs(
        self, text: str, images: Sequence[str], *, item_id: str | None = None
    ) -> tuple[list[int], dict[str, Any]]:
        """The model's token ids for ``text`` with ``images``, and the other tensors it needs."""
        from PIL import Image, UnidentifiedImageError

        pictures = []
        for path in images:
            try:
                with Image.open(path) as image:
                    pictures.append(image.convert("RGB"))
            except (OSError, UnidentifiedImageError) as error:
                raise InputError(
                    f"cannot read image {path}: {error}", item_id=item_id, field="image"
                ) from None
        out = self._processor(
            text=text, images=pictures, return_tensors="pt", add_special_tokens=False
        )
        ids = [int(t) for t in out["input_ids"][0]]
        inputs = {k: v for k, v in out.items() if k not in ("input_ids", "attention_mask")}
        return ids, inputs
