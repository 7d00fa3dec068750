"""Significance tests agree with scipy.stats on the same data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from wikihowqa.evaluate import significance


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_permutation_pvalue_equals_scipy_for_few_questions(seed):
    rng = np.random.default_rng(seed)
    a = rng.random(11)
    b = a - 0.15 + rng.normal(0, 0.2, 11)
    expected = stats.permutation_test(
        (a, b), _mean_diff, permutation_type="samples", vectorized=True, n_resamples=10_000
    ).pvalue
    assert significance.permutation_pvalue(a, b, n_resamples=10_000) == pytest.approx(expected, abs=1e-12)


def test_exact_permutation_pvalue_handles_ties_like_scipy():
    a = np.array([0.5, 0.25, 0.75, 0.5, 0.5])
    b = np.array([0.25, 0.5, 0.5, 0.25, 0.5])
    expected = stats.permutation_test((a, b), _mean_diff, permutation_type="samples", vectorized=True).pvalue
    assert significance.permutation_pvalue(a, b) == pytest.approx(expected, abs=1e-12)


def test_monte_carlo_permutation_pvalue_close_to_scipy_for_many_questions():
    rng = np.random.default_rng(5)
    a = rng.random(300)
    b = a - 0.02 + rng.normal(0, 0.2, 300)
    expected = stats.permutation_test(
        (a, b), _mean_diff, permutation_type="samples", vectorized=True, n_resamples=20_000, rng=1
    ).pvalue
    ours = significance.permutation_pvalue(a, b, n_resamples=20_000, seed=3)
    assert 0.01 < expected < 0.9  # a case where the p-value is neither 0 nor 1
    assert ours == pytest.approx(expected, abs=0.02)


def test_bootstrap_interval_close_to_scipy_percentile_bootstrap():
    rng = np.random.default_rng(9)
    scores = rng.beta(2, 5, 400)
    expected = stats.bootstrap(
        (scores,), np.mean, method="percentile", n_resamples=20_000, rng=2
    ).confidence_interval
    ours = significance.bootstrap_ci(scores, n_resamples=20_000, seed=4)
    assert ours.mean == pytest.approx(scores.mean())
    width = expected.high - expected.low
    assert ours.low == pytest.approx(expected.low, abs=0.03 * width)
    assert ours.high == pytest.approx(expected.high, abs=0.03 * width)


def test_paired_comparison_finds_a_real_difference_and_not_a_null_one():
    rng = np.random.default_rng(0)
    base = rng.random(500)
    better = base + 0.05 + rng.normal(0, 0.05, 500)
    real = significance.compare(better, base, n_resamples=2_000)
    assert real.delta > 0 and real.low > 0
    assert real.p_bootstrap < 0.01 and real.p_permutation < 0.01
    same = significance.compare(base, base, n_resamples=2_000)
    assert same.delta == 0 and same.p_bootstrap == 1.0 and same.p_permutation == 1.0


def test_bootstrap_pvalue_below_alpha_exactly_when_interval_excludes_zero():
    rng = np.random.default_rng(1)
    for shift in (0.0, 0.01, 0.02, 0.05):
        a = rng.random(200)
        b = a - shift + rng.normal(0, 0.1, 200)
        result = significance.compare(a, b, n_resamples=4_000, seed=2)
        excludes_zero = result.low > 0 or result.high < 0
        at_boundary = abs(result.p_bootstrap - 0.05) < 1e-3  # percentile interpolation may tip either way
        assert (result.p_bootstrap < 0.05) == excludes_zero or at_boundary


def test_unequal_lengths_are_rejected():
    with pytest.raises(ValueError, match="differ in length"):
        significance.compare([0.1, 0.2], [0.1])


@pytest.mark.parametrize(
    "diff",
    [[0.25, -0.125, 0.5], [0.5, 0.25, -0.375, 0.125], [0.5, -0.25, 0.75, -0.5, 0.125]],
    ids=["n=3", "n=4", "n=5"],
)
def test_bootstrap_pvalue_matches_exact_enumeration_of_every_resample(diff):
    """For n ≤ 5 all n**n resamples can be listed: the Monte-Carlo p-value must agree within its error."""
    import itertools

    n = len(diff)
    d = np.array(diff)  # dyadic fractions: every resample's sum is exact, so ties at 0 are counted exactly
    means = np.array([d[list(idx)].sum() / n for idx in itertools.product(range(n), repeat=n)])
    tail = min(np.mean(means <= 0), np.mean(means >= 0))
    exact = min(1.0, 2 * tail)
    resamples = 40_000
    result = significance.compare(d + 0.5, np.full(n, 0.5), n_resamples=resamples, seed=3)
    error = 2 * np.sqrt(tail * (1 - tail) / resamples)  # sd of 2 × a Monte-Carlo tail share
    assert 0.2 < exact < 0.9  # neither 0 nor 1, so a factor of 2 anywhere would show
    assert result.p_bootstrap == pytest.approx(exact, abs=4 * error)


def test_bootstrap_pvalue_of_a_shift_between_z_1_64_and_1_96_is_between_0_05_and_0_10():
    """The bootstrap distribution of a mean is near normal: a shift of 1.8 standard errors is p ≈ 0.072."""
    rng = np.random.default_rng(4)
    n = 400
    noise = rng.normal(0, 1, n)
    noise = (noise - noise.mean()) / noise.std()  # mean 0, sd 1 exactly (ddof 0, as the bootstrap sees it)
    z = 1.8
    diff = 0.1 * noise + z * 0.1 / np.sqrt(n)
    result = significance.compare(diff + 0.5, np.full(n, 0.5), n_resamples=20_000, seed=5)
    expected = 2 * stats.norm.sf(z)
    assert 0.05 < result.p_bootstrap < 0.10
    assert result.p_bootstrap == pytest.approx(expected, abs=0.012)
