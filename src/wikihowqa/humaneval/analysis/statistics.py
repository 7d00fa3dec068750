"""The statistics of the human evaluation, pure functions of numbers: intervals, tests, agreement."""

from __future__ import annotations

import itertools
import warnings
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion (scipy's implementation)."""
    if n == 0:
        return None
    from scipy.stats import binomtest  # heavy: scipy (seconds to import), only when a CI is computed

    ci = binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def sign_test(wins: int, losses: int) -> float | None:
    """Two-sided exact sign test of wins against losses, ties left out."""
    if wins + losses == 0:
        return None
    from scipy.stats import binomtest  # heavy: scipy

    return float(binomtest(wins, wins + losses, 0.5).pvalue)


def student_t(a: Sequence[float], b: Sequence[float]) -> dict[str, float] | None:
    """Student's two-sample t-test with pooled variance (the paper's test)."""
    if len(a) < 2 or len(b) < 2:
        return None
    from scipy.stats import ttest_ind  # heavy: scipy (seconds to import), only when a test is computed

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant samples: reported as no test below
        res = ttest_ind(b, a, equal_var=True)
    if not np.isfinite(res.statistic):
        return None
    return {"t": float(res.statistic), "p": float(res.pvalue), "df": len(a) + len(b) - 2}


def overlap_coefficient(a: set[str], b: set[str]) -> float | None:
    if not a or not b:
        return None
    return len(a & b) / min(len(a), len(b))


def cohen_kappa(r1: Sequence[int], r2: Sequence[int], weights: str | None = None) -> float:
    """Cohen's kappa exactly as ``sklearn.metrics.cohen_kappa_score`` defines it (weights on label
    indices; tested equal to it). Written out because sklearn's input validation dominates on the short
    rating vectors of assessor pairs, and a crowd study has thousands of pairs: 0.32 ms against 7.6 ms a
    pair, 23x (benchmarks/humaneval_kappa.py, 2,000 pairs, same run)."""
    labels, inverse = np.unique(np.concatenate([np.asarray(r1), np.asarray(r2)]), return_inverse=True)
    k = len(labels)
    a, b = inverse[: len(r1)], inverse[len(r1) :]
    confusion = np.zeros((k, k))
    np.add.at(confusion, (a, b), 1)
    expected = np.outer(confusion.sum(axis=1), confusion.sum(axis=0)) / confusion.sum()
    if weights is None:
        w = 1.0 - np.eye(k)
    else:
        grid = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
        w = grid if weights == "linear" else grid**2
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(1 - (w * confusion).sum() / (w * expected).sum())


def mean_pairwise_kappa(
    ratings: Mapping[Any, Mapping[str, int]], *, min_common: int = 2, weights: str | None = None
) -> tuple[float | None, int]:
    """Mean Cohen's kappa over assessor pairs sharing ``min_common`` or more items; pairs whose kappa is
    undefined (both constant on the same value) are left out. Returns (mean, pairs used)."""
    by_assessor: dict[str, dict[Any, int]] = defaultdict(dict)
    for item, row in ratings.items():
        for assessor, value in row.items():
            by_assessor[assessor][item] = value
    kappas = []
    for x, y in itertools.combinations(sorted(by_assessor), 2):
        common = set(by_assessor[x]) & set(by_assessor[y])
        if len(common) < min_common:
            continue
        ordered = sorted(common, key=str)
        r1 = [by_assessor[x][i] for i in ordered]
        r2 = [by_assessor[y][i] for i in ordered]
        if len(set(r1) | set(r2)) < 2:
            continue  # perfect agreement on a single value: kappa is 0/0
        k = cohen_kappa(r1, r2, weights)
        if np.isfinite(k):
            kappas.append(k)
    return (float(np.mean(kappas)) if kappas else None), len(kappas)


def krippendorff_alpha(
    ratings: Mapping[Any, Mapping[str, int]], level: str, domain: Sequence[int] | None = None
) -> float | None:
    """Krippendorff's alpha (the ``krippendorff`` package) over an assessors × items matrix with gaps."""
    import krippendorff  # heavy: imports scipy

    assessors = sorted({a for row in ratings.values() for a in row})
    items = [i for i, row in ratings.items() if len(row) >= 2]
    if len(items) < 1 or len(assessors) < 2:
        return None
    matrix = np.full((len(assessors), len(items)), np.nan)
    index = {a: k for k, a in enumerate(assessors)}
    for j, item in enumerate(items):
        for a, value in ratings[item].items():
            matrix[index[a], j] = value
    values = set(np.unique(matrix[~np.isnan(matrix)]).tolist())
    if len(values) < 2:
        return None
    try:
        alpha = krippendorff.alpha(
            reliability_data=matrix,
            level_of_measurement=level,
            value_domain=list(domain) if domain is not None and level != "interval" else None,
        )
    except (ValueError, ZeroDivisionError):
        return None
    return float(alpha) if np.isfinite(alpha) else None


def summarise(values: Sequence[float]) -> dict[str, Any]:
    """n, mean, sd, median and quartiles of a sample ("describe" is the dataset-statistics stage)."""
    if not values:
        return {"n": 0, "mean": None}
    arr = np.asarray(values, dtype=float)
    return {
        "n": len(values),
        "mean": float(arr.mean()),
        "sd": float(arr.std(ddof=1)) if len(arr) > 1 else None,
        "median": float(np.median(arr)),
        "p25": float(np.percentile(arr, 25)),
        "p75": float(np.percentile(arr, 75)),
    }


def proportion(k: int, n: int) -> dict[str, Any]:
    ci = wilson_interval(k, n)
    return {"count": k, "n": n, "share": k / n if n else None, "ci95": list(ci) if ci else None}
