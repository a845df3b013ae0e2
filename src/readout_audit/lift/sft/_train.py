"""LoRA fine-tuning of the scorer on context-only examples, resumable (seed 001's SFT control).

The scorer is loaded afresh, a LoRA adapter (``peft``; no dropout, so a step is deterministic)
is put on its attention projections, and AdamW minimises :func:`clipped_objective` over
mini-batches of examples in a seeded order per epoch. Every ``checkpoint_every`` steps the
adapter's weights, the optimiser's state and the step are written to ``OUT/checkpoint`` (whole
or not at all) and each step's losses are appended to ``OUT/losses.jsonl``; a rerun with the
same examples and settings resumes from the last checkpoint, and a different one is refused.
``OUT/adapter`` holds the final adapter in peft's format and ``OUT/sft.json`` the manifest:
hyper-parameters, the split, every example's hash, the scorer's identity and the losses.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from readout_audit._exceptions import InputError
from readout_audit._util._jsonl import dumps_line, write_json_atomic
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._score import encode_scored, leading_ids
from readout_audit.lift.sft._examples import SftExample
from readout_audit.lift.sft._objective import CLIP_FLOOR, RAW_WEIGHT, clipped_objective
from readout_audit.lift.sft._split import PaperSplit

SFT_MANIFEST = "sft.json"
LOSSES = "losses.jsonl"
CHECKPOINT = "checkpoint"
ADAPTER = "adapter"


class SftConfig(BaseModel):
    """The fine-tuning's hyper-parameters (the paper's loss; sizes for a CPU by default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: int = Field(default=50, ge=1)
    batch_size: int = Field(default=4, ge=1)
    learning_rate: float = Field(default=2e-4, gt=0)
    rank: int = Field(default=8, ge=1)
    alpha: int = Field(default=16, ge=1)
    target_modules: tuple[str, ...] = ("q_proj", "v_proj")
    floor: float = CLIP_FLOOR
    raw_weight: float = Field(default=RAW_WEIGHT, ge=0)
    max_tokens: int = Field(default=512, ge=8)
    """Prompt and target tokens per example; a longer prompt keeps its end."""
    checkpoint_every: int = Field(default=10, ge=1)
    seed: int = Field(default=0, ge=0)


class StepLoss(BaseModel):
    """One optimiser step: its mean loss, clipLL_2 and raw mean log-likelihood over the batch."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: int
    loss: float
    clip_ll: float
    raw_ll: float
    examples: list[str]


def example_sha256(example: SftExample) -> str:
    """SHA-256 of an example's compact JSON (id, paper, prompt, target)."""
    text = json.dumps(example.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def epoch_order(n: int, epoch: int, seed: int) -> list[int]:
    """The examples' order in one epoch: by SHA-256 of ``[seed, "sft-order", epoch, index]``."""

    def place(index: int) -> str:
        return hashlib.sha256(json.dumps([seed, "sft-order", epoch, index]).encode()).hexdigest()

    return sorted(range(n), key=place)


def batch_of(step: int, n: int, config: SftConfig) -> list[int]:
    """The example indices of one step (0-based): consecutive slices of each epoch's order."""
    per_epoch = math.ceil(n / config.batch_size)
    epoch, k = divmod(step, per_epoch)
    order = epoch_order(n, epoch, config.seed)
    return order[k * config.batch_size : (k + 1) * config.batch_size]


def encode_example(
    codec: Any, lead: Sequence[int], example: SftExample, max_tokens: int
) -> tuple[list[int], int]:
    """The example's ids and its target's first index, the prompt cut from the left to fit."""
    ids, start = encode_scored(codec, lead, example.prompt, example.target)
    if len(ids) - start >= max_tokens:
        raise InputError(
            f"its target alone takes {len(ids) - start} tokens, over max_tokens {max_tokens}",
            item_id=example.id,
            field="target",
        )
    drop = max(0, len(ids) - max_tokens)
    return ids[drop:], start - drop


def target_logprobs(module: Any, ids: Sequence[int], start: int) -> Any:
    """Log p(y_t | prompt, y_<t) for every target token, from one forward (a 1-D tensor)."""
    import torch

    device = next(module.parameters()).device
    row = torch.tensor([list(ids)], dtype=torch.long, device=device)
    logits = module(input_ids=row).logits[0, start - 1 : -1].float()
    return logits.log_softmax(-1).gather(-1, row[0, start:, None]).squeeze(-1)


class SftManifest(BaseModel):
    """What a fine-tuning was: settings, split, data, scorer, and its losses when done."""

    model_config = ConfigDict(extra="forbid")

    config: SftConfig
    split: PaperSplit
    setup: dict[str, Any]
    scorer: dict[str, Any]
    examples: dict[str, str]
    """Example id → :func:`example_sha256`."""
    steps_done: int = 0
    losses: list[StepLoss] = Field(default_factory=list)


def _identity(manifest: SftManifest) -> dict[str, Any]:
    return manifest.model_dump(mode="json", exclude={"steps_done", "losses"})


def _prepare(out: Path, fresh: SftManifest) -> tuple[SftManifest, int]:
    """The manifest to continue (an earlier one of the same training) and the step to start at."""
    path = out / SFT_MANIFEST
    if not path.exists():
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, fresh.model_dump(mode="json"))
        (out / LOSSES).write_text("")
        return fresh, 0
    earlier = SftManifest.model_validate_json(path.read_text())
    if _identity(earlier) != _identity(fresh):
        raise InputError(
            "holds a fine-tuning with other examples, split or settings; choose another --out",
            source=str(out),
        )
    state = out / CHECKPOINT / "state.json"
    step = json.loads(state.read_text())["step"] if state.exists() else 0
    return earlier, step


def _checkpoint(out: Path, peft_model: Any, optimizer: Any, step: int) -> None:
    """Adapter weights, optimiser state and step, replacing the last checkpoint atomically."""
    import torch
    from peft import get_peft_model_state_dict

    staging = out / f"{CHECKPOINT}.tmp"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    torch.save(get_peft_model_state_dict(peft_model), staging / "adapter.pt")
    torch.save(optimizer.state_dict(), staging / "optimizer.pt")
    (staging / "state.json").write_text(json.dumps({"step": step}))
    final = out / CHECKPOINT
    old = out / f"{CHECKPOINT}.old"
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        os.replace(final, old)
    os.replace(staging, final)
    shutil.rmtree(old, ignore_errors=True)


def _losses_until(out: Path, step: int) -> list[StepLoss]:
    """The recorded steps before ``step`` (later lines were after the checkpoint: redone)."""
    path = out / LOSSES
    lines = path.read_text().splitlines() if path.exists() else []
    kept = [StepLoss.model_validate_json(line) for line in lines if line.strip()][:step]
    path.write_text("".join(dumps_line(s.model_dump(mode="json")) + "\n" for s in kept))
    return kept


def train_sft(
    model: Any,
    examples: Sequence[SftExample],
    split: PaperSplit,
    out: str | Path,
    *,
    config: SftConfig | None = None,
    setup: LiftSetup | None = None,
    on_step: Callable[[StepLoss, int], None] | None = None,
) -> SftManifest:
    """Fine-tune a freshly loaded scorer on the examples, resuming ``out``'s own checkpoint.

    ``model`` (a ``TransformersModel``) is changed in place: afterwards it scores with the
    adapter. ``on_step(loss, total)`` is called after every step (a progress line).
    """
    import torch
    from peft import LoraConfig, get_peft_model, set_peft_model_state_dict

    config = config or SftConfig()
    setup = setup or LiftSetup()
    out = Path(out)
    if not examples:
        raise InputError("no training examples: the split's training papers have no cuts")
    held = set(split.held_out)
    leaked = [e.id for e in examples if e.paper in held]
    if leaked:
        raise InputError(f"examples of held-out papers: {leaked[:3]}", field="examples")
    fresh = SftManifest(
        config=config,
        split=split,
        setup=setup.as_config(),
        scorer=json.loads(json.dumps(dataclasses.asdict(model.info), default=str)),
        examples={e.id: example_sha256(e) for e in examples},
    )
    manifest, start = _prepare(out, fresh)
    codec = model.codec
    lead = leading_ids(codec, setup)
    encoded = [encode_example(codec, lead, e, config.max_tokens) for e in examples]
    torch.manual_seed(config.seed)
    lora = LoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,
        target_modules=list(config.target_modules),
        lora_dropout=0.0,
        task_type="CAUSAL_LM",
    )
    peft_model = get_peft_model(model.module, lora)
    peft_model.train()
    trainable = [p for p in peft_model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=config.learning_rate, weight_decay=0.0)
    if start:
        state = out / CHECKPOINT
        set_peft_model_state_dict(peft_model, torch.load(state / "adapter.pt"))
        optimizer.load_state_dict(torch.load(state / "optimizer.pt"))
    losses = _losses_until(out, start)
    with (out / LOSSES).open("a", encoding="utf-8") as log:
        for step in range(start, config.steps):
            chosen = batch_of(step, len(examples), config)
            optimizer.zero_grad()
            totals = [0.0, 0.0, 0.0]
            for index in chosen:
                logprobs = target_logprobs(peft_model, *encoded[index])
                loss = clipped_objective(logprobs, floor=config.floor, raw_weight=config.raw_weight)
                (loss / len(chosen)).backward()
                seen = logprobs.detach()
                totals[0] += float(loss.detach())
                totals[1] += float(seen.clamp(min=config.floor).mean())
                totals[2] += float(seen.mean())
            optimizer.step()
            record = StepLoss(
                step=step + 1,
                loss=totals[0] / len(chosen),
                clip_ll=totals[1] / len(chosen),
                raw_ll=totals[2] / len(chosen),
                examples=[examples[i].id for i in chosen],
            )
            log.write(dumps_line(record.model_dump(mode="json")) + "\n")
            log.flush()
            losses.append(record)
            if on_step is not None:
                on_step(record, config.steps)
            if (step + 1) % config.checkpoint_every == 0 or step + 1 == config.steps:
                _checkpoint(out, peft_model, optimizer, step + 1)
    peft_model.eval()
    peft_model.save_pretrained(str(out / ADAPTER))
    done = manifest.model_copy(update={"steps_done": config.steps, "losses": losses})
    write_json_atomic(out / SFT_MANIFEST, done.model_dump(mode="json"))
    return done
