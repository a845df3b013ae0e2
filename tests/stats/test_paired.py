"""Transition tables and the closed-form F1 (seed 002), against counts and printed values."""

from __future__ import annotations

import numpy as np
import pytest

from readout_audit.stats import binary_scores, f1_closed_form, transition_table


def test_transition_table_equals_a_direct_count():
    rng = np.random.default_rng(3)
    a, b, label = (rng.integers(0, 2, 500) for _ in range(3))
    table = transition_table(a, b, label).as_dict()
    for lab, name in ((1, "yes"), (0, "no")):
        for x, xn in ((1, "y"), (0, "n")):
            for y, yn in ((1, "y"), (0, "n")):
                expected = sum(1 for i in range(500) if label[i] == lab and a[i] == x and b[i] == y)
                assert table[name][xn + yn] == expected


# Seed 002, Table 7: per split, label-yes row then label-no row (8y→2y, 8y→2n, 8n→2y, 8n→2n).
TABLE_7 = {
    "adversarial": ((1174, 0, 264, 62), (182, 0, 660, 658), 0.8221, 0.7608),
    "popular": ((1191, 0, 250, 59), (112, 0, 567, 821), 0.8498, 0.7961),
    "random": ((1191, 0, 250, 59), (43, 0, 448, 1009), 0.8713, 0.8397),
}


def _items(yes_row, no_row):
    a, b, label = [], [], []
    for row, lab in ((yes_row, 1), (no_row, 0)):
        for (x, y), count in zip(((1, 1), (1, 0), (0, 1), (0, 0)), row, strict=True):
            a += [x] * count
            b += [y] * count
            label += [lab] * count
    return np.array(a), np.array(b), np.array(label)


@pytest.mark.parametrize("split", TABLE_7)
def test_closed_form_reconstructed_from_records_equals_observed_f1(split):
    yes_row, no_row, f1_eight, f1_two = TABLE_7[split]
    a, b, label = _items(yes_row, no_row)
    terms = transition_table(a, b, label).closed_form_terms()
    assert terms["b_flips_yes_to_no"] == 0 and terms["P"] == terms["N"] == 1500
    closed = f1_closed_form(
        terms["T"], terms["G"], terms["P"], terms["N"], terms["rho_n"], terms["phi"]
    )
    observed = binary_scores(b, label)
    assert closed.f1 == pytest.approx(observed.f1, abs=1e-12)
    assert (closed.tp, closed.fp, closed.fn, closed.tn) == pytest.approx(
        (observed.tp, observed.fp, observed.fn, observed.tn), abs=1e-9
    )
    assert round(closed.f1, 4) == f1_two
    reference = f1_closed_form(terms["T"], terms["G"], 1500, 1500, 0.0, 0.0)
    assert reference.f1 == pytest.approx(binary_scores(a, label).f1, abs=1e-12)
    assert round(reference.f1, 4) == f1_eight


def test_printed_adversarial_values_from_printed_counts():
    # "T=1,174, G=1,318, rho_N=660/1,318 and phi=264/326 ... reproduces F1_8=0.8221 and F1_2=0.7608"
    two = f1_closed_form(1174, 1318, 1500, 1500, 660 / 1318, 264 / 326)
    assert (two.tp, two.fp, two.fn, two.tn) == pytest.approx((1438, 842, 62, 658))
    assert round(two.f1, 4) == 0.7608
    assert (round(two.precision, 4), round(two.recall, 4), round(two.yes_rate, 3)) == (
        0.6307,
        0.9587,
        0.760,
    )
    assert round(f1_closed_form(1174, 1318, 1500, 1500, 0, 0).f1, 4) == 0.8221
    # "Set phi=0 and the lower bound is F1_2 = 2348/3516 = 0.6678"
    assert f1_closed_form(1174, 1318, 1500, 1500, 660 / 1318, 0).f1 == pytest.approx(2348 / 3516)
    # Popular and random: F1_2 = 2882/3620 and 2882/3432.
    assert f1_closed_form(1191, 1388, 1500, 1500, 567 / 1388, 250 / 309).f1 == pytest.approx(
        2882 / 3620
    )
    assert f1_closed_form(1191, 1457, 1500, 1500, 448 / 1457, 250 / 309).f1 == pytest.approx(
        2882 / 3432
    )
    # "Plugging the adversarial rates into the popular and random counts gives 0.7690 and 0.7761"
    rho, phi = 660 / 1318, 264 / 326
    assert round(f1_closed_form(1191, 1388, 1500, 1500, rho, phi).f1, 4) == 0.7690
    assert round(f1_closed_form(1191, 1457, 1500, 1500, rho, phi).f1, 4) == 0.7761


def test_closed_form_input_checks():
    with pytest.raises(ValueError, match="rho_n"):
        f1_closed_form(10, 10, 20, 20, 1.5, 0.1)
    with pytest.raises(ValueError, match="`T`"):
        f1_closed_form(30, 10, 20, 20, 0.5, 0.1)
    with pytest.raises(ValueError, match="equal length"):
        transition_table([1, 0], [1], [1, 0])


def test_closed_form_with_yes_to_no_flips_is_exact_on_random_records():
    """κ_P and κ_N make the reconstruction exact when b also reads some of a's yes as no."""
    rng = np.random.default_rng(11)
    for _ in range(20):
        a, b, label = (rng.integers(0, 2, 300) for _ in range(3))
        terms = transition_table(a, b, label).closed_form_terms()
        assert terms["b_flips_yes_to_no"] > 0
        closed = f1_closed_form(
            *(terms[k] for k in ("T", "G", "P", "N", "rho_n", "phi", "kappa_p", "kappa_n"))
        )
        observed = binary_scores(b, label)
        assert (closed.tp, closed.fp, closed.fn, closed.tn) == pytest.approx(
            (observed.tp, observed.fp, observed.fn, observed.tn), abs=1e-9
        )
        assert closed.f1 == pytest.approx(observed.f1, abs=1e-12)
        two_rate = f1_closed_form(*(terms[k] for k in ("T", "G", "P", "N", "rho_n", "phi")))
        assert two_rate.tp > observed.tp  # the paper's form overcounts when κ_P > 0
