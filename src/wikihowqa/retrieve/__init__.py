"""Passage retrieval: rank passages by relevance to a question.

Two modes share one interface. In the paper's *supporting* mode a question's own documents are the whole
collection (an index per question); in *open* mode one index holds every passage of a split. A retriever
builds an :class:`Index` over passages; an index ranks them for a batch of questions.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from wikihowqa.errors import SettingsError
from wikihowqa.records import Passage
from wikihowqa.retrieve.cache import default_cache_path

MODES = ("supporting", "open")


@dataclass(frozen=True, slots=True)
class Ranked:
    """A passage at a 1-based ``rank`` with the retriever's ``score`` (higher is better)."""

    passage: Passage
    score: float
    rank: int


class Index(Protocol):
    def search(self, questions: Sequence[str], k: int | None = None) -> list[list[Ranked]]:
        """Top ``k`` passages (all when ``None``) for each question, best first."""
        ...


class Retriever(Protocol):
    name: str

    def prepare(self, passages: Sequence[Passage], questions: Sequence[str] = ()) -> None:
        """Precompute what is shared across questions (e.g. embed every passage and question in batches)."""
        ...

    def index(self, passages: Sequence[Passage]) -> Index: ...

    def settings(self) -> dict[str, Any]: ...


def top_k(scores: np.ndarray, k: int | None) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first; ties keep passage order (reproducible rankings)."""
    n = scores.shape[0]
    if k is None or k >= n:
        return np.argsort(-scores, kind="stable")
    if k <= 0:
        return np.empty(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k]
    # argpartition breaks ties arbitrarily: widen to every passage tied with the k-th, then sort stably.
    kth = scores[part].min()
    candidates = np.flatnonzero(scores >= kth)
    order = candidates[np.argsort(-scores[candidates], kind="stable")]
    return order[:k]


def ranked(passages: Sequence[Passage], scores: np.ndarray, k: int | None) -> list[Ranked]:
    return [
        Ranked(passages[i], float(scores[i]), rank)
        for rank, i in enumerate(top_k(scores, k).tolist(), start=1)
    ]


def rank(
    retriever: Retriever, question: str, passages: Sequence[Passage], k: int | None = None
) -> list[Ranked]:
    """One question's passages ranked (the paper's supporting mode)."""
    if not passages:
        return []
    return retriever.index(passages).search([question], k)[0]


def get_retriever(name: str, **settings: Any) -> Retriever:
    """A retriever by name: ``bm25``, ``dense`` or ``hybrid``; settings go to its constructor."""
    if name == "bm25":
        from wikihowqa.retrieve.bm25 import BM25Retriever  # cycle: bm25 imports Ranked from this package

        return BM25Retriever(**settings)
    if name == "dense":
        from wikihowqa.retrieve.dense import DenseRetriever  # cycle: dense imports Ranked from this package

        return DenseRetriever.from_settings(**settings)
    if name == "hybrid":
        from wikihowqa.retrieve.hybrid import HybridRetriever  # cycle: hybrid imports Ranked from here

        return HybridRetriever.from_settings(**settings)
    raise SettingsError(f"unknown retriever {name!r} (expected bm25, dense or hybrid)")


def dataset_retriever(
    name: str,
    options: Mapping[str, Any],
    dataset: Path,
    *,
    executor: Any = None,
    device: str | None = None,
) -> Retriever:
    """A retriever for a dataset folder's questions: dense vectors go to the folder's embedding cache.

    Every system and ``wikihowqa train`` build retrievers here, so they share one cache and one set of
    defaults (dense embedding shows progress: a split's passages take minutes on a CPU). ``executor``
    (``wikihowqa.executor``) embeds passages on a cluster; ``device`` is the default of ``dense.device``.
    """
    settings = dict(options)
    if name == "dense":
        settings.setdefault("progress", True)
        if device is not None:
            settings.setdefault("device", device)
    if name == "hybrid" and device is not None:
        settings["dense"] = {"device": device, **(settings.get("dense") or {})}
    if name in ("dense", "hybrid"):
        settings.setdefault("cache", str(default_cache_path(dataset)))
        if executor is not None:
            settings["executor"] = executor
    return get_retriever(name, **settings)


def rank_questions(
    retriever: Retriever,
    questions: Sequence[tuple[str, Sequence[Passage]]],
    *,
    mode: str = "supporting",
    pool: Sequence[Passage] = (),
    k: int | None = None,
) -> Iterator[list[Ranked]]:
    """Rankings of many questions, lazily, in order.

    ``supporting`` (the paper): each question's own passages only. ``open``: one index over ``pool``
    (every passage of the split), searched in batches.
    """
    if mode == "supporting":
        retriever.prepare([p for _, passages in questions for p in passages], [q for q, _ in questions])
        for question, passages in questions:
            yield rank(retriever, question, passages, k)
    elif mode == "open":
        if not pool:
            raise SettingsError("open retrieval needs a non-empty passage pool")
        retriever.prepare(pool, [q for q, _ in questions])
        index = retriever.index(pool)
        batch = 64
        for start in range(0, len(questions), batch):
            yield from index.search([q for q, _ in questions[start : start + batch]], k or 100)
    else:
        raise SettingsError(f"unknown retrieval mode {mode!r} (expected supporting or open)")


__all__ = [
    "MODES",
    "Index",
    "Ranked",
    "Retriever",
    "dataset_retriever",
    "get_retriever",
    "rank",
    "rank_questions",
    "ranked",
    "top_k",
]
