"""The study's rankers are the project's own BM25 and sentence encoder, with the scores studies store."""

from __future__ import annotations

import bm25s
import numpy as np

from wikihowqa.humaneval.rank import BM25Ranker

TEXTS = [
    "Seal the concrete floor with an epoxy sealer after it dries for two days.",
    "A polyurethane sealer protects wooden floors from water and scratches.",
    "Water the plants early in the morning, before the sun is hot.",
    "Use a roller to spread the sealer evenly across the floor.",
    "",
]
QUERIES = ["Which sealer protects a concrete floor?", "the and of", "water plants morning morning", "xyzzy"]


def _reference(texts: list[str], query: str) -> np.ndarray:
    """bm25s on its own: Lucene BM25, English stopwords, no stemming (how the study's scores are defined)."""
    tokens = bm25s.tokenize(texts, stopwords="en", show_progress=False)
    model = bm25s.BM25(k1=1.5, b=0.75)
    model.index(tokens, show_progress=False)
    terms = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
    known = [t for t in terms if t in tokens.vocab]
    return np.asarray(model.get_scores(known), dtype=float) if known else np.zeros(len(texts))


def test_bm25_scores_are_bm25s_lucene_scores_exactly():
    score = BM25Ranker().index(TEXTS)
    for query in QUERIES:
        got, want = score(query), _reference(TEXTS, query)
        assert got.shape == (len(TEXTS),)
        assert np.array_equal(got, want), query
    assert score(QUERIES[0]).argmax() == 0


def test_bm25_on_no_texts_scores_nothing():
    assert BM25Ranker().index([])("anything").shape == (0,)
