"""Small real runs of every audit kind, written once per session for the report tests."""

from __future__ import annotations

import pytest

from readout_audit import Item, OptionsSettings, PTrueSettings, YesNoSettings, score
from readout_audit.data._mc import MCItem
from readout_audit.data._qa import QAItem
from readout_audit.data._yesno import demo_yesno_items
from readout_audit.options._audit import audit_options
from readout_audit.prompt._spec import FORECAST
from readout_audit.ptrue._audit import audit_ptrue
from readout_audit.yesno._audit import audit_yesno

SCRIPT = "<script>alert('x')</script>"
IMG = '"><img src=x onerror="alert(1)">'


@pytest.fixture(scope="session")
def hostile_markup():
    """The markup the hostile run's items carry."""
    return SCRIPT, IMG


@pytest.fixture(scope="session")
def hostile_run(model, tmp_path_factory):
    """A scoring run whose prompts and options carry markup that must render as text."""
    out = tmp_path_factory.mktemp("hostile") / "run"
    items = [
        Item(id="script", prompt=f"Quote this: {SCRIPT} The answer is", options=[" yes", IMG]),
        Item(id=IMG, prompt="Two plus two is", options=[" four", f" {SCRIPT}"], target=" four"),
    ]
    score(model, items, out, greedy_tokens=3)
    return out


@pytest.fixture(scope="session")
def options_run(model, tmp_path_factory):
    """The forecast spec with notes given, so the note-only reader supplies targets."""
    out = tmp_path_factory.mktemp("options") / "run"
    items = [
        MCItem(
            id=f"q{i}",
            question=question,
            choices=choices,
            answer=answer,
            note=note,
            cluster=f"c{i % 2}",
        )
        for i, (question, choices, answer, note) in enumerate(
            [
                ("Which planet is red?", ["Mars", "Venus", "Earth", "Saturn"], "A", "Mars is red."),
                ("What do bees make?", ["milk", "honey", "silk", "wax"], "B", "Bees make honey."),
                ("Which is a fish?", ["cat", "owl", "trout", "bat"], "C", "Owls hunt at night."),
                ("How many legs has a spider?", ["six", "four", "ten", "eight"], "D", "None."),
            ]
        )
    ]
    settings = OptionsSettings(
        items=items, spec=FORECAST, variants=("production", "stem"), greedy_tokens=4
    )
    audit_options(model, settings, out)
    return out


@pytest.fixture(scope="session")
def ptrue_run(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("ptrue") / "run"
    items = [
        QAItem(
            id="paris", question="What is the capital of France?", gold=["Paris"], answer="Paris"
        ),
        QAItem(id="rome", question="What is the capital of Italy?", gold=["Rome"], answer="Milan"),
        QAItem(id="eight", question="How many legs has a spider?", gold=["eight"], answer="eight"),
        QAItem(id="blue", question="What colour is a clear sky?", gold=["blue"], answer="green"),
    ]
    audit_ptrue(model, PTrueSettings(items=items), out)
    return out


@pytest.fixture(scope="session")
def yesno_run(model, tmp_path_factory):
    out = tmp_path_factory.mktemp("yesno") / "run"
    items = demo_yesno_items()
    chosen = items[:3] + items[10:13] + items[20:23] + items[30:33]
    instruction = "Answer with one word: yes or no."
    settings = YesNoSettings(items=chosen, instruction=instruction, diagnostic_sample=4)
    audit_yesno(model, settings, out)
    return out
