"""Requests to served models: paced, concurrent, retrying, and recorded call by call in a ledger."""

from readout_audit.serve._call import (
    MAX_CONCURRENCY,
    CallResult,
    CostCap,
    Endpoint,
    HttpCall,
    Outcome,
    RetryPolicy,
    redact_url,
)
from readout_audit.serve._cost import Spend
from readout_audit.serve._execution import execution_record
from readout_audit.serve._http import CONTINUE_WAIT_S, MAX_REPLY_BYTES, get, retry_after_s
from readout_audit.serve._ledger import LEDGER_FILE, STATES, Ledger, LedgerEntry, ledger_of
from readout_audit.serve._listing import LedgerListing, ledger_listing
from readout_audit.serve._llama_server import llama_server
from readout_audit.serve._runner import RequestRunner, RunnerStats

__all__ = [
    "CONTINUE_WAIT_S",
    "CallResult",
    "CostCap",
    "Endpoint",
    "HttpCall",
    "LEDGER_FILE",
    "Ledger",
    "LedgerEntry",
    "LedgerListing",
    "MAX_CONCURRENCY",
    "MAX_REPLY_BYTES",
    "Outcome",
    "RequestRunner",
    "RetryPolicy",
    "RunnerStats",
    "STATES",
    "Spend",
    "execution_record",
    "get",
    "ledger_listing",
    "ledger_of",
    "llama_server",
    "redact_url",
    "retry_after_s",
]
