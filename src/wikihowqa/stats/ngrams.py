"""Novel n-grams of an answer with respect to its documents, as the Multi-News statistics script counts them.

Reference: ``data/scripts/get_stats.py`` of Multi-News (Fabbri et al., 2019), the numbers behind Table 2
of the WikiHowQA paper. Each text is split into Punkt sentences, each sentence tokenized with NLTK's
tok-tok, tokens are lowercased, and the tokens of all sentences (and of all documents, in order) are
chained, so n-grams run across sentence and document boundaries. For one example, the ratio is the number of
*distinct* summary n-grams absent from the documents (``np.setdiff1d``) over the number of *all*
summary n-grams, repeats included; the dataset's figure is the mean of the ratios over examples.
An example whose summary has no n-gram (fewer than n tokens) has no ratio (the script divides by zero)
and is left out of the mean.

Sentences come from nupunkt's Punkt model instead of NLTK's (not downloadable here). The script
lowercases a text *before* splitting it into sentences; that order is kept for tok-tok (lowercasing
before or after tok-tok gives the same tokens) but not for Punkt: NLTK's Punkt still ends a sentence at
a period followed by a lowercase word, nupunkt mostly does not, so nupunkt on the original text is the
closer match to the script. On the three real instances, sentence ends of NLTK Punkt on lowercased
text differ from nupunkt's in 58 places on the original text and in 102 on lowercased text. It also
lets Table 1 and Table 2 share one sentence split.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat

import numpy as np

from wikihowqa.core.sentences import sentences
from wikihowqa.stats.tokens import toktok_document

NGRAM_ORDERS = (1, 2, 3, 4)


def multinews_tokens(text: str) -> list[str]:
    """Tokens as the script makes them: Punkt sentences, tok-tok within each sentence, lowercased."""
    return [token.lower() for token in toktok_document(sentences(text, strip=False))]


def _keys(ids: np.ndarray, n: int, base: int) -> np.ndarray:
    """One exact integer per n-gram of ``ids`` (every id < ``base``)."""
    keys = np.zeros(len(ids) - n + 1, dtype=np.int64)
    for k in range(n):
        keys = keys * base + ids[k : len(ids) - n + 1 + k]
    return keys


def novel_ratios(
    summary: Sequence[str], source: Sequence[str], orders: Sequence[int] = NGRAM_ORDERS
) -> tuple[float | None, ...]:
    """Novel n-gram ratio of tokenized ``summary`` against tokenized ``source``, for each n in ``orders``."""
    ids: dict[str, int] = {}
    for token in summary:
        ids.setdefault(token, len(ids) + 1)
    s = np.fromiter(map(ids.__getitem__, summary), dtype=np.int64, count=len(summary))
    d = np.fromiter(map(ids.get, source, repeat(0)), dtype=np.int64, count=len(source))
    return _novel_local(s, d, len(ids) + 1, orders) if ids else _novel_local(s, d, 1, orders)


def novel_ratios_ids(
    summary: np.ndarray, source: np.ndarray, orders: Sequence[int] = NGRAM_ORDERS
) -> tuple[float | None, ...]:
    """``novel_ratios`` of token-id arrays (equal ids: equal tokens)."""
    distinct, inverse = np.unique(summary, return_inverse=True)
    s = inverse.astype(np.int64) + 1
    if distinct.size:
        at = np.searchsorted(distinct, source).clip(max=distinct.size - 1)
        d = np.where(distinct[at] == source, at + 1, 0).astype(np.int64)
    else:
        d = np.zeros(len(source), dtype=np.int64)
    return _novel_local(s, d, distinct.size + 1, orders)


def _novel_local(s: np.ndarray, d: np.ndarray, base: int, orders: Sequence[int]) -> tuple[float | None, ...]:
    """Ratios for summary ids ``s`` (1..base-1) and source ids ``d`` (0: a token the summary lacks)."""
    if base ** max(orders, default=1) >= 2**62:  # too many distinct tokens for exact integer keys
        return tuple(_novel_ratio_sets(s.tolist(), d.tolist(), n) for n in orders)
    ratios: list[float | None] = []
    known = d > 0  # a source n-gram with a token the summary lacks cannot match
    for n in orders:
        total = len(s) - n + 1
        if total <= 0:
            ratios.append(None)
            continue
        summary_keys = np.unique(_keys(s, n, base))
        if len(d) >= n:
            window_known = known[: len(d) - n + 1].copy()
            for k in range(1, n):
                window_known &= known[k : len(d) - n + 1 + k]
            source_keys = _keys(d, n, base)[window_known]
        else:
            source_keys = np.zeros(0, dtype=np.int64)
        at = np.searchsorted(summary_keys, source_keys).clip(max=len(summary_keys) - 1)
        found = np.unique(at[summary_keys[at] == source_keys])
        ratios.append((len(summary_keys) - len(found)) / total)
    return tuple(ratios)


def _novel_ratio_sets(summary: Sequence[str], source: Sequence[str], n: int) -> float | None:
    grams = [tuple(summary[i : i + n]) for i in range(len(summary) - n + 1)]
    if not grams:
        return None
    seen = {tuple(source[i : i + n]) for i in range(len(source) - n + 1)}
    return len(set(grams) - seen) / len(grams)


def novel_ngram_ratio(summary: str, documents: list[str], n: int) -> float | None:
    """Share of the summary's n-grams that are novel with respect to the documents (Multi-News script)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    source = [token for doc in documents for token in multinews_tokens(doc)]
    return novel_ratios(multinews_tokens(summary), source, (n,))[0]
