"""Item and model strings are plain text: never rich markup or escape sequences, escaped in HTML."""

from __future__ import annotations

import io
import json

import pytest
from click.testing import CliRunner
from rich.console import Console

from readout_audit import read_run
from readout_audit._cli import main
from readout_audit.report import print_report, render_html

MARKUP = "[/bold]"
ESCAPE = "\x1b[38;5;199m"  # a colour the report's own styles never use
TITLE = "\x1b]0;pwned\x07"
OVERRIDE = "\u202e"  # right-to-left override: "pay\u202efdp.exe" shows as "payexe.pdf"
SHOWN = "<U+202E>"


@pytest.fixture(scope="module")
def markup_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("markup")
    items = folder / "items.jsonl"
    rows = [
        {
            "id": MARKUP,
            "prompt": f"Repeat exactly: {MARKUP} [red]x[/red]\n{MARKUP}",
            "options": [f" {MARKUP}", " [link=x]y[/link]"],
        },
        {
            "id": f"{ESCAPE}red",
            "prompt": f"Repeat exactly: {ESCAPE}RED{TITLE}\n{ESCAPE}",
            "options": [f" {ESCAPE}", f" {TITLE}bell"],
        },
        {
            "id": f"pay{OVERRIDE}fdp.exe",
            "prompt": f"Repeat exactly: pay{OVERRIDE}fdp.exe\npay{OVERRIDE}fdp.exe",
            "options": [f" pay{OVERRIDE}fdp.exe", " no"],
        },
    ]
    items.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = folder / "run"
    scored = CliRunner().invoke(
        main, ["score", "--items", str(items), "--out", str(out), "--greedy-tokens", "8"]
    )
    return out, scored


@pytest.mark.model
def test_score_prints_markup_literally_and_drops_escapes(markup_run):
    out, scored = markup_run
    assert scored.exit_code == 0, scored.output
    assert f"' {MARKUP}'" in scored.output  # the chosen option, as written
    assert "\x1b" not in scored.output and "\x07" not in scored.output
    assert OVERRIDE not in scored.output and f"pay{SHOWN}fdp.exe" in scored.output
    run = read_run(out)  # the records keep the text exactly; only its display is made safe
    assert {r.item_id for r in run.records} == {MARKUP, f"{ESCAPE}red", f"pay{OVERRIDE}fdp.exe"}
    assert [f" {ESCAPE}", f" {TITLE}bell"] in [r.options for r in run.records]


@pytest.mark.model
def test_report_on_a_colour_terminal_keeps_item_text_inert(markup_run):
    out, _ = markup_run
    run = read_run(out)
    buffer = io.StringIO()
    # a real colour terminal: markup in an item would raise or restyle, escapes would pass
    print_report(
        run, Console(file=buffer, width=200, force_terminal=True, color_system="truecolor")
    )
    text = buffer.getvalue()
    assert MARKUP in text
    assert ESCAPE not in text and "pwned" not in text and "\x07" not in text
    assert "\x1b[" in text  # the console did colour its own verdicts and headers
    assert OVERRIDE not in text and f"pay{SHOWN}fdp.exe" in text
    plain = CliRunner().invoke(main, ["report", str(out), "--plain"])
    assert plain.exit_code == 0 and "\x1b" not in plain.output and MARKUP in plain.output
    assert OVERRIDE not in plain.output and f"pay{SHOWN}fdp.exe" in plain.output


@pytest.mark.model
def test_html_report_escapes_item_text(markup_run, tmp_path):
    out, _ = markup_run
    html = render_html(read_run(out))
    assert MARKUP in html and "[link=x]y[/link]" in html
    assert "\x1b" not in html and "\x07" not in html
    assert OVERRIDE not in html and "pay&lt;U+202E&gt;fdp.exe" in html  # shown, not obeyed
    whole = "Repeat exactly: pay&lt;U+202E&gt;fdp.exe\npay&lt;U+202E&gt;fdp.exe"
    assert f'<pre class="searched">{whole}</pre>' in html  # the full prompt, shown the same way
    written = CliRunner().invoke(main, ["report", str(out), "--html", str(tmp_path / "r.html")])
    assert written.exit_code == 0, written.output
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == html
