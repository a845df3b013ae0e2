"""Sending an inventory's requests to a judge.

Local or served, into a run directory (the judge run kind); runs combined for analysis.
"""

from readout_audit.judge.run._chat import (
    CHAT_PATH,
    chat_record,
    judge_call,
    run_chat_judge,
)
from readout_audit.judge.run._combine import (
    combine_runs,
)
from readout_audit.judge.run._execution import (
    JudgeExecution,
    JudgeRun,
    inventory_judge,
    judge_phase,
    run_judge,
)
from readout_audit.judge.run._kind import (
    JUDGE,
)
from readout_audit.judge.run._local import (
    VERDICT_STEM,
    local_jobs,
)
from readout_audit.judge.run._run import (
    JudgePlan,
    run_local_judge,
    run_served_judge,
)
from readout_audit.judge.run._verdict import (
    ChatVerdict,
    read_chat_verdict,
    reply_choice,
)

__all__ = [
    "CHAT_PATH",
    "JUDGE",
    "VERDICT_STEM",
    "ChatVerdict",
    "JudgeExecution",
    "JudgePlan",
    "JudgeRun",
    "chat_record",
    "combine_runs",
    "inventory_judge",
    "judge_phase",
    "run_judge",
    "judge_call",
    "local_jobs",
    "read_chat_verdict",
    "reply_choice",
    "run_chat_judge",
    "run_local_judge",
    "run_served_judge",
]
