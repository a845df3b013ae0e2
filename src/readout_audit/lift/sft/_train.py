"""LoRA fine-tuning of the scorer on context-only examples, resumable (seed 001's SFT control).

The scorer is loaded afresh, a LoRA adapter (``peft``) is put on its ``target_modules``, and
AdamW minimises :func:`clipped_objective` over batches of examples in a seeded order per epoch:
each step sums the gradients of ``grad_accumulation`` micro-batches, clips their global norm
and steps at the schedule's rate (``_schedule``). An example is encoded whole, as scoring
reads it, or refused before anything is written. Every ``checkpoint_every`` steps the
adapter's weights, the optimiser's state and the step are written to ``OUT/checkpoint`` (whole
or not at all) and each step's losses are appended to ``OUT/losses.jsonl``; a rerun with the
same examples and settings resumes from the last checkpoint, and a different one is refused.
``OUT/adapter`` holds the final adapter in peft's format; ``OUT`` is a stage (``_stage``):
its manifest holds the plan (hyper-parameters, split, every example's hash) and the scorer,
``losses.jsonl`` a record per step and ``adapter.json`` the adapter's files' hashes.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import pickle
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from readout_audit._exceptions import InputError
from readout_audit._util import read_input_bytes
from readout_audit.lift._conditions import LiftSetup
from readout_audit.lift._cut import Cut, sha256_text
from readout_audit.lift._score import encode_scored, leading_ids
from readout_audit.lift.sft._examples import SftExample
from readout_audit.lift.sft._folder import (
    ADAPTER_STATE,
    OPTIMIZER_STATE,
    STATE,
    Progress,
    check_folder,
    read_progress,
    save_adapter,
    save_checkpoint,
)
from readout_audit.lift.sft._manifest import (
    SFT_KIND,
    SftConfig,
    SftPlan,
    StepLoss,
    plan_differences,
)
from readout_audit.lift.sft._objective import clipped_objective
from readout_audit.lift.sft._overlap import held_out_overlap
from readout_audit.lift.sft._schedule import learning_rate
from readout_audit.lift.sft._split import PaperSplit
from readout_audit.lift.sft._stage import FineTuning, SftStage, read_fine_tuning
from readout_audit.log import Manifest

WEIGHT_DECAY = 0.0
"""AdamW's weight decay: none, as the authors' configuration."""


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
    size = config.examples_per_step
    epoch, k = divmod(step, math.ceil(n / size))
    return epoch_order(n, epoch, config.seed)[k * size : (k + 1) * size]


def encode_example(
    codec: Any, lead: Sequence[int], example: SftExample, max_tokens: int | None
) -> tuple[list[int], int]:
    """The example's ids and its target's first index, whole as scoring reads it.

    An example over ``max_tokens`` is refused: a prompt cut to fit would train on less of the
    context than the rung later reads.
    """
    ids, start = encode_scored(codec, lead, example.prompt, example.target)
    if max_tokens is not None and len(ids) > max_tokens:
        raise InputError(
            f"needs {len(ids)} tokens (prompt and target), over --max-tokens {max_tokens}: "
            "raise it, or leave it unset to size from the examples",
            item_id=example.id,
            field="max_tokens",
        )
    return ids, start


def target_logprobs(module: Any, ids: Sequence[int], start: int) -> Any:
    """Log p(y_t | prompt, y_<t) for every target token, from one forward (a 1-D tensor)."""
    import torch

    device = next(module.parameters()).device
    row = torch.tensor([list(ids)], dtype=torch.long, device=device)
    logits = module(input_ids=row).logits[0, start - 1 : -1].float()
    return logits.log_softmax(-1).gather(-1, row[0, start:, None]).squeeze(-1)


def batch_logprobs(module: Any, rows: Sequence[tuple[Sequence[int], int]]) -> list[Any]:
    """:func:`target_logprobs` of several examples from one right-padded forward."""
    import torch

    device = next(module.parameters()).device
    width = max(len(ids) for ids, _ in rows)
    ids = torch.zeros((len(rows), width), dtype=torch.long, device=device)
    mask = torch.zeros((len(rows), width), dtype=torch.long, device=device)
    for i, (row, _) in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(list(row), dtype=torch.long)
        mask[i, : len(row)] = 1
    logits = module(input_ids=ids, attention_mask=mask).logits
    found = []
    for i, (row, start) in enumerate(rows):
        scored = logits[i, start - 1 : len(row) - 1].float().log_softmax(-1)
        found.append(scored.gather(-1, ids[i, start : len(row), None]).squeeze(-1))
    return found


def plan_sft(
    examples: Sequence[SftExample],
    split: PaperSplit,
    config: SftConfig,
    setup: LiftSetup,
    *,
    held_out: Sequence[Cut],
) -> SftPlan:
    """What a fine-tuning is, before the scorer loads (its manifest's ``config``).

    ``held_out``: the cuts of the split's held-out papers the rung will read, each checked
    against the examples' text (:func:`held_out_overlap`). The plan's steps are ``config``'s,
    or its epochs over the examples (:meth:`SftConfig.for_examples`).
    """
    papers = set(split.held_out)
    strays = [c.id for c in held_out if c.paper not in papers]
    if strays:
        raise InputError(f"cuts of papers the split trains on: {strays[:3]}", field="held_out")
    return SftPlan(
        training=config.for_examples(len(examples)),
        split=split,
        setup=setup.as_config(),
        examples={e.id: example_sha256(e) for e in examples},
        held_out_targets={c.id: sha256_text(c.target) for c in held_out},
        held_out_overlap=held_out_overlap(held_out, examples),
    )


def _resumed(out: Path, plan: SftPlan) -> Progress | None:
    """The progress to continue (None: a fresh start), refusing another plan's folder."""
    progress = read_progress(out)
    if progress is not None:
        plan_differences(progress.plan, plan, out)
    return progress


def _checkpoint_files(peft_model: Any, optimizer: Any) -> dict[str, bytes]:
    """The adapter's weights and the optimiser's state, serialised by torch."""
    import torch
    from peft import get_peft_model_state_dict

    files = {}
    for name, state in (
        (ADAPTER_STATE, get_peft_model_state_dict(peft_model)),
        (OPTIMIZER_STATE, optimizer.state_dict()),
    ):
        buffer = io.BytesIO()
        torch.save(state, buffer)
        files[name] = buffer.getvalue()
    return files


def _restore(folder: Path, peft_model: Any, optimizer: Any, step: int) -> None:
    """Load a checkpoint's adapter weights and optimiser state, refusing any that do not fit.

    The optimiser counts its own steps: a ``state.json`` naming another step than the one its
    state was saved at (edited, or files of two checkpoints mixed) is refused.
    """
    import torch
    from peft import get_peft_model_state_dict, set_peft_model_state_dict

    expected = get_peft_model_state_dict(peft_model)

    def weights(state: Any) -> None:
        if not isinstance(state, dict) or set(state) != set(expected):
            raise ValueError("other adapter weights")
        set_peft_model_state_dict(peft_model, state)

    for name, apply in ((ADAPTER_STATE, weights), (OPTIMIZER_STATE, optimizer.load_state_dict)):
        path = folder / name
        data = read_input_bytes(path, what="checkpoint file")
        try:
            apply(torch.load(io.BytesIO(data), weights_only=True))
        except (pickle.UnpicklingError, EOFError, RuntimeError, ValueError, KeyError) as error:
            raise InputError(
                f"is not a checkpoint of this fine-tuning ({type(error).__name__})",
                source=str(path),
            ) from None
    taken = {int(state["step"]) for state in optimizer.state_dict()["state"].values()}
    if taken != {step}:
        raise InputError(
            f"names step {step}, but the optimiser state beside it has taken "
            f"{', '.join(map(str, sorted(taken))) or 'no'} steps",
            source=str(folder / STATE),
            field="step",
        )


def without_hub_kernels(module: Any) -> None:
    """Turn off a model's hub kernels before training.

    transformers swaps in kernels fetched from the hub when a model that uses them enters
    training mode, a traceback when the hub is offline; the scorer is trained as it scores.
    """
    if getattr(module, "use_kernels", False):
        module.use_kernels = False


def _lora(model: Any, config: SftConfig) -> tuple[Any, Any]:
    """The scorer's module with a fresh seeded LoRA adapter, and its AdamW optimiser."""
    import torch
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(config.seed)
    lora = LoraConfig(
        r=config.rank,
        lora_alpha=config.alpha,
        target_modules=list(config.target_modules),
        lora_dropout=config.dropout,
        task_type="CAUSAL_LM",
    )
    without_hub_kernels(model.module)
    try:
        peft_model = get_peft_model(model.module, lora)
    except ValueError as error:  # a module name the scorer does not have
        raise InputError(
            f"{', '.join(config.target_modules)} are not all modules of this scorer ({error})",
            field="target_modules",
        ) from None
    peft_model.train()
    trainable = [p for p in peft_model.parameters() if p.requires_grad]
    return peft_model, torch.optim.AdamW(
        trainable, lr=config.learning_rate, weight_decay=WEIGHT_DECAY
    )


def step_gradients(
    peft_model: Any, batch: Sequence[tuple[list[int], int]], config: SftConfig, step: int
) -> tuple[tuple[float, float, float], float]:
    """One step's gradients, summed over its micro-batches and clipped to ``max_grad_norm``.

    Returns the batch's mean loss, clipLL_2 and raw log-likelihood, and the gradients' global
    L2 norm before clipping. The step's LoRA dropout masks are seeded by ``seed`` and ``step``.
    """
    import torch

    key = json.dumps([config.seed, "sft-step", step]).encode()
    torch.manual_seed(int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1)
    for p in peft_model.parameters():
        p.grad = None
    totals = [0.0, 0.0, 0.0]
    for first in range(0, len(batch), config.batch_size):
        rows = batch[first : first + config.batch_size]
        losses = []
        for logprobs in batch_logprobs(peft_model, rows):
            losses.append(
                clipped_objective(logprobs, floor=config.floor, raw_weight=config.raw_weight)
            )
            seen = logprobs.detach()
            totals[1] += float(seen.clamp(min=config.floor).mean())
            totals[2] += float(seen.mean())
        micro: Any = torch.stack(losses).sum()
        (micro / len(batch)).backward()
        totals[0] += float(micro.detach())
    trainable = [p for p in peft_model.parameters() if p.requires_grad]
    limit = math.inf if config.max_grad_norm is None else config.max_grad_norm
    norm = float(torch.nn.utils.clip_grad_norm_(trainable, limit))
    if not all(math.isfinite(t) for t in (*totals, norm)):
        raise InputError(
            f"step {step}'s loss is not finite: the training diverged; lower it",
            field="learning_rate",
        )
    loss, clip_ll, raw_ll = (t / len(batch) for t in totals)
    return (loss, clip_ll, raw_ll), norm


def _step(
    peft_model: Any,
    optimizer: Any,
    batch: Sequence[tuple[list[int], int]],
    config: SftConfig,
    step: int,
) -> tuple[tuple[float, float, float], float, float]:
    """One optimiser step (1-based ``step``): its losses, its rate and its gradients' norm."""
    losses, norm = step_gradients(peft_model, batch, config, step)
    rate = learning_rate(step - 1, config)
    for group in optimizer.param_groups:
        group["lr"] = rate
    optimizer.step()
    return losses, rate, norm


def _check_examples(examples: Sequence[SftExample], split: PaperSplit) -> None:
    """Refuse no examples, and examples of held-out papers."""
    if not examples:
        raise InputError("no training examples: the split's training papers have no cuts")
    held = set(split.held_out)
    leaked = [e.id for e in examples if e.paper in held]
    if leaked:
        raise InputError(f"examples of held-out papers: {leaked[:3]}", field="examples")


def train_sft(
    model: Any,
    examples: Sequence[SftExample],
    split: PaperSplit,
    out: str | Path | SftStage,
    *,
    held_out: Sequence[Cut],
    config: SftConfig | None = None,
    setup: LiftSetup | None = None,
    on_step: Callable[[StepLoss, int], None] | None = None,
) -> FineTuning:
    """Fine-tune a freshly loaded scorer on the examples, resuming ``out``'s own checkpoint.

    ``model`` (a ``TransformersModel`` loaded as ``config.dtype``) is changed in place:
    afterwards it scores with the adapter. ``held_out``: the held-out papers' cuts, checked for
    overlap with the examples (:func:`plan_sft`). ``on_step(loss, total)`` is called after
    every step (a progress line). ``out`` is a stage locked while it trains (or the folder's
    stage already open, as :func:`fine_tune` opens it before the scorer loads): a second writer
    is refused, and nothing is written before every example is encoded.
    """
    config = config or SftConfig()
    setup = setup or LiftSetup()
    opened = out if isinstance(out, SftStage) else None
    out = out.out if isinstance(out, SftStage) else Path(out)
    _check_examples(examples, split)
    plan = plan_sft(examples, split, config, setup, held_out=held_out)
    config = plan.training
    check_folder(out)  # a folder of anyone else's files is refused before it is locked
    if model.info.dtype != config.dtype:
        raise InputError(
            f"the scorer was loaded as {model.info.dtype}, the settings say {config.dtype}",
            field="dtype",
        )
    with nullcontext(opened) if opened is not None else SftStage(out) as stage:
        lead = leading_ids(model.codec, setup)
        encoded = [encode_example(model.codec, lead, e, config.max_tokens) for e in examples]
        progress = _resumed(out, plan)
        manifest = Manifest.create(
            SFT_KIND, model.info, plan.model_dump(mode="json"), {"seed": config.seed}
        )
        peft_model, optimizer = _lora(model, config)
        start = 0
        if progress is not None and progress.checkpoint is not None:
            start = progress.step
            _restore(progress.checkpoint, peft_model, optimizer, start)
        stage.start(manifest, [] if progress is None else progress.losses)
        for step in range(start + 1, config.total_steps + 1):
            record = _train_step(peft_model, optimizer, examples, encoded, config, step)
            stage.append(record)
            if on_step is not None:
                on_step(record, config.total_steps)
            if step % config.checkpoint_every == 0 or step == config.total_steps:
                save_checkpoint(out, step, _checkpoint_files(peft_model, optimizer))
        peft_model.eval()
        hashes = save_adapter(out, lambda folder: peft_model.save_pretrained(str(folder)))
        stage.finish(hashes, config.total_steps)
    return read_fine_tuning(out)


def _train_step(
    peft_model: Any,
    optimizer: Any,
    examples: Sequence[SftExample],
    encoded: Sequence[tuple[list[int], int]],
    config: SftConfig,
    step: int,
) -> StepLoss:
    """Take step ``step`` (1-based) on its batch; its losses, rate and gradients' norm."""
    chosen = batch_of(step - 1, len(examples), config)
    (loss, clip_ll, raw_ll), rate, norm = _step(
        peft_model, optimizer, [encoded[i] for i in chosen], config, step
    )
    return StepLoss(
        step=step,
        loss=loss,
        clip_ll=clip_ll,
        raw_ll=raw_ll,
        examples=[examples[i].id for i in chosen],
        learning_rate=rate,
        grad_norm=norm,
    )
