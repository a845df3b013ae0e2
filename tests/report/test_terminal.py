"""Terminal tables show each record's readings and the per-variant verdicts."""

from __future__ import annotations

import io

from rich.console import Console

from readout_audit import Item, read_run, score
from readout_audit.report import print_run


def test_tables_show_mass_argmax_defects_and_collapse(model, tmp_path):
    items = [
        Item(id="spaced", prompt="The largest planet is ", options=["Jupiter", "Mars"]),
        Item(
            id="numbers",
            messages=[{"role": "user", "content": "Legs on a spider? 6, 8, 10 or 12."}],
            options=["6", "8", "10", "12"],
        ),
    ]
    score(model, items, tmp_path / "run", greedy_tokens=2)
    run = read_run(tmp_path / "run")
    buffer = io.StringIO()
    print_run(run.records, run.summary, Console(file=buffer, width=80))
    text = buffer.getvalue()
    by_id = {r.item_id: r for r in run.records}
    assert "None" in text  # the broken boundary has no mass, not 0
    assert "SHARED" in text  # 10 and 12 share their first token
    assert (
        f"{by_id['numbers'].option_mass:.4f}" in text
        or f"{by_id['numbers'].option_mass:.2e}" in text
    )
    assert repr(by_id["numbers"].argmax_token) in text
    collapsed = run.summary["variants"]["production"]["option_mass"]["collapse"]
    assert ("COLLAPSE" in text) == collapsed
    assert "Summary (2 records)" in text
    assert max(len(line) for line in text.splitlines()) <= 160  # pipes get a fixed width
