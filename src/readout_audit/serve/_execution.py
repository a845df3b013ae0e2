"""What a run records of how it sent its requests: pools, pacing, timeouts, retries, the cap."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from readout_audit.serve._call import CostCap, Endpoint, RetryPolicy, redact_url


def execution_record(
    endpoints: Sequence[Endpoint], retry: RetryPolicy, cap: CostCap | None
) -> dict[str, Any]:
    """The settings a manifest keeps per invocation (URLs without credentials, no headers)."""
    return {
        "endpoints": [
            {
                "url": redact_url(e.base_url),
                "concurrency": e.concurrency,
                "starts_per_s": e.starts_per_s,
                "timeout_s": e.timeout_s,
            }
            for e in endpoints
        ],
        "retry": asdict(retry),
        "cap": None if cap is None else cap.model_dump(),
    }
