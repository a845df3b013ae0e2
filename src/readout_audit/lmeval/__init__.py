"""Audit lm-evaluation-harness evaluations as they are: its tasks' prompts, or a logged run."""

from readout_audit.lmeval._audit import LM_EVAL, audit_lm_eval, doc_item
from readout_audit.lmeval._doc import LMEvalDoc, Logged, lm_eval_metrics, split_like_lm_eval
from readout_audit.lmeval._model_args import lm_eval_model_args
from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.lmeval._reproduce import Reproduction
from readout_audit.lmeval._samples import read_samples
from readout_audit.lmeval._summary import (
    LMEvalSummary,
    RepairRow,
    TaskAudit,
    results_view,
    write_results_view,
)
from readout_audit.lmeval._tasks import (
    MissingExtraError,
    TaskSettings,
    require_lm_eval,
    task_documents,
)

__all__ = [
    "LM_EVAL",
    "LMEvalDoc",
    "LMEvalRecord",
    "LMEvalSummary",
    "Logged",
    "MissingExtraError",
    "RepairRow",
    "Reproduction",
    "TaskAudit",
    "TaskSettings",
    "audit_lm_eval",
    "doc_item",
    "lm_eval_metrics",
    "lm_eval_model_args",
    "read_samples",
    "require_lm_eval",
    "results_view",
    "split_like_lm_eval",
    "task_documents",
    "write_results_view",
]
