"""Confidence intervals and paired significance tests on per-question scores.

Systems answer the same questions, so comparisons are paired: the bootstrap resamples questions and
the permutation test swaps the two systems' scores within a question (sign flips of the difference).
The permutation p-value follows ``scipy.stats.permutation_test(permutation_type="samples")`` exactly,
including its exact enumeration for few questions; written here in numpy because scipy's generic
version evaluates a Python statistic per batch and holds the whole null distribution (checked against
scipy in the tests).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 10_000
_BATCH = 500


@dataclass(frozen=True, slots=True)
class Interval:
    """A statistic (the mean) with its percentile-bootstrap confidence interval."""

    mean: float
    low: float
    high: float
    confidence: float


@dataclass(frozen=True, slots=True)
class PairedComparison:
    """System A minus system B on the same questions."""

    n: int
    delta: float  # mean(a - b)
    low: float  # bootstrap CI of delta
    high: float
    p_bootstrap: float
    p_permutation: float
    resamples: int


def _array(scores: Sequence[float]) -> np.ndarray:
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("scores must be a non-empty 1-d sequence")
    if not np.all(np.isfinite(values)):
        raise ValueError("scores must be finite numbers")
    return values


def bootstrap_means(values: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``n_resamples`` resamples (with replacement) of ``values``, in batches to bound memory."""
    n = values.size
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, _BATCH):
        stop = min(start + _BATCH, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[idx].mean(axis=1)
    return means


def bootstrap_ci(
    scores: Sequence[float],
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap interval of the mean (as ``scipy.stats.bootstrap(method="percentile")``)."""
    values = _array(scores)
    means = bootstrap_means(values, n_resamples, np.random.default_rng(seed))
    alpha = (1 - confidence) / 2
    low, high = np.percentile(means, [100 * alpha, 100 * (1 - alpha)])
    return Interval(float(values.mean()), float(low), float(high), confidence)


def _sign_flip_null(diff: np.ndarray, n_resamples: int, rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """Null distribution of mean(diff) under random sign flips; exhaustive when 2**n fits in n_resamples."""
    n = diff.size
    if n < 63 and 2**n <= n_resamples:
        codes = np.arange(2**n, dtype=np.int64)
        # bit k of the code decides whether question k's pair is swapped (scipy enumerates all of them)
        flips = ((codes[:, None] >> np.arange(n)) & 1).astype(bool)
        signs = np.where(flips, -1.0, 1.0)
        return (signs * diff).mean(axis=1), True
    null = np.empty(n_resamples)
    for start in range(0, n_resamples, _BATCH):
        stop = min(start + _BATCH, n_resamples)
        signs = rng.integers(0, 2, size=(stop - start, n)) * 2.0 - 1.0
        null[start:stop] = (signs * diff).mean(axis=1)
    return null, False


def permutation_pvalue(
    a: Sequence[float], b: Sequence[float], *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> float:
    """Two-sided paired permutation test of mean(a - b) = 0, with scipy's p-value convention."""
    x, y = _array(a), _array(b)
    if x.size != y.size:
        raise ValueError(f"paired scores differ in length: {x.size} and {y.size}")
    diff = x - y
    observed = diff.mean()
    null, exact = _sign_flip_null(diff, n_resamples, np.random.default_rng(seed))
    adjustment = 0 if exact else 1
    count = null.size if exact else n_resamples
    gamma = abs(np.finfo(np.float64).eps * 100 * observed)  # scipy's tolerance for numerically equal values
    p_less = (np.count_nonzero(null <= observed + gamma) + adjustment) / (count + adjustment)
    p_greater = (np.count_nonzero(null >= observed - gamma) + adjustment) / (count + adjustment)
    return float(np.clip(2 * min(p_less, p_greater), 0.0, 1.0))


def compare(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> PairedComparison:
    """Paired bootstrap (CI of the difference, p-value) and paired permutation test of A against B.

    The bootstrap p-value is two-sided, ``2 · min(P*(δ ≤ 0), P*(δ ≥ 0))`` over the resampled mean
    differences, so it is below 1 - confidence exactly when the percentile interval excludes 0.
    """
    x, y = _array(a), _array(b)
    if x.size != y.size:
        raise ValueError(f"paired scores differ in length: {x.size} and {y.size}")
    diff = x - y
    rng = np.random.default_rng(seed)
    deltas = bootstrap_means(diff, n_resamples, rng)
    alpha = (1 - confidence) / 2
    low, high = np.percentile(deltas, [100 * alpha, 100 * (1 - alpha)])
    p_boot = min(1.0, 2 * min(np.mean(deltas <= 0), np.mean(deltas >= 0)))
    return PairedComparison(
        n=int(x.size),
        delta=float(diff.mean()),
        low=float(low),
        high=float(high),
        p_bootstrap=float(p_boot),
        p_permutation=permutation_pvalue(x, y, n_resamples=n_resamples, seed=seed + 1),
        resamples=n_resamples,
    )
