"""BM25 over passages with ``bm25s`` (sparse precomputed scores: fast enough to index per question).

Text is tokenised the same way for passages and questions: lower-cased words of two or more characters,
English stopwords removed, Porter-stemmed (NLTK's stemmer, already installed with ``rouge-score``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from wikihowqa.records import Passage
from wikihowqa.retrieve import Ranked, ranked


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


class BM25Index:
    def __init__(self, passages: Sequence[Passage], retriever: BM25Retriever) -> None:
        bm25s = _bm25s()

        self.passages = list(passages)
        self._retriever = retriever
        self._model = bm25s.BM25(k1=retriever.k1, b=retriever.b, method=retriever.method)
        tokens = retriever.tokenize([p.text for p in self.passages])
        self._model.index(tokens, show_progress=False)

    def scores(self, question: str) -> np.ndarray:
        query = [t for t in self._retriever.tokenize([question])[0] if t in self._model.vocab_dict]
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
    ) -> None:
        self.k1, self.b, self.method, self.stopwords, self.stem = k1, b, method, stopwords, stem

    def tokenize(self, texts: Sequence[str]) -> list[list[str]]:
        return tokenize(texts, stopwords=self.stopwords, stem=self.stem)

    def prepare(self, passages: Sequence[Passage]) -> None:
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
