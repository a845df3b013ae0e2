"""The HTML report: self-contained, escaped, and whole in a real headless Chromium."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from readout_audit import read_run
from readout_audit.report import render_html, report_sections
from readout_audit.report._html import SEARCH_SCRIPT
from readout_audit.report._screenshot import CHROMIUM_FLAGS

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _tags(html: str) -> dict[str, set[str]]:
    """Every element name in the document with the attribute names it is used with."""
    from html.parser import HTMLParser

    found: dict[str, set[str]] = {}

    class Collector(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.setdefault(tag, set()).update(name for name, _ in attrs)

    Collector().feed(html)
    return found


def test_item_and_model_text_is_escaped(hostile_run, hostile_markup):
    SCRIPT, IMG = hostile_markup
    html = render_html(read_run(hostile_run))
    assert SCRIPT not in html and IMG not in html
    tags = _tags(html)
    assert "img" not in tags
    assert re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S) == [SEARCH_SCRIPT]  # ours only
    assert not any(name.startswith("on") for attrs in tags.values() for name in attrs)
    assert "&lt;script&gt;alert(" in html  # shown as text in the prompt tail
    assert "&#34;&gt;&lt;img src=x onerror=" in html  # the item id, shown as text


def test_report_is_self_contained(options_run):
    run = read_run(options_run)
    html = render_html(run)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "<link" not in html and "@import" not in html
    down = run.summary.downstream
    both_classes = 0 < down.n_reader_correct < down.n
    # mass, argmax classes, reliability, paired differences, and ROC when both classes occur
    assert html.count("<svg") == 4 + both_classes


@pytest.mark.model
@pytest.mark.parametrize("fixture", ["hostile_run", "options_run", "ptrue_run", "yesno_run"])
def test_every_kind_has_its_sections(fixture, request):
    run = read_run(request.getfixturevalue(fixture))
    titles = [s.title for s in report_sections(run)]
    assert titles[-1] == "Manifest" and "Item browser" in titles
    has_checks = bool(run.summary.checks)
    assert ("Checks" in titles) == has_checks and (titles[0] == "Checks") == has_checks
    html = render_html(run)
    assert run.manifest.model["files"][0]["sha256"] in html
    assert run.manifest.model["chat_template_sha256"] in html
    assert run.manifest.versions["transformers"] in html


def test_unfinished_run_is_reported_from_its_records(yesno_run, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(yesno_run, copy)
    (copy / "summary.json").unlink()
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["invocations"][-1]["finished"] = None  # interrupted before it finished
    (copy / "manifest.json").write_text(json.dumps(manifest))
    run = read_run(copy)
    assert run.state == "unfinished" and run.summary is None
    html = render_html(run)
    assert "unfinished (interrupted; summary recomputed" in html
    assert "Confusion matrix: dynamic" in html


def _chromium(user_data: str):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    for binary in ("chromium", "chromedriver"):
        assert shutil.which(binary), f"{binary} is missing: `make setup` installs Debian's packages"
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={user_data}", "--window-size=1280,2400"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


@pytest.mark.model
@pytest.mark.parametrize("fixture", ["options_run", "yesno_run", "hostile_run"])
def test_report_opens_in_headless_chromium(fixture, request, tmp_path):
    run = read_run(request.getfixturevalue(fixture))
    page = tmp_path / "report.html"
    page.write_text(render_html(run), encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        driver = _chromium(profile)
        try:
            driver.get(page.as_uri())
            logs = driver.get_log("browser")
            plots = driver.execute_script(
                "return Array.from(document.querySelectorAll('figure.plot svg'))"
                ".filter(s => s.getBoundingClientRect().width > 100).length"
            )
            scripts = driver.execute_script("return document.scripts.length")
            images = driver.execute_script("return document.images.length")
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / f"report-{run.manifest.kind}-{fixture}.png"
            assert driver.save_screenshot(str(shot))
            search = _search(driver)
        finally:
            driver.quit()
    assert logs == [], logs  # no console errors (nor any other message)
    assert plots >= 1
    assert scripts == 1 and images == 0  # the search script only: injected markup stayed text
    assert shot.stat().st_size > 10_000
    entries = len(re.findall(r'<details class="item"', page.read_text(encoding="utf-8")))
    first, shown, matching, none, cleared = search
    assert first in shown and shown == matching  # the entries holding every word of the title
    assert none == (0, f"0 of {entries} shown")
    assert cleared == (entries, f"{entries} of {entries} shown")


ENTRIES = "Array.from(document.querySelectorAll('details.item'))"
TITLE = "e => e.querySelector('.searched').textContent"
HOLDS = (
    "e => arguments[0].toLowerCase().split(/\\s+/).filter(Boolean).every(t => "
    "Array.from(e.querySelectorAll('.searched'), s => s.textContent).join(' ')"
    ".toLowerCase().includes(t))"
)


def _search(driver) -> tuple[str, list[str], list[str], tuple[int, str], tuple[int, str]]:
    """Search for the first entry's title, then for text no entry holds, then for nothing.

    Returns the first title, the titles shown for it, the titles of the entries holding each of
    its words, and, for the other two searches, how many entries show and the box's count.
    """
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.CSS_SELECTOR, "p.search input")
    count = driver.find_element(By.CSS_SELECTOR, "p.search output")
    assert box.is_displayed()  # the script shows the box, hidden without it

    def search(text: str) -> list[str]:
        driver.execute_script("arguments[0].value = ''", box)
        box.send_keys(text)  # typed: each key an input event
        return driver.execute_script(
            f"return {ENTRIES}.filter(e => e.getBoundingClientRect().height > 0).map({TITLE})"
        )

    first = driver.execute_script(f"return {ENTRIES}.map({TITLE})[0]")
    matching = driver.execute_script(f"return {ENTRIES}.filter({HOLDS}).map({TITLE})", first)
    shown = search(first)
    none = (len(search("§no entry holds this§")), count.text)
    cleared = (len(search(" ")), count.text)  # a blank query: every entry again
    return first, shown, matching, none, cleared


ONE_WORD_CELLS_ON_MANY_LINES = """
return Array.from(document.querySelectorAll('td')).filter(td => {
  const text = td.textContent.trim();
  if (!text || /\\s/.test(text)) return false;
  const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
  const tops = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const rect of range.getClientRects()) tops.add(Math.round(rect.top));
  }
  return tops.size > 1;
}).map(td => td.textContent.trim());
"""


@pytest.mark.model
def test_numbers_and_ids_stay_on_one_line_in_a_narrow_window(yesno_run, tmp_path):
    html = render_html(read_run(yesno_run))
    assert re.search(r'<td class="whole">0\.\d{4}</td>', html)  # the class that keeps them whole
    assert "td.name, td.whole { white-space: nowrap; }" in html
    page = tmp_path / "report.html"
    page.write_text(html, encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        driver = _chromium(profile)
        try:
            driver.set_window_size(420, 2400)  # a phone's width: every table is squeezed
            driver.get(page.as_uri())
            broken = driver.execute_script(ONE_WORD_CELLS_ON_MANY_LINES)
            cells = driver.execute_script("return document.querySelectorAll('td.whole').length")
        finally:
            driver.quit()
    assert cells > 50 and broken == []
