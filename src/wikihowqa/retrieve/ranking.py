"""What every retriever shares: the two modes, a ranked passage, the index and retriever protocols,
and top-k ranking of a score vector."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from wikihowqa.core.records import Passage

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
