"""``readout ledger RUN_DIR``: counts, spend, unknown and failed calls; releasing unknown ones."""

from __future__ import annotations

import json

from click.testing import CliRunner

from readout_audit._cli import main
from readout_audit.serve import LEDGER_FILE, Endpoint, HttpCall, Ledger, RequestRunner, RetryPolicy


def test_the_listing_and_the_release_of_unknown_calls(proxy, tmp_path, make_calls):
    done, lost, refused = make_calls(3)
    proxy.schedule(["pass", "drop_after", "http500"])
    with Ledger(tmp_path / LEDGER_FILE) as ledger:
        endpoint = Endpoint(proxy.url, concurrency=1)
        RequestRunner([endpoint], ledger, retry=RetryPolicy(max_attempts=1)).run(
            [done, lost, refused]
        )
        listed = ledger.entries("unknown", "failed")
    cli = CliRunner()
    shown = cli.invoke(main, ["ledger", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[0] == "planned 0, reserved 0, sent 0, completed 1, failed 1, unknown 1"
    # usage 3 + 2 of the completed call, the reservation 10 + 5 of the unknown one
    assert lines[1] == "spend: 20 tokens, $0.000000 (usage and open reservations)"
    assert lines[2:] == [
        f"{e.state} {e.key[:12]} {proxy.url} attempts 1: {e.error}" for e in listed
    ]
    assert {e.key for e in listed} == {lost.key, refused.key}

    as_json = json.loads(cli.invoke(main, ["ledger", str(tmp_path), "--json"]).output)
    assert as_json["counts"]["unknown"] == 1 and as_json["spend"] == {"tokens": 20, "usd": 0.0}
    assert [c["key"] for c in as_json["calls"]] == [e.key for e in listed]
    assert as_json["released"] is None

    released = cli.invoke(main, ["ledger", str(tmp_path), "--release-unknown"])
    assert released.output.splitlines()[0] == (
        "planned 1, reserved 0, sent 0, completed 1, failed 1, unknown 0"
    )
    assert released.output.splitlines()[-1] == "released 1 unknown calls: a rerun sends them again"
    with Ledger(tmp_path / LEDGER_FILE) as ledger:
        assert ledger.entry(lost.key).state == "planned"


def test_a_run_directory_without_a_ledger_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(main, ["ledger", str(tmp_path)])
    assert result.exit_code == 1
    assert f"{tmp_path}: holds no requests.sqlite: the run sent no requests" in result.output
    assert not (tmp_path / LEDGER_FILE).exists()


def test_a_servers_escape_sequences_are_not_replayed_to_the_terminal(tmp_path, make_calls):
    (call,) = make_calls(1)
    with Ledger(tmp_path / LEDGER_FILE) as ledger:
        ledger.plan([call])
        ledger.fail(call.key, "HTTP 400: \x1b[2J\x1b]0;pwned\x07[/bold] bad \u2028request")
    shown = CliRunner().invoke(main, ["ledger", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    assert "\x1b" not in shown.output and "\x07" not in shown.output
    assert "HTTP 400: [/bold] bad" in shown.output


def test_a_tagged_call_is_listed_with_its_tag(tmp_path, make_calls):
    (plain,) = make_calls(1)
    tagged = HttpCall(plain.path, plain.body, 10, 5, tag="confirmation:j:gsm8k:3:random:sorted")
    with Ledger(tmp_path / LEDGER_FILE) as ledger:
        ledger.plan([plain, tagged])
        ledger.fail(plain.key, "HTTP 400")
        ledger.fail(tagged.key, "HTTP 400")
    cli = CliRunner()
    lines = cli.invoke(main, ["ledger", str(tmp_path)]).output.splitlines()[2:]
    assert sorted(lines) == sorted(
        [
            f"failed {plain.key[:12]} no endpoint attempts 0: HTTP 400",
            f"failed {tagged.key[:12]} confirmation:j:gsm8k:3:random:sorted no endpoint "
            "attempts 0: HTTP 400",
        ]
    )
    listing = json.loads(cli.invoke(main, ["ledger", str(tmp_path), "--json"]).output)
    assert {c["key"]: c["tag"] for c in listing["calls"]} == {
        plain.key: "",
        tagged.key: "confirmation:j:gsm8k:3:random:sorted",
    }


def test_an_amendment_needs_a_release_and_a_run_directory(tmp_path, make_calls):
    (call,) = make_calls(1)
    with Ledger(tmp_path / LEDGER_FILE) as ledger:
        ledger.plan([call])
    cli = CliRunner()
    alone = cli.invoke(main, ["ledger", str(tmp_path), "--amend-protocol", "why"])
    assert alone.exit_code == 1 and "give it with --release-unknown" in alone.output
    outside = ["ledger", str(tmp_path), "--release-unknown", "--amend-protocol", "why"]
    refused = cli.invoke(main, outside)
    assert refused.exit_code == 1 and "an amendment is kept in a run's artifacts" in refused.output
