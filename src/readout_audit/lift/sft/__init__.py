"""The context-only SFT control of the likelihood-lift benchmark (seed 001, Section 6).

Papers split into disjoint training and held-out sets, context-only examples from the training
papers' cuts, held-out cuts checked against them by content, and a resumable LoRA fine-tuning
of the scorer with the clipLL_2 objective, a warm-up and schedule, clipping and accumulation.
"""

from readout_audit.lift.sft._examples import SftExample, sft_examples
from readout_audit.lift.sft._folder import check_sft_out
from readout_audit.lift.sft._manifest import (
    ADAPTER,
    ADAPTER_FILES,
    CHECKPOINT,
    LEGACY_MANIFEST,
    LOSSES,
    PROJECTIONS,
    SFT_KIND,
    SFT_MANIFEST,
    Schedule,
    SftConfig,
    SftPlan,
    StepLoss,
    TrainDtype,
)
from readout_audit.lift.sft._objective import CLIP_FLOOR, RAW_WEIGHT, clipped_objective
from readout_audit.lift.sft._overlap import SPAN, held_out_overlap
from readout_audit.lift.sft._run import ModelOpener, SftRun, fine_tune, step_line
from readout_audit.lift.sft._rung import open_sft_scorer, read_sft
from readout_audit.lift.sft._schedule import learning_rate, warmup_steps
from readout_audit.lift.sft._split import PaperSplit, split_papers
from readout_audit.lift.sft._stage import FineTuning, read_fine_tuning
from readout_audit.lift.sft._train import (
    WEIGHT_DECAY,
    batch_logprobs,
    batch_of,
    encode_example,
    epoch_order,
    example_sha256,
    plan_sft,
    step_gradients,
    target_logprobs,
    train_sft,
)

__all__ = [
    "ADAPTER",
    "ADAPTER_FILES",
    "CHECKPOINT",
    "CLIP_FLOOR",
    "FineTuning",
    "LEGACY_MANIFEST",
    "LOSSES",
    "ModelOpener",
    "PROJECTIONS",
    "PaperSplit",
    "RAW_WEIGHT",
    "SFT_KIND",
    "SFT_MANIFEST",
    "SPAN",
    "Schedule",
    "SftConfig",
    "SftExample",
    "SftPlan",
    "SftRun",
    "StepLoss",
    "TrainDtype",
    "WEIGHT_DECAY",
    "batch_logprobs",
    "batch_of",
    "check_sft_out",
    "clipped_objective",
    "encode_example",
    "epoch_order",
    "example_sha256",
    "fine_tune",
    "held_out_overlap",
    "learning_rate",
    "open_sft_scorer",
    "plan_sft",
    "read_fine_tuning",
    "read_sft",
    "sft_examples",
    "split_papers",
    "step_gradients",
    "step_line",
    "target_logprobs",
    "train_sft",
    "warmup_steps",
]
