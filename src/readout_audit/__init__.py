"""readout-audit: measure, repair and check scores read off a language model's probabilities.

The face is what a user calls: a settings object per kind and :func:`run_stage`, the models,
the runs, the items and the statistics. Each name is imported from its package when first
used, so importing the package (or running ``readout --help``) loads no kind it does not need.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from readout_audit._exceptions import (
    CapabilityError,
    InputError,
    ModelNotAvailableError,
    ReadoutError,
    RunDirectoryError,
)
from readout_audit._version import __version__

if TYPE_CHECKING:
    from readout_audit.data import (
        Item,
        LogicItem,
        MCItem,
        Message,
        QAItem,
        YesNoItem,
        demo_items,
        demo_yesno_items,
        load_items,
        load_mc_items,
        load_qa_items,
        load_yesno_items,
        parse_items,
    )
    from readout_audit.judge import (
        BuildSettings,
        JudgeRun,
        SearchSettings,
    )
    from readout_audit.kind import (
        ConformanceRun,
        KindSettings,
        ModelChoice,
        RunSettings,
        ScoreResult,
        check_served,
        run_stage,
    )
    from readout_audit.lift import (
        CutRun,
        LiftScoreRun,
        PredictRun,
    )
    from readout_audit.lmeval import (
        LMEvalRun,
    )
    from readout_audit.log import (
        Run,
        flatten_record,
        read_run,
        records_frame,
    )
    from readout_audit.model import (
        EMBEDDED_SPEC,
        ScoringModel,
        ServedSettings,
        load_model,
        open_model,
        open_served,
        wrap_model,
    )
    from readout_audit.options import (
        OptionsSettings,
    )
    from readout_audit.prompt import (
        render,
    )
    from readout_audit.ptrue import (
        PTrueSettings,
    )
    from readout_audit.readout import (
        option_mass,
        read_position,
    )
    from readout_audit.recover import (
        HiddenLayout,
        RecoverRun,
        read_hidden,
    )
    from readout_audit.report import (
        compare_runs,
        run_summary,
    )
    from readout_audit.scoring import (
        ScoreSettings,
        score,
        score_item,
        summarise,
    )
    from readout_audit.serve import (
        CostCap,
    )
    from readout_audit.stats import (
        accuracy,
        auc,
        bootstrap_ci,
        brier,
        cluster_bootstrap,
        fisher_exact,
        holm,
        mcnemar_exact,
        paired_bootstrap,
        permutation_null,
        prr,
        sign_flip_test,
    )
    from readout_audit.yesno import (
        YesNoSettings,
    )

LAZY: dict[str, tuple[str, ...]] = {
    "readout_audit.data": (
        "Item",
        "LogicItem",
        "MCItem",
        "Message",
        "QAItem",
        "YesNoItem",
        "demo_items",
        "demo_yesno_items",
        "load_items",
        "load_mc_items",
        "load_qa_items",
        "load_yesno_items",
        "parse_items",
    ),
    "readout_audit.judge": (
        "BuildSettings",
        "JudgeRun",
        "SearchSettings",
    ),
    "readout_audit.kind": (
        "ConformanceRun",
        "KindSettings",
        "ModelChoice",
        "RunSettings",
        "ScoreResult",
        "check_served",
        "run_stage",
    ),
    "readout_audit.lift": (
        "CutRun",
        "LiftScoreRun",
        "PredictRun",
    ),
    "readout_audit.lmeval": ("LMEvalRun",),
    "readout_audit.log": (
        "Run",
        "flatten_record",
        "read_run",
        "records_frame",
    ),
    "readout_audit.model": (
        "EMBEDDED_SPEC",
        "ScoringModel",
        "ServedSettings",
        "load_model",
        "open_model",
        "open_served",
        "wrap_model",
    ),
    "readout_audit.options": ("OptionsSettings",),
    "readout_audit.prompt": ("render",),
    "readout_audit.ptrue": ("PTrueSettings",),
    "readout_audit.readout": (
        "option_mass",
        "read_position",
    ),
    "readout_audit.recover": (
        "HiddenLayout",
        "RecoverRun",
        "read_hidden",
    ),
    "readout_audit.report": (
        "compare_runs",
        "run_summary",
    ),
    "readout_audit.scoring": (
        "ScoreSettings",
        "score",
        "score_item",
        "summarise",
    ),
    "readout_audit.serve": ("CostCap",),
    "readout_audit.stats": (
        "accuracy",
        "auc",
        "bootstrap_ci",
        "brier",
        "cluster_bootstrap",
        "fisher_exact",
        "holm",
        "mcnemar_exact",
        "paired_bootstrap",
        "permutation_null",
        "prr",
        "sign_flip_test",
    ),
    "readout_audit.yesno": ("YesNoSettings",),
}
"""Where each name of the face lives (the imports above say the same to a type checker)."""
_HOME = {name: module for module, names in LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    """A name of the face, imported from its package on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The face's names."""
    return sorted(__all__)


__all__ = [
    "BuildSettings",
    "CapabilityError",
    "ConformanceRun",
    "CostCap",
    "CutRun",
    "EMBEDDED_SPEC",
    "HiddenLayout",
    "InputError",
    "Item",
    "JudgeRun",
    "KindSettings",
    "LMEvalRun",
    "LiftScoreRun",
    "LogicItem",
    "MCItem",
    "Message",
    "ModelChoice",
    "ModelNotAvailableError",
    "OptionsSettings",
    "PTrueSettings",
    "PredictRun",
    "QAItem",
    "ReadoutError",
    "RecoverRun",
    "Run",
    "RunDirectoryError",
    "RunSettings",
    "ScoreResult",
    "ScoreSettings",
    "ScoringModel",
    "SearchSettings",
    "ServedSettings",
    "YesNoItem",
    "YesNoSettings",
    "__version__",
    "accuracy",
    "auc",
    "bootstrap_ci",
    "brier",
    "check_served",
    "cluster_bootstrap",
    "compare_runs",
    "demo_items",
    "demo_yesno_items",
    "fisher_exact",
    "flatten_record",
    "holm",
    "load_items",
    "load_mc_items",
    "load_model",
    "load_qa_items",
    "load_yesno_items",
    "mcnemar_exact",
    "open_model",
    "open_served",
    "option_mass",
    "paired_bootstrap",
    "parse_items",
    "permutation_null",
    "prr",
    "read_hidden",
    "read_position",
    "read_run",
    "records_frame",
    "render",
    "run_stage",
    "run_summary",
    "score",
    "score_item",
    "sign_flip_test",
    "summarise",
    "wrap_model",
]
