"""A run's identity: what must match for a run directory to be resumed."""

from __future__ import annotations

from readout_audit.log._manifest import Manifest


def served_manifest(url: str, echo: str = "fail") -> Manifest:
    verdicts = {"tokenisation": "pass", "echo_alignment_raw": echo}
    return Manifest(
        kind="lift",
        model={
            "spec": f"openai:{url}#smollm2",
            "name": "smollm2",
            "served": {
                "server": "llama-cpp-python",
                "endpoints": [url],
                "conformance": {url: verdicts},
            },
        },
        config={"target": "x"},
    )


def test_a_served_run_resumes_on_a_restarted_server_but_not_on_other_verdicts():
    first = served_manifest("http://127.0.0.1:44077/v1")
    moved = served_manifest("http://127.0.0.1:35155/v1")
    assert first.identity() == moved.identity()
    assert first.identity() != served_manifest("http://127.0.0.1:44077/v1", "pass").identity()
    assert first.model["served"]["endpoints"] == ["http://127.0.0.1:44077/v1"]  # kept on disk


def test_a_local_model_identity_is_its_manifest_entry():
    local = Manifest(kind="lift", model={"spec": "smollm2-135m", "name": "m"}, config={})
    assert local.identity()["model"] == {"spec": "smollm2-135m", "name": "m"}
