"""LLM-judge robustness (seed 004): presentation and cue experiments run as frozen protocols.

The entry points: build an inventory (``build_study_inventory`` for any registered study), run
it (local, served or chat judge), analyse and report it, search for bridges. The subpackages
``protocol``, ``inventory``, ``analysis``, ``studies``, ``run`` and ``search`` export the rest.
"""

from readout_audit.judge.analysis import (
    JudgeAnalysisSettings,
    JudgeSummary,
    StudyResult,
    analyse_switch,
)
from readout_audit.judge.inventory import (
    INVENTORY_FILE,
    MANIFEST_FILE,
    PAPER_SEED,
    Configuration,
    Inventory,
    SourceBank,
    build_inventory,
    build_switch_inventory,
    load_bank,
    load_drop_json,
    load_gsm8k_jsonl,
    load_halueval_json,
    parse_configuration,
    read_inventory,
    write_inventory,
)
from readout_audit.judge.protocol import JudgeRecord
from readout_audit.judge.run import (
    JUDGE,
    combine_runs,
    run_chat_judge,
    run_local_judge,
    run_served_judge,
)
from readout_audit.judge.search import BeamSettings, propose, run_search, write_proposals
from readout_audit.judge.studies import (
    STUDIES,
    Study,
    StudyInputs,
    analyse_judge,
    build_study_inventory,
    get_study,
    judge_sections,
    register_study,
    summarise_judge,
)

__all__ = [
    "INVENTORY_FILE",
    "JUDGE",
    "MANIFEST_FILE",
    "PAPER_SEED",
    "STUDIES",
    "BeamSettings",
    "Configuration",
    "Inventory",
    "JudgeAnalysisSettings",
    "JudgeRecord",
    "JudgeSummary",
    "SourceBank",
    "Study",
    "StudyInputs",
    "StudyResult",
    "analyse_judge",
    "analyse_switch",
    "build_inventory",
    "build_study_inventory",
    "build_switch_inventory",
    "combine_runs",
    "get_study",
    "judge_sections",
    "load_bank",
    "load_drop_json",
    "load_gsm8k_jsonl",
    "load_halueval_json",
    "parse_configuration",
    "propose",
    "read_inventory",
    "register_study",
    "run_chat_judge",
    "run_local_judge",
    "run_search",
    "run_served_judge",
    "summarise_judge",
    "write_inventory",
    "write_proposals",
]
