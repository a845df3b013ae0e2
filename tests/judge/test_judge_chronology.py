"""The chronological-quartile balance of a served stream, on hand-built send orders."""

from __future__ import annotations

from judge_records import panel

from readout_audit.judge import analyse_judge
from readout_audit.judge.analysis import JudgeAnalysisSettings
from readout_audit.judge.analysis._chronology import chronology

PRIMARY = ["random_colon/sorted", "random/sorted", "random_colon/insertion", "random/insertion"]


def _sent(order):
    return [(float(t), request) for t, request in enumerate(order)]


def test_an_interleaved_stream_is_balanced_and_a_blocked_one_is_not():
    cells = {f"r{i:02d}": PRIMARY[i % 4] for i in range(40)}
    cells |= {f"c{i}": "bare_correct/sorted" for i in range(8)}  # a control: not counted
    primary = [r for r in cells if r.startswith("r")]
    balance = chronology(_sent(primary), cells)
    assert balance is not None and balance.balanced and balance.n_sent == 40
    odd = dict(zip(PRIMARY, [3, 3, 2, 2], strict=True))  # r00..r09: cells 0 1 2 3 0 1 2 3 0 1
    even = dict(zip(PRIMARY, [2, 2, 3, 3], strict=True))  # r10..r19: cells 2 3 0 1 ...
    assert balance.counts == [odd, even, odd, even]
    # the same requests sent cell by cell: each quartile holds one cell only
    blocked = sorted(primary, key=lambda r: (PRIMARY.index(cells[r]), r))
    balance = chronology(_sent(blocked), cells)
    assert balance is not None and not balance.balanced
    assert len(balance.missing) == 12 and "q1: random/sorted" in balance.missing
    assert chronology(_sent(["r00", "r01"]), cells) is None  # fewer sends than quartiles


def test_the_check_passes_an_interleaved_stream_and_warns_on_a_blocked_one():
    records = panel("c", {"gsm8k": 8})
    cells = {r.item_id: f"{r.cell}/{r.presentation}" for r in records}
    settings = JudgeAnalysisSettings(n_boot=99)

    def verdict(order):
        summary = analyse_judge(records, settings, chronology=chronology(_sent(order), cells))
        return next(c.verdict for c in summary.checks if c.name == "chronology")

    assert verdict(list(cells)) == "pass"  # source by source: every cell in every quartile
    assert verdict(sorted(cells, key=lambda r: (cells[r], r))) == "warn"
