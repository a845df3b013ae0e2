"""Exact tests against scipy and statsmodels, and values printed in seed 004."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from readout_audit.stats import (
    fisher_exact,
    holm,
    intersection_union_test,
    mcnemar_exact,
    sign_flip_test,
)


@pytest.mark.parametrize(("b", "c"), [(5, 3), (0, 0), (12, 12), (272, 224), (1, 40), (300, 250)])
def test_mcnemar_equals_statsmodels_and_binomtest(b, c):
    expected = mcnemar([[0, b], [c, 0]], exact=True).pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-10, abs=1e-300)
    if b + c:
        binom = scipy.stats.binomtest(b, b + c, 0.5).pvalue
        assert mcnemar_exact(b, c) == pytest.approx(binom, rel=1e-10)


def test_mcnemar_values_printed_in_the_seed_papers():
    assert mcnemar_exact(50, 0) == 2 * 2.0**-50  # exact: 1.7763568394002505e-15
    assert mcnemar_exact(31, 0) == 2 * 2.0**-31  # two-sided; the one-sided value is 2**-31
    # Seed 004: "32 forward and zero reverse ... exact two-sided McNemar ... 2^-31 = 4.6566e-10"
    assert f"{mcnemar_exact(32, 0):.4e}" == "4.6566e-10"
    assert mcnemar_exact(6, 0) == 0.03125  # pilot: "descriptive exact paired p=.03125"
    assert round(mcnemar_exact(272, 224), 3) == 0.035  # seed 003, Table 2, first row


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_fisher_equals_scipy(seed, alternative):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 30, size=(2, 2))
    ours = fisher_exact(table, alternative)
    theirs = scipy.stats.fisher_exact(table, alternative=alternative)
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-10)
    if table[0, 1] * table[1, 0]:
        assert ours.odds_ratio == pytest.approx(theirs.statistic, rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_holm_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    p = rng.random(int(rng.integers(1, 30))) ** 3
    expected = multipletests(p, method="holm")[1]
    np.testing.assert_allclose(holm(p), expected, rtol=1e-12, atol=1e-15)


def test_holm_values_printed_in_seed_004():
    # Six-test family: 50/0 and 47/0 discordances, four contrasts with p = 1.
    adjusted = holm([mcnemar_exact(50, 0), mcnemar_exact(47, 0), 1, 1, 1, 1])
    assert f"{adjusted[0]:.2e}" == "1.07e-14" and f"{adjusted[1]:.2e}" == "7.11e-14"
    # Bootstrap floor 1/50,000 across seventeen tests: .00034.
    assert holm([1 / 50_000] + [1.0] * 16)[0] == pytest.approx(0.00034)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", range(4))
def test_exact_sign_flip_equals_scipy_permutation_test(seed, alternative):
    rng = np.random.default_rng(seed)
    diffs = np.round(rng.normal(0.3, 1, size=int(rng.integers(3, 13))), 1)
    ours = sign_flip_test(diffs, alternative)
    theirs = scipy.stats.permutation_test(
        (diffs,),
        np.sum,
        permutation_type="samples",
        alternative=alternative,
        n_resamples=np.inf,
    )
    assert ours.exact and ours.n_assignments == 2**diffs.size
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-10)


def test_sign_flip_full_enumeration_at_24_and_the_printed_floor():
    # Seed 004: 15 nonzero source differences under X, 5 under Y, among 24 sources;
    # the intersection-union p-value cannot fall below .03125 and is .0625 at Holm rank 3 of 4.
    x = np.r_[np.full(15, 0.25), np.zeros(9)]
    y = np.r_[np.full(5, -0.1), np.zeros(19)]
    p_x = sign_flip_test(x, "greater")
    p_y = sign_flip_test(y, "less")
    assert p_x.exact and p_x.n_assignments == 2**24
    assert p_x.p_value == 2.0**-15 and p_y.p_value == 2.0**-5
    joint = intersection_union_test(p_x.p_value, p_y.p_value)
    assert joint == 0.03125
    assert holm([1e-6, 1e-5, joint, 0.9])[2] == pytest.approx(0.0625)


def test_monte_carlo_sign_flip_beyond_24_matches_the_binomial_null():
    diffs = np.r_[np.ones(28), -np.ones(12)]  # T* = 2K - 40 with K ~ Binomial(40, 1/2)
    result = sign_flip_test(diffs, "greater", n_resamples=200_000, seed=1)
    exact = scipy.stats.binom.sf(27, 40, 0.5)
    assert not result.exact
    assert abs(result.p_value - exact) < 4 * np.sqrt(exact * (1 - exact) / 200_000) + 1e-5


def test_exact_test_input_checks():
    with pytest.raises(ValueError, match="non-negative integer"):
        mcnemar_exact(-1, 3)
    with pytest.raises(ValueError, match="2x2"):
        fisher_exact([[1, 2, 3]])
    with pytest.raises(ValueError, match=r"p-values in \[0, 1\]"):
        holm([0.5, 1.2])
    with pytest.raises(ValueError, match="alternative"):
        sign_flip_test([1.0, 2.0], "bigger")
    with pytest.raises(ValueError, match="finite"):
        sign_flip_test([1.0, float("nan")])
    with pytest.raises(ValueError, match="replicates"):
        sign_flip_test(np.ones(30), n_resamples=0)
    with pytest.raises(ValueError, match="p_b"):
        intersection_union_test(0.1, 2)
