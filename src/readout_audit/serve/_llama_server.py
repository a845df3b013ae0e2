"""A llama.cpp server (llama-cpp-python's) on a GGUF file, for tests, benchmarks and dry runs.

It listens on 127.0.0.1 only, stops itself after ``lifetime_s`` whatever happens to its parent
(coreutils ``timeout``), and is stopped by its own process id when the block ends.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from readout_audit._exceptions import ModelNotAvailableError


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def llama_server(
    gguf: str | Path,
    log: str | Path,
    *,
    alias: str = "smollm2",
    threads: int = 2,
    n_ctx: int = 2048,
    lifetime_s: int = 1800,
    start_timeout_s: float = 120.0,
    launcher: Sequence[str] = ("-m", "llama_cpp.server"),
) -> Iterator[str]:
    """Serve ``gguf`` on a free local port; yield the base URL (``http://127.0.0.1:N/v1``).

    ``launcher`` is what Python runs: llama-cpp-python's server module, or a script taking its
    arguments (the tests run one that sorts the vocabulary faster, answering the same).
    """
    try:
        import llama_cpp.server  # noqa: F401
    except ImportError:
        raise ModelNotAvailableError("llama-cpp-python[server] is not installed") from None
    port = free_port()
    command = ["timeout", str(lifetime_s), sys.executable, *launcher]
    command += ["--model", str(gguf), "--model_alias", alias, "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads)]
    log = Path(log)
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + start_timeout_s
        while True:
            if process.poll() is not None:
                raise ModelNotAvailableError(f"llama server exited: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:
                    json.loads(reply.read())
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise ModelNotAvailableError(
                        f"llama server did not answer in {start_timeout_s:.0f} s"
                    ) from None
                time.sleep(0.5)
        yield url
    finally:
        _stop(process)
