"""Pluggable rankers that score texts against a query: which passages to show for an answer sentence,
and which sentence of a passage to mark.

A ranker indexes a list of texts once and returns a scoring function, so the passages of one question
are indexed once and scored for each of its answer sentences. Any object with ``name`` and
``index(texts) -> (query -> scores)`` works (for example a DPR encoder pair a user has). The built-in
ones are the project's own: ``retrieve``'s BM25 and ``embed``'s sentence encoder.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Passage
from wikihowqa.encoders.embed import DEFAULT_MODEL, load_model
from wikihowqa.retrieve.bm25 import BM25Retriever

Scorer = Callable[[str], np.ndarray]


class Ranker(Protocol):
    name: str

    def index(self, texts: Sequence[str]) -> Scorer: ...


class BM25Ranker:
    """Okapi BM25 (Lucene variant, English stopwords, no stemming) through ``retrieve``'s BM25.

    ``small_index=0`` keeps bm25s's precomputed float32 scores for every collection size: the scores
    studies store (rounded to 6 decimals) were made with them, so a rebuilt study stays byte-identical.
    """

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._retriever = BM25Retriever(
            k1=k1, b=b, method="lucene", stopwords="en", stem=False, small_index=0
        )

    def index(self, texts: Sequence[str]) -> Scorer:
        n = len(texts)
        if n == 0:
            return lambda query: np.zeros(0)
        index = self._retriever.index([Passage(0, 0, i, t) for i, t in enumerate(texts)])
        return lambda query: np.asarray(index.scores(query), dtype=float)


class DenseRanker:
    """Cosine similarity of sentence-transformers embeddings (default: all-MiniLM-L6-v2, offline), loaded
    by ``embed.load_model`` on ``device`` (the CPU by default: a study's rankings do not depend on the
    machine it is built on)."""

    name = "dense"

    def __init__(self, model: str | None = None, batch_size: int = 64, device: str = "cpu") -> None:
        self.model_name = model
        self.batch_size = batch_size
        self.device = device

    def _load(self) -> Any:
        return load_model(self.model_name or DEFAULT_MODEL, self.device)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(
            self._load().encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
            )
        )

    def index(self, texts: Sequence[str]) -> Scorer:
        if not texts:
            return lambda query: np.zeros(0)
        matrix = self._encode(texts)
        return lambda query: matrix @ self._encode([query])[0]


def make_ranker(name: str, model: str | None = None) -> Ranker:
    if name == "bm25":
        return BM25Ranker()
    if name == "dense":
        return DenseRanker(model)
    raise SettingsError(f"unknown ranker {name!r} (expected bm25 or dense)")
