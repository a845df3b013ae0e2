"""Audit lm-evaluation-harness evaluations as they are: its tasks' prompts, or a logged run."""

from readout_audit.lmeval._audit import LM_EVAL, audit_lm_eval, doc_item, doc_variants, prepare_doc
from readout_audit.lmeval._doc import (
    LMEvalDoc,
    Logged,
    lm_eval_metrics,
    split_like_lm_eval,
    stem_in_context,
)
from readout_audit.lmeval._model_args import lm_eval_model_args
from readout_audit.lmeval._record import LMEvalRecord
from readout_audit.lmeval._reproduce import Reproduction
from readout_audit.lmeval._samples import read_samples, samples_files
from readout_audit.lmeval._settings import DocReading, LMEvalRun, doubled_stems
from readout_audit.lmeval._summary import (
    LMEvalSummary,
    RepairRow,
    TaskAudit,
    results_view,
    write_results_view,
)
from readout_audit.lmeval._tasks import (
    DEFAULT_FEWSHOT_SEED,
    MissingExtraError,
    TaskOptions,
    TaskSettings,
    require_lm_eval,
    task_documents,
)

__all__ = [
    "DEFAULT_FEWSHOT_SEED",
    "DocReading",
    "LMEvalDoc",
    "LMEvalRecord",
    "LMEvalRun",
    "LMEvalSummary",
    "LM_EVAL",
    "Logged",
    "MissingExtraError",
    "RepairRow",
    "Reproduction",
    "TaskAudit",
    "TaskOptions",
    "TaskSettings",
    "audit_lm_eval",
    "doc_item",
    "doc_variants",
    "doubled_stems",
    "lm_eval_metrics",
    "lm_eval_model_args",
    "prepare_doc",
    "read_samples",
    "require_lm_eval",
    "results_view",
    "samples_files",
    "split_like_lm_eval",
    "stem_in_context",
    "task_documents",
    "write_results_view",
]
