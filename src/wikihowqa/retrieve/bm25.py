"""BM25 over passages with ``bm25s`` (sparse precomputed scores: fast enough to index per question).

Text is tokenised the same way for passages and questions: lower-cased words of two or more characters,
English stopwords removed, Porter-stemmed (NLTK's stemmer, already installed with ``rouge-score``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from wikihowqa.core.records import Passage
from wikihowqa.retrieve.ranking import Ranked, ranked


@lru_cache(maxsize=1 << 18)
def _stem(word: str) -> str:
    return _porter().stem(word)


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem import porter

    return porter.PorterStemmer()


def _stem_all(words: list[str]) -> list[str]:
    return [_stem(w) for w in words]


def tokenize(texts: Sequence[str], *, stopwords: str | None = "en", stem: bool = True) -> list[list[str]]:
    """BM25 tokens of each text (the same function for passages and questions)."""
    if not texts:
        return []
    stemmer: Callable[[list[str]], list[str]] | None = _stem_all if stem else None
    return _bm25s().tokenize(
        list(texts), stopwords=stopwords or [], stemmer=stemmer, return_ids=False, show_progress=False
    )


def _bm25s() -> Any:
    import logging

    import bm25s

    # bm25s sets its own logger to DEBUG and logs every index build; once any handler is on the root
    # logger (absl's, which rouge-score imports, installs one) that floods stderr.
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    return bm25s


#: Collections up to this size (a question's own passages: ~90 at paper scale) are scored lazily.
SMALL_INDEX = 2000


class LazyLuceneBM25:
    """bm25s's ``lucene`` BM25, computed only for the query's terms: for the paper's one-index-per-question
    retrieval, where building bm25s's full score matrix for ~90 passages costs more than answering.

    Same scores as bm25s (tested to 1e-6); on 90-passage collections index + score runs 10× faster than
    bm25s and 5× faster than rank-bm25 (``benchmarks/retrieval.py``, "supporting, index + score"); past a
    few thousand passages bm25s's precomputed matrix wins, hence :data:`SMALL_INDEX`.
    """

    def __init__(self, tokens: Sequence[list[str]], k1: float, b: float) -> None:
        self.tf = [Counter(t) for t in tokens]
        lengths = np.fromiter(map(len, tokens), dtype=np.float64, count=len(tokens))
        average = float(lengths.mean()) if len(tokens) else 1.0
        self.norm = k1 * ((1 - b) + b * lengths / (average or 1.0))

    def get_scores(self, query: Sequence[str]) -> np.ndarray:
        n = len(self.tf)
        scores = np.zeros(n)
        for term in query:  # a repeated query term counts again, as in bm25s
            tf = np.fromiter((c.get(term, 0) for c in self.tf), dtype=np.float64, count=n)
            df = int(np.count_nonzero(tf))
            if df:
                scores += math.log(1 + (n - df + 0.5) / (df + 0.5)) * tf / (tf + self.norm)
        return scores


class BM25Index:
    def __init__(self, passages: Sequence[Passage], retriever: BM25Retriever) -> None:
        self.passages = list(passages)
        self._retriever = retriever
        tokens = retriever.tokenize([p.text for p in self.passages])
        self._lazy: LazyLuceneBM25 | None = None
        if retriever.method == "lucene" and len(tokens) <= retriever.small_index:
            self._lazy = LazyLuceneBM25(tokens, retriever.k1, retriever.b)
            return
        self._model = _bm25s().BM25(k1=retriever.k1, b=retriever.b, method=retriever.method)
        self._model.index(tokens, show_progress=False)

    def scores(self, question: str) -> np.ndarray:
        query = self._retriever.tokenize([question])[0]
        if self._lazy is not None:
            return self._lazy.get_scores(query)
        query = [t for t in query if t in self._model.vocab_dict]
        if not query:  # nothing to match: every passage scores 0 and keeps its place
            return np.zeros(len(self.passages), dtype=np.float32)
        return self._model.get_scores(query)

    def search(self, questions: Sequence[str], k: int | None = None) -> list[list[Ranked]]:
        return [ranked(self.passages, self.scores(q), k) for q in questions]


class BM25Retriever:
    """Okapi BM25; ``method`` is one of bm25s's variants (``lucene`` default, ``robertson``, ``bm25+``, …)."""

    name = "bm25"

    def __init__(
        self,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        stopwords: str | None = "en",
        stem: bool = True,
        small_index: int = SMALL_INDEX,
    ) -> None:
        self.k1, self.b, self.method, self.stopwords, self.stem = k1, b, method, stopwords, stem
        self.small_index = small_index

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        return tokenize(texts, stopwords=self.stopwords, stem=self.stem)

    def prepare(self, passages: Sequence[Passage], questions: Sequence[str] = ()) -> None:
        """Nothing to share: BM25 statistics are those of the indexed passages."""

    def index(self, passages: Sequence[Passage]) -> BM25Index:
        return BM25Index(passages, self)

    def settings(self) -> dict[str, Any]:
        return {
            "retriever": "bm25",
            "k1": self.k1,
            "b": self.b,
            "method": self.method,
            "stopwords": self.stopwords,
            "stem": self.stem,
        }
