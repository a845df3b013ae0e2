"""A ``readout conformance`` writer on stand-in endpoints, run as its own process by the tests.

Usage: python conformance_writer.py OUT CALLS [pause|TOLERANCE]

Each endpoint's check is a stand-in that appends the endpoint's URL to CALLS and passes;
``pause`` makes the second endpoint's check hang (the test kills the process there).
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from readout_audit.kind import _conformance
from readout_audit.model import EndpointConformance, ModelFile, ModelInfo

URLS = ("http://127.0.0.1:9001/v1", "http://127.0.0.1:9002/v1")


class Endpoint(SimpleNamespace):
    @contextmanager
    def ledger(self, path: Path) -> Any:
        path.touch()
        yield


def checked(model: Any, local: Any, bound: float, progress: Any, limit: Any) -> EndpointConformance:
    url = model.spec.base_urls[0]
    with open(CALLS, "a") as calls:
        calls.write(url + "\n")
    if url == URLS[1] and PAUSE:
        time.sleep(600)
    check = {"name": "tokenisation", "verdict": "pass", "detail": "same ids", "value": bound}
    return EndpointConformance.model_validate(
        {"endpoint": url, "server": "stand-in", "checks": [check]}
    )


if __name__ == "__main__":
    out, CALLS = Path(sys.argv[1]), Path(sys.argv[2])
    PAUSE = sys.argv[3:] == ["pause"]
    tolerance = float(sys.argv[3]) if sys.argv[3:] and not PAUSE else None
    _conformance.check_endpoint = checked
    served = [Endpoint(spec=SimpleNamespace(base_urls=[u], model="m")) for u in URLS]
    files = (ModelFile("model.gguf", "ab" * 32, 1),)
    info = ModelInfo("gguf:model.gguf", "m", files, "float32", 2048, "tok", None)
    local = SimpleNamespace(info=info)
    _conformance.write_conformance(
        served,
        local,
        out,
        quantisation="Q8_0",
        tolerance=tolerance,  # type: ignore[arg-type]
    )
