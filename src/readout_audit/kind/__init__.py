"""Audit kinds as plug-ins: the kind, its registry, the run loop, the path into it, releases."""

from readout_audit.kind._choice import DEVICE_HELP, ModelChoice, quiet_loading
from readout_audit.kind._claim import check_out, claim
from readout_audit.kind._conformance import (
    CONFORMANCE_KIND,
    ENDPOINTS_FILE,
    ConformanceRun,
    check_served,
    write_conformance,
)
from readout_audit.kind._headline import ACCURACY, VariantMass, mass_headline
from readout_audit.kind._kind import AuditKind, item_and_variant
from readout_audit.kind._registry import (
    ENTRY_POINTS,
    PLUGINS_ENV,
    UnknownKindError,
    audit_kinds,
    broken_plugins,
    get_kind,
    load_plugin,
    load_plugins,
    register_kind,
)
from readout_audit.kind._release import AMENDMENTS, amended_tags, release_unknown
from readout_audit.kind._run_settings import MAX_TOP_K, GreedyTokens, RunSettings
from readout_audit.kind._runner import (
    Job,
    Planner,
    RunOut,
    ScoreResult,
    opened_run,
    run_kind,
    run_path,
    timed_summary,
)
from readout_audit.kind._stage import (
    KindSettings,
    run_stage,
)

__all__ = [
    "ACCURACY",
    "GreedyTokens",
    "AMENDMENTS",
    "AuditKind",
    "CONFORMANCE_KIND",
    "ConformanceRun",
    "DEVICE_HELP",
    "ENDPOINTS_FILE",
    "ENTRY_POINTS",
    "Job",
    "KindSettings",
    "MAX_TOP_K",
    "ModelChoice",
    "PLUGINS_ENV",
    "Planner",
    "RunOut",
    "RunSettings",
    "ScoreResult",
    "UnknownKindError",
    "VariantMass",
    "amended_tags",
    "audit_kinds",
    "broken_plugins",
    "check_out",
    "check_served",
    "claim",
    "get_kind",
    "item_and_variant",
    "load_plugin",
    "load_plugins",
    "mass_headline",
    "opened_run",
    "quiet_loading",
    "register_kind",
    "release_unknown",
    "run_kind",
    "run_path",
    "run_stage",
    "timed_summary",
    "write_conformance",
]
