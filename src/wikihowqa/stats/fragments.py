"""Extractive fragments, coverage, density and compression (Grusky et al., 2018), fast and exact.

The definition is the Newsroom package's ``Fragments`` class (``newsroom/analyze/fragments.py``):
spaCy English tokens, lowercased; for each summary position, scan the article left to right, and at
each position where the current summary token occurs take the length of the common run, keep the
first longest, and resume the scan *after* that run (so an occurrence inside a run already matched
is skipped, which can miss a longer match); then advance the summary by the kept length, or by one.
coverage = Σ|f| / |S|, density = Σ|f|² / |S|, compression = |A| / |S|. For several documents the
article is the documents concatenated (Fabbri et al., 2019), here joined by a blank line.

The reference scan costs O(|S|·|A|) per summary. Here the same scan runs only over the positions of
the summary token in the article, and the run lengths of all (summary position, occurrence) pairs are
computed at once with numpy; only a summary position whose candidate runs overlap is replayed
step by step. The fragments are identical (property-tested against a brute-force scan).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import repeat
from typing import NamedTuple

import numpy as np

from wikihowqa.stats.tokens import _spacy_tokenizer, spacy_tokens

#: How the documents of one question are joined into the "article" of the reference metrics.
DOCUMENT_JOINER = "\n\n"


class Match(NamedTuple):
    """One extractive fragment: its start in the summary and in the text, and its length in tokens."""

    summary: int
    text: int
    length: int


def encode(summary: Sequence[Hashable], text: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """Integer ids for both token sequences: 1.. for summary tokens, 0 for text tokens not in the summary."""
    ids: dict[Hashable, int] = {}
    for token in summary:
        if token not in ids:
            ids[token] = len(ids) + 1
    a = np.fromiter(map(ids.__getitem__, summary), dtype=np.int64, count=len(summary))
    get = ids.get
    b = np.fromiter(map(get, text, repeat(0)), dtype=np.int64, count=len(text))
    return a, b


def encode_ids(summary: np.ndarray, text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``encode`` for token ids: 1.. for summary tokens, 0 for text tokens not in the summary."""
    distinct, inverse = np.unique(summary, return_inverse=True)
    if distinct.size == 0:
        return inverse.astype(np.int64) + 1, np.zeros(len(text), dtype=np.int64)
    at = np.searchsorted(distinct, text).clip(max=distinct.size - 1)
    return inverse.astype(np.int64) + 1, np.where(distinct[at] == text, at + 1, 0).astype(np.int64)


def _best_per_position(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every summary position: the reference scan's kept match length (0: none) and its text start."""
    n, m = len(a), len(b)
    best_len = np.zeros(n, dtype=np.int64)
    best_at = np.full(n, -1, dtype=np.int64)
    present = np.flatnonzero(b)
    if n == 0 or present.size == 0:
        return best_len, best_at
    order = np.argsort(b[present], kind="stable")
    occ_pos = present[order]  # text positions grouped by token id, ascending within a group
    occ_tok = b[occ_pos]
    lo = np.searchsorted(occ_tok, a, "left")
    counts = np.searchsorted(occ_tok, a, "right") - lo
    total = int(counts.sum())
    if total == 0:
        return best_len, best_at
    # One pair per (summary position i, occurrence q of a[i] in the text), grouped by i, q ascending.
    starts = np.cumsum(counts) - counts
    pair_i = np.repeat(np.arange(n), counts)
    pair_q = occ_pos[np.repeat(lo - starts, counts) + np.arange(total)]
    # Common run length of every pair; sentinels end runs at either sequence's end.
    a_pad = np.append(a, -1)
    b_pad = np.append(b, -2)
    length = np.ones(total, dtype=np.int64)
    alive = np.arange(total)
    k = 1
    while alive.size:
        same = a_pad[np.minimum(pair_i[alive] + k, n)] == b_pad[np.minimum(pair_q[alive] + k, m)]
        alive = alive[same]
        length[alive] += 1
        k += 1
    # The reference resumes after each run, so an occurrence q' < q + length(q) is never visited.
    # Where no such occurrence exists every pair is visited and the kept match is the first longest.
    group_start = starts[counts > 0]
    skipped = np.zeros(total, dtype=bool)
    skipped[1:] = (pair_i[1:] == pair_i[:-1]) & (pair_q[1:] < pair_q[:-1] + length[:-1])
    dirty_groups = np.unique(pair_i[skipped])
    longest = np.maximum.reduceat(length, group_start)
    index = np.arange(total)
    is_longest = length == np.repeat(longest, counts[counts > 0])
    first = np.minimum.reduceat(np.where(is_longest, index, total), group_start)
    positions = np.flatnonzero(counts)
    best_len[positions] = longest
    best_at[positions] = pair_q[first]
    for i in dirty_groups.tolist():  # replay the reference scan over this position's occurrences
        s, e = starts[i], starts[i] + counts[i]
        qs, ls = pair_q[s:e], length[s:e]
        resume = np.searchsorted(qs, qs + ls, "left").tolist()  # next occurrence after each run
        runs = ls.tolist()
        j, keep_len, keep_at = 0, 0, 0
        while j < len(runs):
            if runs[j] > keep_len:
                keep_len, keep_at = runs[j], j
            j = resume[j]
        best_len[i], best_at[i] = keep_len, qs[keep_at]
    return best_len, best_at


def match_ids(a: np.ndarray, b: np.ndarray) -> list[Match]:
    """The reference greedy fragments of summary ids ``a`` (all ≥ 1) in text ids ``b`` (0: not in summary)."""
    best_len, best_at = _best_per_position(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    matches: list[Match] = []
    i, n = 0, len(best_len)
    while i < n:
        length = int(best_len[i])
        if length > 0:
            matches.append(Match(i, int(best_at[i]), length))
            i += length
        else:
            i += 1
    return matches


def greedy_fragments(summary: Sequence[Hashable], text: Sequence[Hashable]) -> list[Match]:
    """The Newsroom greedy fragments of one token sequence in another (tokens compared as given)."""
    return match_ids(*encode(summary, text))


def scores(matches: Sequence[Match], summary_len: int, text_len: int) -> tuple[float, float, float]:
    """``(coverage, density, compression)`` as the reference computes them (0 where it would divide by 0)."""
    if summary_len == 0:
        return 0.0, 0.0, 0.0
    coverage = sum(m.length for m in matches) / summary_len
    density = sum(m.length**2 for m in matches) / summary_len
    return coverage, density, text_len / summary_len


class Fragments:
    """``newsroom.analyze.fragments.Fragments``: the same constructor, metrics and strings, computed fast.

    ``case=False`` (the reference's default) compares lowercased tokens. ``strings()`` returns the
    fragments' raw text in the summary, as the reference does with ``raw=True``.
    """

    Match = Match

    def __init__(self, summary: str, text: str, *, case: bool = False) -> None:
        self.summary = spacy_tokens(summary)
        self.text = spacy_tokens(text)
        self._summary_str = summary
        norm = (lambda ts: ts) if case else (lambda ts: [t.lower() for t in ts])
        self._matches = greedy_fragments(norm(self.summary), norm(self.text))

    def overlaps(self) -> list[Match]:
        return list(self._matches)

    def strings(self, min_length: int = 0) -> list[str]:
        """The fragments' text in the summary; like the reference, keeps those longer than ``min_length``."""
        doc = _spacy_tokenizer()(self._summary_str)
        return [doc[m.summary : m.summary + m.length].text for m in self._matches if m.length > min_length]

    def coverage(self) -> float:
        return scores(self._matches, len(self.summary), len(self.text))[0]

    def density(self) -> float:
        return scores(self._matches, len(self.summary), len(self.text))[1]

    def compression(self) -> float:
        return scores(self._matches, len(self.summary), len(self.text))[2]


def multi_document_fragments(summary: str, documents: Sequence[str]) -> Fragments:
    """Fragments of a summary in its documents concatenated (Fabbri et al., 2019)."""
    return Fragments(summary, DOCUMENT_JOINER.join(documents))
