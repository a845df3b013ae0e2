"""An endpoint's headers (API keys) reach the server and nothing else: ledger, errors, output."""

from __future__ import annotations

from click.testing import CliRunner
from upstream_app import Upstream

from readout_audit._cli import main
from readout_audit.serve import LEDGER_FILE, Endpoint, Ledger, RequestRunner, RetryPolicy

SECRET = "sk-live-SECRET-4242"


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
