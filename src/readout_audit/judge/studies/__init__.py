"""The judge's studies as registered objects: build, check, analyse and report each by name.

Importing the package registers seed 004's five studies; ``register_study`` adds another.
"""

from readout_audit.judge.studies._analysis import analyse_judge, summarise_judge
from readout_audit.judge.studies._build import build_study_inventory
from readout_audit.judge.studies._paper import (
    CONFIRMATION,
    DECOMPOSITION,
    PILOT,
    REPEAT,
    SWITCH,
)
from readout_audit.judge.studies._report import judge_sections
from readout_audit.judge.studies._settings import BuildSettings, build_study
from readout_audit.judge.studies._study import (
    STUDIES,
    Study,
    StudyInputs,
    get_study,
    register_study,
)

__all__ = [
    "CONFIRMATION",
    "DECOMPOSITION",
    "PILOT",
    "REPEAT",
    "STUDIES",
    "BuildSettings",
    "SWITCH",
    "Study",
    "StudyInputs",
    "analyse_judge",
    "build_study",
    "build_study_inventory",
    "get_study",
    "judge_sections",
    "register_study",
    "summarise_judge",
]
