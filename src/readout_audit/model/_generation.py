"""Generation settings for sampled answers, as a library's answer step passes them to generate."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class GenerationSettings:
    """One answer step's settings: sampling, its warpers, length bounds, stop strings, seed.

    ``min_new_tokens`` suppresses the end-of-sequence tokens of the model's generation config
    for that many steps, as ``transformers`` does; ``seed`` seeds this one generation.
    """

    do_sample: bool
    temperature: float = 1.0
    top_k: int = 50
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    min_new_tokens: int = 0
    max_new_tokens: int = 32
    stop_strings: tuple[str, ...] = ()
    seed: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The settings as recorded in a manifest."""
        return {**asdict(self), "stop_strings": list(self.stop_strings)}


GENERATION_DEFAULTS: dict[str, Any] = {
    "do_sample": False,
    "temperature": 1.0,
    "top_k": 50,
    "top_p": 1.0,
    "repetition_penalty": 1.0,
}
"""lm-polygraph's ``GenerationParameters`` defaults, used where the generation config is silent."""
