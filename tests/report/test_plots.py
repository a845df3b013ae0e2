"""Every plot labels the ticks of both its axes, also when its values lie within one decade."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from readout_audit.report import _plots

SVG = "{http://www.w3.org/2000/svg}g"


def tick_labels(svg: str) -> dict[str, list[str]]:
    """Each axis's tick label texts (drawn as paths; matplotlib keeps each text as a comment)."""
    builder = ET.TreeBuilder(insert_comments=True)
    root = ET.fromstring(svg, parser=ET.XMLParser(target=builder))
    axes = [g for g in root.iter(SVG) if g.get("id", "").startswith("matplotlib.axis_")]
    return {
        axis.get("id", "")[-1]: [
            node.text.strip()
            for tick in axis
            if re.fullmatch(r"[xy]tick_\d+", tick.get("id", ""))
            for node in tick.iter()
            if node.tag is ET.Comment and node.text and node.text.strip()
        ]
        for axis in axes
    }


ONE_DECADE = {
    "mass_distribution": lambda: _plots.mass_distribution(
        {"production": [0.6, 0.7, 0.8], "stem": [0.62, 0.65]}, "masses"
    ),
    "class_bars": lambda: _plots.class_bars(
        {"production": {"prose": 3, "option": 1}, "stem": {"option": 4}}, "classes"
    ),
    "roc_curves": lambda: _plots.roc_curves(
        {"a": [0.61, 0.62, 0.63, 0.64]}, [False, True, False, True], "roc"
    ),
    "reliability": lambda: _plots.reliability(
        {"a": [0.61, 0.62, 0.63, 0.64]}, [False, True, False, True], "reliability"
    ),
    "intervals": lambda: _plots.intervals(
        {"a − b": (0.02, 0.015, 0.03), "a − c": (0.025, 0.02, 0.04)}, "differences", zero=False
    ),
    "budget_curves": lambda: _plots.budget_curves(
        {"a": [(20, 0.61, 0.01), (40, 0.63, 0.01), (80, 0.64, 0.01)]}, {"a": 0.6}, "budget"
    ),
    "null_histogram": lambda: _plots.null_histogram([1, 4, 2], [0.6, 0.62, 0.64, 0.66], 0.65, "n"),
    "window_curves": lambda: _plots.window_curves(
        {"a": [(1, 0.02, 0.001), (2, 0.03, 0.001), (4, 0.035, 0.001)]}, "lift"
    ),
    "ecdf_curves": lambda: _plots.ecdf_curves(
        {"a": [0.61, 0.62, 0.63, 0.64], "b": [0.615, 0.625, 0.635]}, "cdf", "lift"
    ),
    "lift_vs_tokens": lambda: _plots.lift_vs_tokens(
        {"a": (20.0, 0.61, 0.001), "b": (40.0, 0.63, 0.001), "c": (80.0, 0.64, 0.001)}, "tokens"
    ),
}


def test_every_plot_is_covered():
    drawn = {
        name
        for name, value in vars(_plots).items()
        if callable(value) and not name.startswith("_") and value.__module__ == _plots.__name__
    }
    assert drawn == set(ONE_DECADE)


@pytest.mark.parametrize("name", sorted(ONE_DECADE))
def test_both_axes_have_tick_labels_for_values_within_one_decade(name):
    labels = tick_labels(ONE_DECADE[name]())
    assert set(labels) == {"1", "2"}
    assert len(labels["1"]) >= 2 and len(labels["2"]) >= 2, labels


def test_a_log_axis_within_one_decade_labels_plain_values():
    x = tick_labels(ONE_DECADE["mass_distribution"]())["1"]
    assert x == ["0.5", "0.55", "0.6", "0.65", "0.7", "0.75", "0.8"]  # the floor and the masses
    budgets = tick_labels(ONE_DECADE["budget_curves"]())["1"]
    assert budgets == ["20", "50"]


def test_a_log_axis_over_many_decades_labels_powers_of_ten():
    x = tick_labels(_plots.mass_distribution({"a": [1e-9, 1e-5, 0.9]}, "m"))["1"]
    exponents = [re.fullmatch(r"\$\\mathdefault\{10\^\{(-?\d+)\}\}\$", t) for t in x]
    assert all(exponents) and len(x) >= 4, x  # matplotlib may label every other decade
    assert {-8, 0} <= {int(e.group(1)) for e in exponents if e}
