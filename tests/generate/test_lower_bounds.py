"""Lower-bound systems: copied top passages and a random training answer."""

from __future__ import annotations

import pytest

from wikihowqa.core.records import Document, Example
from wikihowqa.generate import lower_bounds


def _example(article_id: int, question: str, answer: str = "an answer", split: str = "test") -> Example:
    return Example(article_id, question, answer, (), split)


DOCS = [
    Document(7, "u0", "a0", "", passages=("Paint the fence before winter.", "Wash the brush in water.")),
    Document(7, "u1", "a1", "", passages=("Dry the figs in a warm oven for twelve hours " + "slowly " * 60,)),
]


def test_copy_passages_starts_with_the_passage_most_relevant_to_the_question():
    prediction = lower_bounds.copy_passages(_example(7, "How to dry figs in an oven"), DOCS, max_words=20)
    assert prediction.system == lower_bounds.COPY_SYSTEM
    assert prediction.answer.startswith("Dry the figs in a warm oven")
    assert len(prediction.answer.split()) == 20
    first = prediction.passages[0]
    assert (first.archive_url, first.position, first.rank) == ("a1", 0, 1)  # ranks are 1-based
    assert first.score > 0


def test_copy_passages_concatenates_in_rank_order_up_to_the_word_limit():
    prediction = lower_bounds.copy_passages(_example(7, "How to paint a fence"), DOCS, max_words=1000)
    assert [p.rank for p in prediction.passages] == [1, 2, 3]
    assert prediction.passages[0].text == "Paint the fence before winter."
    assert prediction.answer.startswith("Paint the fence before winter. ")
    assert len(prediction.answer.split()) == sum(len(d.split()) for doc in DOCS for d in doc.passages)


def test_copy_passages_ranks_with_the_systems_bm25_stemming_included():
    """The question's "painted fences" matches "Paint the fence" only once stemmed, as in the bm25 systems."""
    from wikihowqa.core.records import passages_of
    from wikihowqa.retrieve.bm25 import BM25Retriever
    from wikihowqa.retrieve.ranking import rank

    question = "How to wash painted fences"
    prediction = lower_bounds.copy_passages(_example(7, question), DOCS, max_words=1000)
    assert prediction.passages[0].text == "Paint the fence before winter."
    systems = rank(BM25Retriever(), question, passages_of(DOCS))
    assert [(u.archive_url, u.position, u.rank) for u in prediction.passages] == [
        (r.passage.archive_url, r.passage.position, r.rank) for r in systems
    ]
    assert [u.score for u in prediction.passages] == pytest.approx([r.score for r in systems])


def test_copy_passages_without_documents_gives_an_empty_answer():
    assert lower_bounds.copy_passages(_example(8, "How to fly"), []).answer == ""


def test_random_train_answer_is_reproducible_and_never_the_question_own():
    train = [_example(i, f"q{i}", f"answer {i}", "train") for i in range(1, 6)]
    questions = [_example(i, f"q{i}") for i in (1, 2, 3, 9)]
    first = lower_bounds.random_train_answer(questions, train, seed=3)
    assert first == lower_bounds.random_train_answer(questions, train, seed=3)
    assert first != lower_bounds.random_train_answer(questions, train, seed=4)
    for question, prediction in zip(questions, first, strict=True):
        assert prediction.article_id == question.article_id
        assert prediction.settings["source_article_id"] != question.article_id
        assert prediction.answer == f"answer {prediction.settings['source_article_id']}"


def test_random_train_answer_needs_training_answers():
    with pytest.raises(ValueError, match="no training answers"):
        lower_bounds.random_train_answer([_example(1, "q")], [])
