"""The article-extraction benchmark's score: 4-gram shingle overlap of extracted and true article text.

Defined by Scrapinghub's article-extraction-benchmark (the score trafilatura's published 0.958 F1 uses):
texts are tokenized with ``\\w+`` (case kept) and cut into 4-token shingles counted as multisets; per page
TP/FP/FN are normalised to sum to 1 so long pages weigh no more than short ones; precision is averaged over
pages that predicted something, recall over pages that have truth, and F1 comes from the two means.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_TOKEN = re.compile(r"\w+")
SHINGLE = 4


@dataclass(frozen=True, slots=True)
class PageCounts:
    """One page's shingle matches, normalised so that ``tp + fp + fn == 1`` (or all zero)."""

    tp: float
    fp: float
    fn: float

    @property
    def precision(self) -> float:
        if self.fp == self.fn == 0:
            return 1.0
        return 0.0 if self.tp == self.fp == 0 else self.tp / (self.tp + self.fp)

    @property
    def recall(self) -> float:
        if self.fp == self.fn == 0:
            return 1.0
        return 0.0 if self.tp == self.fn == 0 else self.tp / (self.tp + self.fn)


@dataclass(frozen=True, slots=True)
class Score:
    precision: float
    recall: float
    f1: float
    pages: int


def shingles(text: str | None, n: int = SHINGLE) -> Counter[tuple[str, ...]]:
    """Multiset of ``n``-token shingles; a text shorter than ``n`` tokens is one short shingle."""
    tokens = _TOKEN.findall(text or "")
    if len(tokens) < n:
        return Counter([tuple(tokens)] if tokens else [])
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def page_counts(true: str | None, pred: str | None, n: int = SHINGLE) -> PageCounts:
    truth, guess = shingles(true, n), shingles(pred, n)
    tp = sum((truth & guess).values())
    fp = sum((guess - truth).values())
    fn = sum((truth - guess).values())
    total = tp + fp + fn
    if total == 0:
        return PageCounts(0.0, 0.0, 0.0)
    return PageCounts(tp / total, fp / total, fn / total)


def score(pages: Iterable[PageCounts]) -> Score:
    """Corpus score: mean precision (pages with a prediction) and mean recall (pages with truth)."""
    pages = list(pages)
    precisions = [p.precision for p in pages if p.tp + p.fp > 0]
    recalls = [p.recall for p in pages if p.tp + p.fn > 0]
    precision = sum(precisions) / len(precisions) if precisions else 0.0
    recall = sum(recalls) / len(recalls) if recalls else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Score(precision, recall, f1, len(pages))


def evaluate(truth: dict[str, str], predicted: dict[str, str | None]) -> Score:
    """Score predictions against truth, both keyed by page id; a missing prediction counts as empty."""
    return score(page_counts(truth[key], predicted.get(key)) for key in truth)
