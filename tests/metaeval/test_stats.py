"""The agreement statistics equal scipy's and scikit-learn's definitions, and hand-computed values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr
from sklearn.metrics import roc_auc_score

from wikihowqa.metaeval import stats


def test_tau_b_and_rho_match_scipy_with_ties_and_resampled_duplicates():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, 30).astype(float)  # many ties
    y = x + rng.normal(0, 1.5, 30)
    y[::5] = y[0]  # ties in y too
    idx = stats.resample_indices(30, 50, seed=1)
    taus = stats.kendall_tau_b(x[idx], y[idx])
    rhos = stats.spearman_rho(x[idx], y[idx])
    for row, tau, rho in zip(idx, taus, rhos, strict=True):
        assert tau == pytest.approx(kendalltau(x[row], y[row]).statistic, abs=1e-12)
        assert rho == pytest.approx(spearmanr(x[row], y[row]).statistic, abs=1e-12)


def test_tau_by_hand():
    # pairs of (1,2,3) vs (1,3,2): (1,2) concordant, (1,3) concordant, (2,3) discordant → (2-1)/3
    assert stats.kendall_tau_b(np.array([1.0, 2, 3]), np.array([1.0, 3, 2]))[0] == pytest.approx(1 / 3)
    # a constant sample has no tau
    assert np.isnan(stats.kendall_tau_b(np.array([1.0, 1, 1]), np.array([1.0, 2, 3]))[0])


def test_auc_matches_sklearn_and_pairwise_accuracy_counts_ties_half():
    rng = np.random.default_rng(0)
    pos = np.round(rng.normal(1, 1, 25), 1)
    neg = np.round(rng.normal(0, 1, 25), 1)  # rounding makes ties
    expected = roc_auc_score([1] * 25 + [0] * 25, np.r_[pos, neg])
    assert stats.auc(pos[None, :], neg[None, :])[0] == pytest.approx(expected, abs=1e-12)
    better, worse = np.array([3.0, 2, 1, 5]), np.array([1.0, 2, 4, 0])  # right, tie, wrong, right
    assert stats.pairwise_accuracy(better[None, :], worse[None, :])[0] == pytest.approx(2.5 / 4)


def test_bootstrap_interval_is_the_percentile_interval_of_scipy():
    from scipy.stats import bootstrap

    values = np.random.default_rng(5).normal(0, 1, 40)
    ours = stats.mean_estimate(values, n_resamples=2000, seed=0)
    theirs = bootstrap((values,), np.mean, n_resamples=2000, method="percentile", random_state=0)
    assert ours.value == pytest.approx(values.mean())
    # different random streams: the two intervals agree to Monte Carlo error
    assert ours.low == pytest.approx(theirs.confidence_interval.low, abs=0.05)
    assert ours.high == pytest.approx(theirs.confidence_interval.high, abs=0.05)


@pytest.mark.parametrize("r", [0.0, 0.5, 0.8])
def test_planted_bivariate_normal_correlation_is_recovered_within_the_interval(r):
    """For a bivariate normal with correlation r, tau = 2/π·asin(r) and rho = 6/π·asin(r/2) (Kruskal,
    1958): the population values must lie in the 95% intervals of a sample of 200."""
    rng = np.random.default_rng(11)
    z = rng.multivariate_normal([0, 0], [[1, r], [r, 1]], size=200)
    tau = stats.correlation(z[:, 0], z[:, 1], "kendall", n_resamples=1000, seed=0)
    rho = stats.correlation(z[:, 0], z[:, 1], "spearman", n_resamples=1000, seed=0)
    assert tau.low <= 2 / np.pi * np.arcsin(r) <= tau.high
    assert rho.low <= 6 / np.pi * np.arcsin(r / 2) <= rho.high
    assert tau.high - tau.low < 0.25  # and the interval says something


def test_empty_and_point_only_estimates():
    assert stats.correlation([], [], "kendall").value is None
    point = stats.correlation([1.0, 2, 3], [1.0, 2, 4], "kendall", n_resamples=0)
    assert point.value == pytest.approx(1.0) and point.low is None


def test_tau_b_and_rho_of_a_contingency_table_match_scipy_on_the_pairs_it_counts():
    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(100):
        n = int(rng.integers(2, 60))
        x = rng.integers(0, int(rng.integers(1, 6)), n) / 2  # half steps, as a mean of two ratings
        y = rng.integers(0, int(rng.integers(1, 6)), n)
        xs, ys = np.unique(x), np.unique(y)
        table = np.zeros((1, xs.size, ys.size))
        np.add.at(table[0], (np.searchsorted(xs, x), np.searchsorted(ys, y)), 1)
        tau, rho = stats.table_correlations(table)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scipy warns on a constant input, and answers NaN
            expected_tau, expected_rho = kendalltau(x, y).statistic, spearmanr(x, y).statistic
        if np.isnan(expected_tau):
            assert np.isnan(tau[0]) and np.isnan(rho[0])
            continue
        assert tau[0] == pytest.approx(expected_tau, abs=1e-12)
        assert rho[0] == pytest.approx(expected_rho, abs=1e-12)
        checked += 1
    assert checked > 50
