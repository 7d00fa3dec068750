"""The lazy Lucene BM25 used for small collections scores exactly as bm25s does."""

from __future__ import annotations

import bm25s
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wikihowqa.core.records import Passage
from wikihowqa.retrieve.bm25 import BM25Retriever, LazyLuceneBM25

WORDS = st.sampled_from([f"t{i}" for i in range(30)])


@settings(max_examples=100, deadline=None)
@given(
    docs=st.lists(st.lists(WORDS, min_size=1, max_size=40), min_size=1, max_size=25),
    query=st.lists(WORDS, min_size=1, max_size=6),
    k1=st.floats(0.5, 2.0),
    b=st.floats(0.0, 1.0),
)
def test_lazy_scores_equal_bm25s_lucene(docs, query, k1, b):
    reference = bm25s.BM25(k1=k1, b=b, method="lucene")
    reference.index(docs, show_progress=False)
    known = [t for t in query if t in reference.vocab_dict]
    expected = reference.get_scores(known) if known else np.zeros(len(docs))
    np.testing.assert_allclose(LazyLuceneBM25(docs, k1, b).get_scores(query), expected, rtol=1e-5, atol=1e-6)


def test_small_collections_are_scored_lazily_and_large_ones_by_bm25s():
    passages = [Passage(1, 0, i, f"dry figs in the oven number {i}") for i in range(5)]
    small = BM25Retriever().index(passages)
    large = BM25Retriever(small_index=3).index(passages)
    assert small._lazy is not None and large._lazy is None
    np.testing.assert_allclose(small.scores("dry figs oven 3"), large.scores("dry figs oven 3"), rtol=1e-5)
