"""The item browser: every variant of the worst items, the full prompt, and its search box."""

from __future__ import annotations

import base64
import hashlib
import html as htmllib
import json
import re
import shutil

from readout_audit import read_run
from readout_audit._util._text import terminal_safe
from readout_audit.lmeval import LMEvalRecord
from readout_audit.log._record import ScoreRecord
from readout_audit.report import render_html
from readout_audit.report._blocks import ItemsBlock, Section, item_view, worst_items
from readout_audit.report._html import SEARCH_HASH, SEARCH_SCRIPT, TEMPLATE, _environment

PROMPT_ENTRY = re.compile(
    r'<details class="prompt">\s*<summary>full prompt \((\d+) characters\)</summary>\s*'
    r'<pre class="searched">(.*?)</pre>\s*</details>',
    re.S,
)


def _record(item_id: str, variant: str, mass: float | None, text: str | None) -> ScoreRecord:
    """A record as a run writes it, with only what the browser reads set to real values."""
    fields = {
        "item_id": item_id,
        "variant": variant,
        "options": [" yes", " no"],
        "cluster": item_id,
        "rendered_sha256": "0" * 64,
        "rendered_tail": f"{item_id} asks {variant}"[-60:],
        "n_tokens": 3,
        "scored_index": 2,
        "last_token_id": 7,
        "ending": "none",
        "argmax_id": 7,
        "argmax_token": " yes",
        "argmax_prob": 0.5,
        "argmax_is_option": True,
        "top": [{"id": 7, "token": " yes", "logprob": -0.69, "prob": 0.5}],
        "option_token_ids": [[7], [8]],
        "option_first_ids": [7, 8],
        "boundary_preserved": mass is not None,
        "distinct_first_tokens": True,
        "option_mass": mass,
        "option_logprobs": [-0.69, -1.2],
        "option_token_logprobs": [[-0.69], [-1.2]],
        "option_probs": [0.62, 0.38],
        "expected_value": None,
        "greedy": {"token_ids": [7], "text": " yes"},
    }
    if text is not None:
        fields["rendered_text"] = text
    return ScoreRecord.model_validate(fields)


def test_browser_shows_every_variant_of_the_items_with_the_worst_variant():
    variants = ["production", "stem", "letters"]
    records = [
        # item i's worst variant has mass (i + 1) / 100, on a different variant each time
        _record(f"i{i:02d}", v, (i + 1) / 100 if j == i % 3 else 0.9, f"prompt of i{i:02d}")
        for i in range(14)
        for j, v in enumerate(variants)
    ]
    records.append(_record("unmeasured", "stem", None, None))  # only one variant, mass unknown
    records.reverse()  # a run writes records in scoring order, not item order
    views = worst_items(records)
    titles = [v.title for v in views]
    # the unmeasured item counts as least; then the 11 items with the least worst-variant mass,
    # each variant in the order the records first show it
    expected = ["unmeasured · stem"] + [
        f"i{i:02d} · {v}" for i in range(11) for v in ["stem", "letters", "production"]
    ]
    assert titles == expected
    masses = {v.title: v.mass for v in views}
    assert masses["i00 · production"] == "0.0100" and masses["i00 · stem"] == "0.9000"
    assert masses["i01 · stem"] == "0.0200" and masses["unmeasured · stem"] == "–"
    assert views[1].prompt == "prompt of i00" and views[0].prompt is None


def test_full_prompt_is_shown_escaped_in_a_collapsed_entry(hostile_run):
    run = read_run(hostile_run)
    html = render_html(run)
    shown = PROMPT_ENTRY.findall(html)
    texts = {r.rendered_text for r in run.records}
    assert texts == {"Quote this: <script>alert('x')</script> The answer is", "Two plus two is"}
    assert {(int(n), htmllib.unescape(text)) for n, text in shown} == {(len(t), t) for t in texts}
    escaped = "Quote this: &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; The answer is"
    assert f'<pre class="searched">{escaped}</pre>' in html


def test_a_long_prompt_is_shown_whole_beside_its_tail(options_run):
    run = read_run(options_run)
    html = render_html(run)
    shown = [htmllib.unescape(text) for _, text in PROMPT_ENTRY.findall(html)]
    longest = max(run.records, key=lambda r: len(r.rendered_text or ""))
    assert len(longest.rendered_text) > 300 and longest.rendered_tail != longest.rendered_text
    assert terminal_safe(longest.rendered_text) in shown
    # every variant of every item: the options run scores 4 items in 2 variants
    assert len(shown) == len(run.records) == 8
    assert html.count('<details class="item"') == 8


def test_records_written_before_the_whole_prompt_was_kept_still_report(hostile_run, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(hostile_run, copy)
    records = copy / "records.jsonl"
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    assert all("rendered_text" in line for line in lines)
    records.write_text(
        "".join(
            json.dumps({k: v for k, v in line.items() if k != "rendered_text"}) + "\n"
            for line in lines
        )
    )
    run = read_run(copy)
    assert [r.rendered_text for r in run.records] == [None, None]
    html = render_html(run)
    assert html.count('<details class="item"') == 2 and PROMPT_ENTRY.search(html) is None
    assert "full prompt (" not in html


def test_search_box_is_shown_by_the_one_inline_script_the_page_allows(options_run):
    html = render_html(read_run(options_run))
    assert '<p class="search" hidden><label>Search <input type="search"' in html
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", html, re.S)
    assert len(scripts) == 1 and 'querySelectorAll("p.search")' in scripts[0]
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert policy is not None
    assert f"script-src 'sha256-{digest}'" in policy.group(1)
    assert "default-src 'none'" in policy.group(1)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "fetch(" not in scripts[0] and "XMLHttpRequest" not in scripts[0]


def _lm_eval_record(gold: list[int], metrics: dict[str, float]) -> LMEvalRecord:
    """An lm-eval document's record: the browser's fields of ``_record`` and lm-eval's own."""
    options = {
        "spec": "lm-eval",
        "item_letters": [],
        "argmax_class": "option",
        "letter_pull": False,
        "continuation_class": "gives_option",
        "answer_then_option": False,
        "option_anywhere": True,
        "letter_anywhere": False,
        "isolated_first_ids": [7, 8],
        "isolated_mass": 0.9,
        "mass_argmax_disagree": False,
        "readout_choices": {"loglik": 0},
        "readouts_agree": True,
    }
    lm_eval = {"task": "t", "doc_id": 0, "choices": ["yes", "no"], "moved_whitespace": ""}
    return LMEvalRecord.model_validate(
        {
            **_record("doc0", "original", 0.9, "Q?").model_dump(),
            **options,
            **lm_eval,
            "gold": gold,
            "lm_eval_metrics": metrics,
        }
    )


def test_browser_shows_the_gold_answer_and_lm_evals_choice():
    # log-likelihoods -0.69 (" yes") and -1.2 (" no"): lm-eval's acc picks " yes"
    record = _lm_eval_record([1], {"acc": 0.0, "acc_norm": 1.0})
    view = item_view(record)
    assert view.gold == [" no"] and view.choice == " yes"
    assert view.metrics == "acc 0, acc_norm 1"
    page = (
        _environment()
        .get_template(TEMPLATE)
        .render(
            title="t",
            model="m",
            n_records=1,
            state="finished",
            sections=[Section("Item browser", [ItemsBlock("Items", [view])])],
            version="0",
            script=SEARCH_SCRIPT,
            script_hash=SEARCH_HASH,
        )
    )
    answer = re.search(r'<p class="answer">(.*?)</p>', page, re.S)
    assert answer is not None
    shown = htmllib.unescape(re.sub(r"<[^>]+>", "", answer.group(1)))
    assert shown == (
        'gold answer " no" · highest log-likelihood (lm-eval\'s acc choice) " yes" · '
        "lm-eval acc 0, acc_norm 1"
    )
    # a record with a text target (no lm-eval gold) names its matching option; none: a dash
    plain = _record("q", "production", 0.5, None)
    assert item_view(plain.model_copy(update={"target": "no"})).gold == [" no"]
    assert item_view(plain).gold == [] and item_view(plain).metrics == ""


def test_every_entry_of_a_yesno_run_names_its_gold_answer(yesno_run):
    run = read_run(yesno_run)
    page = render_html(run)
    answers = re.findall(r'<p class="answer">gold answer <code>(.*?)</code>', page)
    entries = len(re.findall(r'<details class="item"', page))
    assert len(answers) == entries > 0
    # each yes/no question's label, as one of its declared forms
    labels = {r.label for r in run.records}
    assert {json.loads(htmllib.unescape(a)).strip().lower() for a in answers} <= labels
