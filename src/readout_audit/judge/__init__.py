"""LLM-judge robustness (seed 004): presentation and cue experiments run as frozen protocols.

The entry points, one per command and the typed settings each takes: build a study's inventory
(``build_study``), run it on its judge (``run_judge``), combine runs (``combine_runs``),
propose and search for bridges (``write_proposals``, ``search_cues``), analyse and report
(``analyse_judge``, ``summarise_judge``); and the studies' registry. The subpackages
``protocol``, ``inventory``, ``analysis``, ``studies``, ``run`` and ``search`` export the rest.
"""

from readout_audit.judge._cue_search import SearchSettings, search_cues
from readout_audit.judge.analysis import (
    JudgeSummary,
    analyse_switch,
)
from readout_audit.judge.inventory import (
    MANIFEST_FILE,
    PAPER_SEED,
    Configuration,
    Inventory,
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
    JudgeExecution,
    JudgeRun,
    combine_runs,
    run_chat_judge,
    run_judge,
    run_local_judge,
    run_served_judge,
)
from readout_audit.judge.search import (
    BeamSettings,
    propose,
    run_search,
    write_proposals,
)
from readout_audit.judge.studies import (
    BuildSettings,
    Study,
    StudyInputs,
    analyse_judge,
    build_study,
    build_study_inventory,
    register_study,
    summarise_judge,
)

__all__ = [
    "JUDGE",
    "MANIFEST_FILE",
    "PAPER_SEED",
    "BeamSettings",
    "BuildSettings",
    "Configuration",
    "Inventory",
    "JudgeExecution",
    "JudgeRecord",
    "JudgeRun",
    "JudgeSummary",
    "SearchSettings",
    "Study",
    "StudyInputs",
    "analyse_judge",
    "analyse_switch",
    "build_inventory",
    "build_study",
    "build_study_inventory",
    "build_switch_inventory",
    "combine_runs",
    "load_bank",
    "load_drop_json",
    "load_gsm8k_jsonl",
    "load_halueval_json",
    "parse_configuration",
    "propose",
    "read_inventory",
    "register_study",
    "run_chat_judge",
    "run_judge",
    "run_local_judge",
    "run_search",
    "run_served_judge",
    "search_cues",
    "summarise_judge",
    "write_inventory",
    "write_proposals",
]
