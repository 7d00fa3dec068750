"""Novel n-grams of an answer with respect to its documents, as the Multi-News statistics script counts them.

Reference: ``data/scripts/get_stats.py`` of Multi-News (Fabbri et al., 2019), the numbers behind Table 2
of the WikiHowQA paper. Each text is lowercased, split into Punkt sentences, each sentence tokenized
with NLTK's tok-tok, and the tokens of all sentences (and of all documents, in order) are chained, so
n-grams run across sentence and document boundaries. For one example, the ratio is the number of
*distinct* summary n-grams absent from the documents (``np.setdiff1d``) over the number of *all*
summary n-grams, repeats included; the dataset's figure is the mean of the ratios over examples.
An example whose summary has no n-gram (fewer than n tokens) has no ratio (the script divides by zero)
and is left out of the mean.

Sentences come from nupunkt's Punkt model instead of NLTK's (not downloadable here).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wikihowqa.stats.tokens import sentences, toktok_tokens

NGRAM_ORDERS = (1, 2, 3, 4)


def multinews_tokens(text: str) -> list[str]:
    """Tokens as the script makes them: lowercase, Punkt sentences, tok-tok within each sentence."""
    return [token for sentence in sentences(text.lower()) for token in toktok_tokens(sentence)]


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
    base = len(ids) + 1
    if base ** max(orders, default=1) >= 2**62:  # too many distinct tokens for exact integer keys
        return tuple(_novel_ratio_sets(summary, source, n) for n in orders)
    s = np.fromiter(map(ids.__getitem__, summary), dtype=np.int64, count=len(summary))
    get = ids.get
    d = np.fromiter((get(t, 0) for t in source), dtype=np.int64, count=len(source))
    ratios: list[float | None] = []
    for n in orders:
        total = len(s) - n + 1
        if total <= 0:
            ratios.append(None)
            continue
        summary_keys = np.unique(_keys(s, n, base))
        source_keys = _keys(d, n, base) if len(d) >= n else np.zeros(0, dtype=np.int64)
        novel = np.count_nonzero(~np.isin(summary_keys, source_keys))
        ratios.append(novel / total)
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
