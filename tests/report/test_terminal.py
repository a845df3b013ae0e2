"""Terminal tables show each record's readings and the per-variant verdicts."""

from __future__ import annotations

from readout_audit import Item, read_run, score
from readout_audit.report import MISSING, print_report


def test_tables_show_mass_argmax_defects_and_collapse(model, tmp_path, capsys):
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
    capsys.readouterr()
    print_report(run)  # to a pipe: the report's own console
    text = capsys.readouterr().out
    by_id = {r.item_id: r for r in run.records}
    (spaced_row,) = [line for line in text.splitlines() if "spaced" in line]
    cells = [cell.strip() for cell in spaced_row.split("┃" if "┃" in spaced_row else "│")]
    assert cells[4] == MISSING  # the broken boundary has no mass, not 0
    assert "None" not in spaced_row
    assert "SHARED" in text  # 10 and 12 share their first token
    assert (
        f"{by_id['numbers'].option_mass:.4f}" in text
        or f"{by_id['numbers'].option_mass:.2e}" in text
    )
    assert repr(by_id["numbers"].argmax_token) in text
    collapsed = run.summary.variants["production"].option_mass.collapse
    assert ("COLLAPSE" in text) == collapsed
    assert "Per variant (2 records)" in text
    assert max(len(line) for line in text.splitlines()) <= 160  # pipes get a fixed width
