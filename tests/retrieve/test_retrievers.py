"""Each retriever ranks the one relevant passage of a planted collection first, in both modes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tests.retrieve.planted_passages import QUESTION, planted
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Passage
from wikihowqa.retrieve.factory import get_retriever, rank_questions
from wikihowqa.retrieve.hybrid import HybridRetriever, reciprocal_rank_fusion
from wikihowqa.retrieve.ranking import rank, top_k


@pytest.mark.parametrize("position", [0, 5, 9])
def test_bm25_ranks_the_planted_passage_first(position):
    passages, relevant = planted(position)
    ranking = rank(get_retriever("bm25"), QUESTION, passages)
    assert ranking[0].passage is passages[relevant]
    assert [r.rank for r in ranking] == list(range(1, len(passages) + 1))
    assert sorted(r.passage.position for r in ranking) == list(range(len(passages)))  # a full ranking
    assert all(a.score >= b.score for a, b in itertools.pairwise(ranking))


def test_bm25_stems_so_inflected_forms_match():
    passages = [Passage(1, 0, 0, "Paint the fence."), Passage(1, 0, 1, "He was drying the dishes quickly.")]
    assert rank(get_retriever("bm25"), "how to dry dish", passages)[0].passage.position == 1


def test_bm25_question_with_no_known_word_keeps_passage_order():
    passages, _ = planted()
    ranking = rank(get_retriever("bm25"), "zzzz qqqq", passages)
    assert [r.passage.position for r in ranking] == list(range(len(passages)))
    assert {r.score for r in ranking} == {0.0}


def test_dense_ranks_the_planted_passage_first(dense_retriever):
    passages, relevant = planted(7)
    ranking = rank(dense_retriever, QUESTION, passages)
    assert ranking[0].passage is passages[relevant]


def test_dense_embeddings_are_cached_per_model_and_text(dense_retriever, tmp_path):
    from wikihowqa.retrieve.cache import EmbeddingCache
    from wikihowqa.retrieve.dense import DenseRetriever

    passages, _ = planted()
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    fresh = DenseRetriever(dense_retriever.encoder, cache)
    first = fresh.passage_vectors([p.text for p in passages])
    assert cache.count(dense_retriever.encoder.key) == len(passages)

    class Refuses:  # a second run must not encode anything: every vector comes from the cache
        key = dense_retriever.encoder.key

        def encode_passages(self, texts):
            raise AssertionError(f"encoded {len(texts)} texts despite the cache")

    again = DenseRetriever(Refuses(), EmbeddingCache(tmp_path / "e.sqlite")).passage_vectors(
        [p.text for p in passages]
    )
    np.testing.assert_array_equal(first, again)
    assert cache.count("another-model") == 0


def test_hybrid_ranks_the_planted_passage_first(dense_retriever):
    passages, relevant = planted(3)
    hybrid = HybridRetriever([get_retriever("bm25"), dense_retriever])
    ranking = rank(hybrid, QUESTION, passages)
    assert ranking[0].passage is passages[relevant]
    assert len(ranking) == len(passages)


def test_open_mode_finds_the_planted_passage_among_every_question_s_passages(dense_retriever):
    passages, relevant = planted(4)
    other = [
        Passage(2, 0, i, f"Unrelated text number {i} about gardening sheds and paint.") for i in range(20)
    ]
    pool = other + passages
    for retriever in (get_retriever("bm25"), dense_retriever):
        (ranking,) = rank_questions(retriever, [(QUESTION, [])], mode="open", pool=pool, k=3)
        assert ranking[0].passage is passages[relevant]
        assert len(ranking) == 3


def test_reciprocal_rank_fusion_matches_hand_computed_scores():
    fused = reciprocal_rank_fusion([[0, 1, 2], [2, 0]], 3, k=60)
    assert fused[0] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[1] == pytest.approx(1 / 62)
    assert fused[2] == pytest.approx(1 / 63 + 1 / 61)


def test_top_k_breaks_ties_by_passage_order_even_when_cut():
    scores = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    assert top_k(scores, None).tolist() == [1, 2, 4, 3, 0]
    assert top_k(scores, 2).tolist() == [1, 2]
    assert top_k(scores, 4).tolist() == [1, 2, 4, 3]


def test_unknown_retriever_and_mode_are_user_errors():
    with pytest.raises(SettingsError, match="unknown retriever 'tfidf'"):
        get_retriever("tfidf")
    with pytest.raises(SettingsError, match="unknown retrieval mode"):
        list(rank_questions(get_retriever("bm25"), [("q", [])], mode="closed"))


def test_the_embedding_cache_stores_a_minilm_vector_in_little_more_than_its_bytes(tmp_path):
    from wikihowqa.retrieve.cache import EmbeddingCache, text_key

    cache = EmbeddingCache(tmp_path / "e.sqlite")
    vectors = np.random.default_rng(0).random((600, 384), dtype=np.float32)
    cache.put("m", {text_key(f"passage {i}"): v for i, v in enumerate(vectors)})
    cache._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    cache.close()
    per_row = (tmp_path / "e.sqlite").stat().st_size / len(vectors)
    assert per_row < 2.2 * 1024, per_row  # 1,536 bytes of float32 (4 KB pages: about 4.7 KB a row)
    again = EmbeddingCache(tmp_path / "e.sqlite")
    assert np.array_equal(again.get("m", [text_key("passage 7")])[text_key("passage 7")], vectors[7])
