"""The extraction benchmarks' scores: the article-extraction benchmark's 4-gram shingle F1, and the
web-extraction benchmark's word F1 with its must-contain / must-not-contain snippets (:func:`word_score`).

Shingle F1, defined by Scrapinghub's article-extraction-benchmark (the score of trafilatura's published
0.958): texts are tokenized with ``\\w+`` (case kept) and cut into 4-token shingles counted as multisets;
per page TP/FP/FN are normalised to sum to 1 so long pages weigh no more than short ones; precision is
averaged over pages that predicted something, recall over pages that have truth, and F1 comes from the two
means.
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


# ------------------------------------------------------- the web-extraction benchmark (WCXB)

_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class WordScore:
    """One page's word-level scores against its reference, and its snippet checks."""

    f1: float
    precision: float
    recall: float
    found: int  # ``with`` snippets found in the extracted text
    wanted: int  # ``with`` snippets given
    avoided: int  # ``without`` snippets absent from it
    unwanted: int  # ``without`` snippets given


def word_score(
    reference: str, extracted: str | None, with_: Iterable[str] = (), without: Iterable[str] = ()
) -> WordScore:
    """Word F1 as the web-extraction benchmark defines it: ``\\w+`` words of the lowercased texts counted
    as multisets, precision = overlap / extracted words, recall = overlap / reference words; an empty
    extraction scores 0 (and an empty one against an empty reference 1). Snippets are case-insensitive
    substring checks."""
    truth = Counter(_WORD.findall(reference.lower()))
    guess = Counter(_WORD.findall((extracted or "").lower()))
    n_truth, n_guess = sum(truth.values()), sum(guess.values())
    if not n_truth and not n_guess:
        precision = recall = f1 = 1.0
    elif not n_truth or not n_guess:
        precision = recall = f1 = 0.0
    else:
        overlap = sum((truth & guess).values())
        precision, recall = overlap / n_guess, overlap / n_truth
        f1 = 2 * precision * recall / (precision + recall) if overlap else 0.0
    text = (extracted or "").lower()
    with_, without = list(with_), list(without)
    found = sum(snippet.lower() in text for snippet in with_)
    avoided = sum(snippet.lower() not in text for snippet in without)
    return WordScore(f1, precision, recall, found, len(with_), avoided, len(without))


@dataclass(frozen=True, slots=True)
class WordSummary:
    f1: float
    precision: float
    recall: float
    with_rate: float  # share of ``with`` snippets found, over all pages' snippets
    without_rate: float  # share of ``without`` snippets avoided
    pages: int


def summarise(scores: Iterable[WordScore]) -> WordSummary:
    """Means over pages of F1, precision and recall; snippet rates pooled over the pages' snippets."""
    scores = list(scores)
    n = len(scores) or 1
    wanted = sum(s.wanted for s in scores)
    unwanted = sum(s.unwanted for s in scores)
    return WordSummary(
        sum(s.f1 for s in scores) / n,
        sum(s.precision for s in scores) / n,
        sum(s.recall for s in scores) / n,
        sum(s.found for s in scores) / wanted if wanted else 1.0,
        sum(s.avoided for s in scores) / unwanted if unwanted else 1.0,
        len(scores),
    )
