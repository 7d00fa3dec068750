"""Retrievers by name, and for a dataset folder: one place that builds them, so every system shares the
dataset's embedding cache and defaults."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Passage
from wikihowqa.retrieve.cache import default_cache_path
from wikihowqa.retrieve.ranking import Ranked, Retriever, rank


def get_retriever(name: str, **settings: Any) -> Retriever:
    """A retriever by name: ``bm25``, ``dense`` or ``hybrid``; settings go to its constructor."""
    if name == "bm25":
        from wikihowqa.retrieve.bm25 import BM25Retriever

        return BM25Retriever(**settings)
    if name == "dense":
        from wikihowqa.retrieve.dense import DenseRetriever

        return DenseRetriever.from_settings(**settings)
    if name == "hybrid":
        from wikihowqa.retrieve.hybrid import HybridRetriever

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
    (``wikihowqa.runtime.executor``) embeds passages on a cluster; ``device`` is the default of
    ``dense.device``.
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
