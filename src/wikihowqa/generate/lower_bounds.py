"""Trivial systems that any real one must beat (Krishna et al., 2021, "Hurdles to progress in LFQA").

Krishna et al. showed ROUGE-L rewards copying the retrieved input and even a random training answer
close to real systems on ELI5; reporting both next to the baselines shows how much of a score is
real. Both produce ordinary :class:`Prediction` records, so they are scored like any system: the
``answer`` stage writes them as predictions files, ``evaluate --lower-bounds`` computes them on the fly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from wikihowqa.core.records import Document, Example, Passage, Prediction, UsedPassage, passages_of
from wikihowqa.retrieve.bm25 import BM25Retriever
from wikihowqa.retrieve.ranking import Ranked, rank

COPY_SYSTEM = "lower-bound-copy-passages"
RANDOM_SYSTEM = "lower-bound-random-train-answer"
DEFAULT_MAX_WORDS = 100


#: How the copy lower bound ranks passages, recorded in its predictions' settings.
COPY_RETRIEVER = "bm25 (the systems' BM25Retriever over the question's own passages)"


def rank_passages(question: str, passages: Sequence[Passage]) -> list[Ranked]:
    """The question's passages ranked (1-based) by the same BM25 as the ``bm25+…`` systems, ties in
    document order: the lower bound copies what those systems would read first."""
    return rank(BM25Retriever(), question, passages)


def copy_passages(
    example: Example,
    documents: Sequence[Document],
    *,
    max_words: int = DEFAULT_MAX_WORDS,
    system: str = COPY_SYSTEM,
) -> Prediction:
    """The top BM25 passages copied, in rank order, cut at ``max_words`` words."""
    used: list[UsedPassage] = []
    words: list[str] = []
    for r in rank_passages(example.question, passages_of(list(documents))):
        if len(words) >= max_words:
            break
        words.extend(r.passage.text.split())
        used.append(UsedPassage(r.passage.archive_url, r.passage.position, r.rank, r.passage.text, r.score))
    return Prediction(
        article_id=example.article_id,
        system=system,
        answer=" ".join(words[:max_words]),
        passages=tuple(used),
        settings={
            "lower_bound": "copy top passages",
            "retriever": COPY_RETRIEVER,
            "max_words": max_words,
        },
    )


def copy_passages_all(
    examples: Sequence[Example],
    documents_by_article: Mapping[int, Sequence[Document]],
    *,
    max_words: int = DEFAULT_MAX_WORDS,
) -> list[Prediction]:
    return [
        copy_passages(e, documents_by_article.get(e.article_id, ()), max_words=max_words) for e in examples
    ]


def random_train_answer(
    examples: Sequence[Example],
    train: Sequence[Example],
    *,
    seed: int = 0,
    system: str = RANDOM_SYSTEM,
) -> list[Prediction]:
    """Each question answered with a training answer drawn at random (never its own), reproducibly."""
    pool = [t for t in train if t.answer.strip()]
    if not pool:
        raise ValueError("no training answers to draw from")
    rng = random.Random(seed)
    predictions = []
    for example in examples:
        choice = rng.choice(pool)
        if choice.article_id == example.article_id and len(pool) > 1:
            choice = rng.choice([t for t in pool if t.article_id != example.article_id])
        predictions.append(
            Prediction(
                article_id=example.article_id,
                system=system,
                answer=choice.answer,
                settings={
                    "lower_bound": "random training answer",
                    "seed": seed,
                    "source_article_id": choice.article_id,
                },
            )
        )
    return predictions
