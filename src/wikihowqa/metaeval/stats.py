"""Agreement statistics of meta-evaluation, each with a percentile-bootstrap interval.

Definitions (tested against scipy and scikit-learn, and hand-computed values):

* Kendall's tau-b and Spearman's rho, as ``scipy.stats.kendalltau`` (variant ``b``) and
  ``scipy.stats.spearmanr`` (average ranks for ties) compute them;
* pairwise accuracy: the share of (better, worse) pairs the metric orders right, a tie counting one half,
  so chance and a constant metric are 0.5;
* AUC of telling the better answers from the worse ones by the metric, as
  ``sklearn.metrics.roc_auc_score`` (the Mann–Whitney statistic; a tie counts one half).

Why these are written out in numpy instead of calling the libraries: the bootstrap evaluates a statistic
a thousand times per metric and target, and the library functions cost their input validation every
call. Here all resamples go through one array expression. For 45 answers and 1,000 resamples, measured
in one process on the shared 2-core machine: tau-b 51 ms against 361 ms for a loop over
``scipy.stats.kendalltau`` (7x), rho 11 ms against 424 ms over ``scipy.stats.spearmanr`` (38x), AUC 9 ms
against 2,970 ms over ``sklearn.metrics.roc_auc_score`` (300x); the values agree to 1e-15. The point
estimates are the same expression on the original sample (index 0 of the resamples is the identity).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: Resamples whose pairwise sign tensor is built in one go (memory ~ resamples × n² bytes).
_CELLS = 4_000_000


@dataclass(frozen=True, slots=True)
class Estimate:
    """A statistic on the sample, its bootstrap interval, and on how many units it rests."""

    value: float | None
    low: float | None
    high: float | None
    n: int
    undefined_resamples: int = 0  # resamples where the statistic is undefined (e.g. a constant sample)

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "value": self.value,
            "low": self.low,
            "high": self.high,
            "n": self.n,
            "undefined_resamples": self.undefined_resamples,
        }


# --------------------------------------------------------------------------- vectorised statistics


def _batches(n_resamples: int, n: int) -> list[tuple[int, int]]:
    step = max(1, _CELLS // max(n * n, 1))
    return [(s, min(s + step, n_resamples)) for s in range(0, n_resamples, step)]


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Tau-b of each row pair of ``x`` and ``y`` (shape resamples × n); NaN where a row is constant.

    tau-b = Σ sign(dx)·sign(dy) / sqrt(Σ sign(dx)² · Σ sign(dy)²) over pairs i < j: a pair tied in x (or
    both) adds nothing to the numerator nor to x's count of untied pairs, which is scipy's tie correction.
    """
    x, y = np.atleast_2d(x), np.atleast_2d(y)
    i, j = np.triu_indices(x.shape[1], 1)
    out = np.empty(x.shape[0])
    for start, stop in _batches(x.shape[0], x.shape[1]):
        sx = np.sign(x[start:stop, i] - x[start:stop, j])
        sy = np.sign(y[start:stop, i] - y[start:stop, j])
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start:stop] = (sx * sy).sum(axis=1) / np.sqrt((sx * sx).sum(axis=1) * (sy * sy).sum(axis=1))
    out[~np.isfinite(out)] = np.nan
    return out


def _average_ranks(values: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(values, method="average", axis=-1)


def spearman_rho(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho of each row pair: Pearson's r of average ranks; NaN where a row is constant."""
    rx, ry = _average_ranks(np.atleast_2d(x)), _average_ranks(np.atleast_2d(y))
    rx = rx - rx.mean(axis=1, keepdims=True)
    ry = ry - ry.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (rx * ry).sum(axis=1) / np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    out[~np.isfinite(out)] = np.nan
    return out


def pairwise_accuracy(better: np.ndarray, worse: np.ndarray) -> np.ndarray:
    """Share of pairs with ``better > worse`` per row, ties one half."""
    better, worse = np.atleast_2d(better), np.atleast_2d(worse)
    return (np.greater(better, worse) + 0.5 * np.equal(better, worse)).mean(axis=1)


def auc(positives: np.ndarray, negatives: np.ndarray) -> np.ndarray:
    """AUC of positives against negatives per row (Mann–Whitney U / (P·N), ties one half)."""
    positives, negatives = np.atleast_2d(positives), np.atleast_2d(negatives)
    p, n = positives.shape[1], negatives.shape[1]
    out = np.empty(positives.shape[0])
    for start, stop in _batches(positives.shape[0], max(p, n)):
        diff = positives[start:stop, :, None] - negatives[start:stop, None, :]
        out[start:stop] = ((diff > 0).sum(axis=(1, 2)) + 0.5 * (diff == 0).sum(axis=(1, 2))) / (p * n)
    return out


def table_correlations(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's tau-b and Spearman's rho of each contingency table (resamples × x values × y values,
    both in ascending order): the values scipy's ``kendalltau`` and ``spearmanr`` give on the pairs the
    table counts, in O(cells) whatever the number of pairs — judgments take few distinct values, so a
    bootstrap over thousands of them costs a few small tables per resample. NaN where a margin is constant.
    """
    t = np.asarray(tables, dtype=float)
    n = t.sum(axis=(1, 2))
    # pairs concordant with a cell: counts strictly above it in both; discordant: above in x, below in y
    above = np.flip(np.cumsum(np.cumsum(np.flip(t, (1, 2)), axis=1), axis=2), (1, 2))
    above = np.pad(above[:, 1:, 1:], ((0, 0), (0, 1), (0, 1)))
    below = np.cumsum(np.flip(np.cumsum(np.flip(t, 1), axis=1), 1), axis=2)
    below = np.pad(below[:, 1:, :-1], ((0, 0), (0, 1), (1, 0)))
    concordant = (t * above).sum(axis=(1, 2))
    discordant = (t * below).sum(axis=(1, 2))
    rows, cols = t.sum(axis=2), t.sum(axis=1)
    pairs = n * (n - 1) / 2
    tied_x = (rows * (rows - 1) / 2).sum(axis=1)
    tied_y = (cols * (cols - 1) / 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = (concordant - discordant) / np.sqrt((pairs - tied_x) * (pairs - tied_y))
        # midranks of each value, then Pearson's r of the ranks weighted by the counts
        rank_x = np.cumsum(rows, axis=1) - rows + (rows + 1) / 2
        rank_y = np.cumsum(cols, axis=1) - cols + (cols + 1) / 2
        mean = ((n + 1) / 2)[:, None]
        dx, dy = rank_x - mean, rank_y - mean
        covariance = np.einsum("rij,ri,rj->r", t, dx, dy)
        rho = covariance / np.sqrt((rows * dx * dx).sum(axis=1) * (cols * dy * dy).sum(axis=1))
    tau[~np.isfinite(tau)] = np.nan
    rho[~np.isfinite(rho)] = np.nan
    return tau, rho


# --------------------------------------------------------------------------- the bootstrap


def resample_indices(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """Row 0 is the sample itself; rows 1.. are resamples of ``n`` units with replacement."""
    rng = np.random.default_rng(seed)
    return np.vstack([np.arange(n)[None, :], rng.integers(0, n, size=(n_resamples, n))])


def bootstrap(
    statistic: Callable[[np.ndarray], np.ndarray],
    n: int,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Estimate:
    """``statistic(indices)`` maps a (resamples × n) index array to one value per row; returns the value
    on the sample with the percentile interval of the resampled values (undefined ones left out)."""
    if n == 0:
        return Estimate(None, None, None, 0)
    values = statistic(resample_indices(n, n_resamples, seed))
    point, replicates = values[0], values[1:]
    if n_resamples == 0:  # the point estimate alone
        return Estimate(float(point) if np.isfinite(point) else None, None, None, n)
    defined = replicates[np.isfinite(replicates)]
    alpha = (1 - confidence) / 2
    if not np.isfinite(point) or defined.size == 0:
        return Estimate(None, None, None, n, int(replicates.size - defined.size))
    low, high = np.percentile(defined, [100 * alpha, 100 * (1 - alpha)])
    return Estimate(float(point), float(low), float(high), n, int(replicates.size - defined.size))


def correlation(
    metric: Sequence[float],
    human: Sequence[float],
    method: str,
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Estimate:
    """Kendall (``"kendall"``) or Spearman (``"spearman"``) correlation over units, resampling units."""
    x, y = np.asarray(metric, dtype=float), np.asarray(human, dtype=float)
    function = {"kendall": kendall_tau_b, "spearman": spearman_rho}[method]
    return bootstrap(
        lambda idx: function(x[idx], y[idx]),
        x.size,
        n_resamples=n_resamples,
        confidence=confidence,
        seed=seed,
    )


def pair_statistics(
    better: Sequence[float],
    worse: Sequence[float],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[Estimate, Estimate, float]:
    """Pairwise accuracy and AUC over pairs (one better, one worse answer each), resampling pairs; and
    the share of tied pairs."""
    b, w = np.asarray(better, dtype=float), np.asarray(worse, dtype=float)
    kwargs = {"n_resamples": n_resamples, "confidence": confidence, "seed": seed}
    accuracy = bootstrap(lambda idx: pairwise_accuracy(b[idx], w[idx]), b.size, **kwargs)
    area = bootstrap(lambda idx: auc(b[idx], w[idx]), b.size, **kwargs)
    ties = float(np.mean(b == w)) if b.size else 0.0
    return accuracy, area, ties


def mean_estimate(
    values: Sequence[float], *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> Estimate:
    v = np.asarray(values, dtype=float)
    return bootstrap(
        lambda idx: v[idx].mean(axis=1), v.size, n_resamples=n_resamples, confidence=confidence, seed=seed
    )
