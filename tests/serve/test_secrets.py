"""An endpoint's headers (API keys) reach the server and nothing else: ledger, errors, output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from upstream_app import Upstream

from readout_audit import InputError
from readout_audit._cli import main
from readout_audit.judge import parse_configuration
from readout_audit.serve import (
    LEDGER_FILE,
    Endpoint,
    Ledger,
    RequestRunner,
    RetryPolicy,
    redact_url,
)

SECRET = "sk-live-SECRET-4242"
FIXTURES = Path(__file__).parent.parent / "fixtures" / "judge"
JUDGE_SOURCES = [
    "--gsm8k", str(FIXTURES / "gsm8k_test_head.jsonl"),
    "--drop", str(FIXTURES / "drop_rows.jsonl"),
    "--per-dataset", "1",
    "--preflight-per-dataset", "1",
]  # fmt: skip


def test_the_api_key_never_leaves_the_request(proxy, upstream, tmp_path, make_calls, capsys):
    headers = {"Authorization": f"Bearer {SECRET}"}
    calls = make_calls(4)
    proxy.schedule(["drop_after", "http500", "pass"])
    retry = RetryPolicy(max_attempts=1)
    with Ledger(tmp_path / LEDGER_FILE) as ledger, Upstream(status=401) as refusing:
        through_proxy = Endpoint(proxy.url, concurrency=1, timeout_s=2, headers=headers)
        results = RequestRunner([through_proxy], ledger, retry=retry, progress="lines").run(
            calls[:3]
        )
        # a refusal whose body quotes the key, as some servers' errors do
        to_refusing = Endpoint(refusing.url, headers=headers)
        results += RequestRunner([to_refusing], ledger, retry=retry).run(calls[3:])
        assert [r.state for r in results] == ["unknown", "failed", "completed", "failed"]
        assert "[redacted]" in results[3].error
        assert SECRET not in repr(through_proxy)
        open_files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}  # the WAL too
    assert {"requests.sqlite", "requests.sqlite-wal"} <= set(open_files)
    assert all(SECRET.encode() not in data for data in open_files.values())
    assert upstream.headers[0]["Authorization"] == f"Bearer {SECRET}"  # it was sent
    assert refusing.headers[0]["Authorization"] == f"Bearer {SECRET}"
    assert SECRET.encode() not in (tmp_path / LEDGER_FILE).read_bytes()
    assert all(SECRET not in (r.error or "") for r in results)
    cli = CliRunner()
    listing = cli.invoke(main, ["ledger", str(tmp_path)]).output
    listing += cli.invoke(main, ["ledger", str(tmp_path), "--json"]).output
    assert "[redacted]" in listing and SECRET not in listing
    captured = capsys.readouterr()
    assert "requests: 3/3" in captured.err and SECRET not in captured.err + captured.out


PASSWORD = "hunter,2"  # a comma too: a list of URLs is not split inside one
WITH_PASSWORD = f"http://user:{PASSWORD}@127.0.0.1:8080/v1"
REFUSED = "must hold no credentials, query or fragment (credentials go in headers)"


def refusals(tmp_path: Path) -> list[tuple[list[str], str]]:
    """Commands given a URL with a password (or a key in its query), and the error each prints."""
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"id": "a", "prompt": "2 + 2 =", "options": [" 4", " 5"]}))
    listing = tmp_path / "urls.txt"
    listing.write_text(f"http://127.0.0.1:8081/v1\n{WITH_PASSWORD}\n")
    inventory = tmp_path / "inventory"
    served = "f4=FINAL4@openai:http://127.0.0.1:8080/v1#smollm2"
    build = ["judge", "build", *JUDGE_SOURCES]
    built = CliRunner().invoke(main, [*build, "--configuration", served, "--out", str(inventory)])
    assert built.exit_code == 0, built.output
    out = str(tmp_path / "out")
    phase = ["--phase", "preflight"]
    score = ["score", "--items", str(items), "--out", out, "--tokenizer", "smollm2-135m"]
    redacted = "http://[redacted]@127.0.0.1:8080/v1"
    return [
        (
            [*score, "--model", f"openai:{WITH_PASSWORD}#m"],
            f"--model, field 'model': {redacted!r} {REFUSED}",
        ),
        (
            [*score, "--model", f"openai:{listing}#m"],
            f"{listing}:2, field 'model': {redacted!r} {REFUSED}",
        ),
        (
            ["conformance", "--out", out, "--model", f"openai:{WITH_PASSWORD}?key={PASSWORD}#m"],
            f"--model, field 'model': '{redacted}?key=[redacted]' {REFUSED}",
        ),
        (
            [*build, "--out", out, "--configuration", f"f4=FINAL4@openai:{WITH_PASSWORD}#j"],
            f"field 'configuration': f4: {redacted!r} {REFUSED}",
        ),
        (
            ["judge", "run", str(inventory), "--out", out, "--endpoint", WITH_PASSWORD, *phase],
            f"endpoint {redacted!r}, field 'base_url': {REFUSED}",
        ),
    ]


def test_a_url_with_a_password_is_refused_without_showing_it(tmp_path):
    for args, error in refusals(tmp_path):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 1, (args, result.output)
        assert result.output == f"Error: {error}\n"  # stdout and stderr
        assert not (tmp_path / "out").exists()  # no manifest, no ledger: nothing stored


def test_a_malformed_judge_configuration_is_quoted_without_its_password():
    with pytest.raises(InputError) as refused:
        parse_configuration(f"FINAL3@openai:{WITH_PASSWORD}#j", 0)
    assert str(refused.value) == (
        "field 'configuration': expected NAME=CONTRACT@JUDGESPEC, got "
        "'FINAL3@openai:http://[redacted]@127.0.0.1:8080/v1#j'"
    )


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("dG9rZW4=@127.0.0.1:9/v1", "[redacted]@127.0.0.1:9/v1"),
        ("key=sk-abc@127.0.0.1:9/v1", "[redacted]@127.0.0.1:9/v1"),
        ("user:secret@127.0.0.1:9/v1", "[redacted]@127.0.0.1:9/v1"),
        ("a=FINAL3@user:secret@127.0.0.1:9/v1", "a=FINAL3@[redacted]@127.0.0.1:9/v1"),
        ("a=HALL_R@smollm2-135m", "a=HALL_R@smollm2-135m"),
    ],
)
def test_only_a_configurations_contract_prefix_is_kept_before_credentials(url, shown):
    assert redact_url(url) == shown
