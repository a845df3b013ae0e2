"""The cue search.

Its programme, proposals, ranked screens, extensions and frozen confirmation.
"""

from readout_audit.judge.search._confirm import (
    CleanControl,
    ConfirmedBridge,
    SearchConfirmation,
    confirm_search,
)
from readout_audit.judge.search._extend import (
    extend_bridges,
)
from readout_audit.judge.search._plan import (
    CLEAN_CONTROLS,
    PROGRAMMES,
    SEED_BRIDGES,
    Bridge,
    Programme,
    bridge_cell,
    bridge_id,
    plan_stage,
    read_proposals,
    seed_pool,
)
from readout_audit.judge.search._proposals import (
    PROPOSAL_CONTEXTS,
    BeamSettings,
    Proposal,
    context_ids,
    first_word,
    propose,
    retain,
    write_proposals,
)
from readout_audit.judge.search._rank import (
    BridgeScore,
    displayed_positive,
    extension_parents,
    frozen_roles,
    frozen_texts,
    rank_bridges,
    score_bridges,
)
from readout_audit.judge.search._run import (
    CONFIRMATION_FILE,
    PLAN_FILE,
    SELECTION_FILE,
    Extension,
    SearchResult,
    SearchSetup,
    Selection,
    StageHash,
    StageRunner,
    records_sha256,
    run_search,
    search_plan,
)

__all__ = [
    "CLEAN_CONTROLS",
    "CONFIRMATION_FILE",
    "PLAN_FILE",
    "PROGRAMMES",
    "PROPOSAL_CONTEXTS",
    "SEED_BRIDGES",
    "SELECTION_FILE",
    "BeamSettings",
    "Bridge",
    "BridgeScore",
    "CleanControl",
    "ConfirmedBridge",
    "Extension",
    "Programme",
    "Proposal",
    "SearchConfirmation",
    "SearchResult",
    "SearchSetup",
    "Selection",
    "StageHash",
    "StageRunner",
    "bridge_cell",
    "bridge_id",
    "confirm_search",
    "context_ids",
    "displayed_positive",
    "extend_bridges",
    "extension_parents",
    "first_word",
    "frozen_roles",
    "frozen_texts",
    "plan_stage",
    "propose",
    "rank_bridges",
    "read_proposals",
    "records_sha256",
    "retain",
    "run_search",
    "score_bridges",
    "search_plan",
    "seed_pool",
    "write_proposals",
]
