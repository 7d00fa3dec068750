"""Hybrid retrieval by reciprocal-rank fusion (Cormack, Clarke and Büttcher, 2009).

RRF adds ``weight / (k + rank)`` over the fused rankings: it needs no score calibration between BM25 and
cosine similarity, and k = 60 is the paper's constant, robust across collections.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Passage
from wikihowqa.retrieve.bm25 import BM25Retriever
from wikihowqa.retrieve.dense import DenseRetriever
from wikihowqa.retrieve.ranking import Index, Ranked, Retriever, ranked

RRF_K = 60


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[int]], n: int, *, k: int = RRF_K, weights: Sequence[float] | None = None
) -> np.ndarray:
    """Fused scores of ``n`` items from rankings given as item indices, best first."""
    weights = weights or [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise SettingsError("hybrid: one weight per retriever")
    fused = np.zeros(n, dtype=np.float64)
    for ranking, weight in zip(rankings, weights, strict=True):
        for rank, item in enumerate(ranking, start=1):
            fused[item] += weight / (k + rank)
    return fused


class HybridIndex:
    def __init__(self, passages: Sequence[Passage], indexes: list[Index], retriever: HybridRetriever) -> None:
        self.passages, self.indexes, self.retriever = list(passages), indexes, retriever
        self._position = {id(p): i for i, p in enumerate(self.passages)}

    def search(self, questions: Sequence[str], k: int | None = None) -> list[list[Ranked]]:
        depth = None if k is None else max(k, self.retriever.depth)
        per_index = [index.search(questions, depth) for index in self.indexes]
        results = []
        for q in range(len(questions)):
            rankings = [[self._position[id(r.passage)] for r in lists[q]] for lists in per_index]
            fused = reciprocal_rank_fusion(
                rankings, len(self.passages), k=self.retriever.k, weights=self.retriever.weights
            )
            results.append(ranked(self.passages, fused, k))
        return results


class HybridRetriever:
    name = "hybrid"

    def __init__(
        self,
        retrievers: Sequence[Retriever],
        *,
        k: int = RRF_K,
        weights: Sequence[float] | None = None,
        depth: int = 1000,
    ) -> None:
        if len(retrievers) < 2:
            raise SettingsError("hybrid needs at least two retrievers")
        self.retrievers, self.k, self.weights, self.depth = list(retrievers), k, weights, depth

    @classmethod
    def from_settings(
        cls,
        bm25: dict[str, Any] | None = None,
        dense: dict[str, Any] | None = None,
        k: int = RRF_K,
        weights: Sequence[float] | None = None,
        depth: int = 1000,
        cache: str | None = None,
        executor: Any = None,
    ) -> HybridRetriever:
        dense_settings = {"cache": cache, "executor": executor, **(dense or {})}
        return cls(
            [BM25Retriever(**(bm25 or {})), DenseRetriever.from_settings(**dense_settings)],
            k=k,
            weights=weights,
            depth=depth,
        )

    def prepare(self, passages: Sequence[Passage], questions: Sequence[str] = ()) -> None:
        for retriever in self.retrievers:
            retriever.prepare(passages, questions)

    def index(self, passages: Sequence[Passage]) -> HybridIndex:
        return HybridIndex(passages, [r.index(passages) for r in self.retrievers], self)

    def settings(self) -> dict[str, Any]:
        return {
            "retriever": "hybrid",
            "rrf_k": self.k,
            "weights": self.weights,
            "fused": [r.settings() for r in self.retrievers],
        }
