"""The record of a recovery run: one item of one split under one configuration."""

from __future__ import annotations

from typing import Literal

from readout_audit.data import LogicLabel
from readout_audit.log import ScoreRecord

Role = Literal["train", "fit", "eval"]
"""What a split is for: labelled probe and bag-of-words training, the unlabelled offset fit, or
held-out evaluation."""


class RecoverRecord(ScoreRecord):
    """Every readout of one forced-choice item from one forward pass (seed 003, §3).

    ``options`` are the candidate continuations (``true</answer>`` ...) in the label order
    true, false, unknown; ``option_logprobs`` are the full candidate-string scores s_y(x) and
    the first element of each ``option_token_logprobs`` the first-label-token score.
    """

    split: str
    role: Role
    label: LogicLabel | None
    """The gold label; None for the offset-fit split, whose labels are never read."""
    depth: int | None = None
    text: str
    """The item's context and statement, as the bag-of-words baseline reads them."""
    prompt_end_index: int
    """Context position of the prompt's last token before the answer slot."""
    hidden_row: int | None
    """Row of ``hidden.f32`` holding this record's hidden states (None: not stored)."""
    label_logits: list[float | None] | None
    """z_y = h·w_y + b_y at the answer slot for each candidate's first token, from the stored
    last hidden state and the output layer's rows (None where not exposed or not encoded)."""
    layer_logits: list[list[list[float | None]]] | None = None
    """The same at both stored positions (prompt end, answer slot) and every stored layer, each
    earlier layer through the model's final norm first (a logit lens): [position][layer][label].
    Its answer-slot, last-layer row is ``label_logits``."""
    truncated_words: int = 0
    """Words cut from the start of the context to fit the token limit (0: the item whole)."""
    truncated_tokens: int | None = 0
    """Prompt tokens those words took (None: the whole item exceeded the model's window)."""


def split_key(record: RecoverRecord) -> tuple[str, ...]:
    """A recovery record's identity: (split, item id, configuration)."""
    return (record.split, record.item_id, record.variant)
