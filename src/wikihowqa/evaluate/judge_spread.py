"""How much the judge's verdicts vary when the same answer is judged K times (``--judge-samples K``).

A judge sampled at a temperature above 0 (or a server that is not deterministic at 0) gives different
scores to the same answer; a score difference between systems smaller than this spread says little. Per
system and criterion: the mean over questions of the per-question sample standard deviation (n − 1) of the
parsed samples, and the share of questions whose samples do not all agree — over the questions with at
least two parsed samples.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Spread:
    """One criterion's spread over one system's questions (``None``: no question had two parsed samples)."""

    mean_sd: float | None
    disagree_share: float | None
    questions: int  # questions with at least two parsed samples

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def spread(samples: Sequence[Sequence[float | None]]) -> Spread:
    """``samples[q]``: the K scores of question q (``None`` or NaN where a reply was unparseable)."""
    sds, disagree = [], 0
    for scores in samples:
        parsed = [float(v) for v in scores if v is not None and math.isfinite(v)]
        if len(parsed) < 2:
            continue
        sds.append(statistics.stdev(parsed))
        disagree += len(set(parsed)) > 1
    if not sds:
        return Spread(None, None, 0)
    return Spread(statistics.fmean(sds), disagree / len(sds), len(sds))


def mean_of_samples(scores: Sequence[float | None]) -> float:
    """A question's score: the mean of its parsed samples (NaN when none parsed)."""
    parsed = [float(v) for v in scores if v is not None and math.isfinite(v)]
    return statistics.fmean(parsed) if parsed else math.nan
