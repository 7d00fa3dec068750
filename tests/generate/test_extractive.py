"""Extractive baselines: lead, TextRank/LexRank centrality, and the greedy ROUGE oracle."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikihowqa.core.records import Passage
from wikihowqa.generate import extractive
from wikihowqa.retrieve.ranking import Ranked


def ranking_of(texts: list[str], doc_of=lambda i: 0) -> list[Ranked]:
    return [Ranked(Passage(1, doc_of(i), i, t), float(-i), i + 1) for i, t in enumerate(texts)]


def test_sentences_split_on_paragraphs_and_sentence_ends_offline():
    text = "Dr. Smith dries figs. He uses an oven!\nTips follow here\n\nLast one? Yes."
    assert extractive.split_sentences(text) == [
        "Dr. Smith dries figs.",
        "He uses an oven!",
        "Tips follow here",
        "Last one?",
        "Yes.",
    ]


def test_lead_takes_first_sentences_in_rank_order_within_the_budget():
    ranking = ranking_of(
        ["Alpha one two. Alpha three.", "Beta one two three. Beta four.", "Gamma one. Gamma two."]
    )
    x = extractive.lead(ranking, max_words=7)
    assert x.text == "Alpha one two. Beta one two three."
    assert [r.rank for r in x.used] == [1, 2]
    assert extractive.lead(ranking, max_words=1).text == "Alpha one two."  # one sentence at least


def test_lead_skips_sentences_repeated_across_passages():
    ranking = ranking_of(["Share this page. Real content.", "Share this page. Other content."])
    assert (
        extractive.lead(ranking, max_words=50, per_passage=2).text
        == "Share this page. Real content. Other content."
    )


@pytest.mark.parametrize("seed", range(5))
def test_pagerank_equals_networkx(seed):
    nx = pytest.importorskip("networkx")
    rng = np.random.default_rng(seed)
    n = 30
    weights = rng.random((n, n)) * (rng.random((n, n)) < 0.2)
    np.fill_diagonal(weights, 0)
    weights[3, :] = 0  # a dangling node
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_weighted_edges_from(
        (i, j, weights[i, j]) for i in range(n) for j in range(n) if weights[i, j] > 0
    )
    expected = nx.pagerank(graph, alpha=0.85, tol=1e-12, max_iter=10_000, weight="weight")
    np.testing.assert_allclose(extractive.pagerank(weights), [expected[i] for i in range(n)], atol=1e-9)


def test_textrank_similarity_is_shared_words_over_log_lengths():
    w = extractive.textrank_weights([["a", "b", "c"], ["b", "c", "d", "e"], ["x"]])
    assert w[0, 1] == pytest.approx(2 / (math.log(3) + math.log(4)))
    assert w[0, 2] == w[1, 2] == 0.0 and w[1, 0] == w[0, 1]


def test_lexrank_similarity_is_idf_modified_cosine():
    tokens = [["a", "b"], ["a", "c"], ["d"]]
    idf = {"a": math.log(3 / 2), "b": math.log(3), "c": math.log(3), "d": math.log(3)}
    expected = idf["a"] ** 2 / (math.hypot(idf["a"], idf["b"]) * math.hypot(idf["a"], idf["c"]))
    w = extractive.lexrank_weights(tokens, threshold=None)
    assert w[0, 1] == pytest.approx(expected)
    assert w[0, 2] == 0.0
    assert extractive.lexrank_weights(tokens, threshold=0.1)[0, 1] == (1.0 if expected > 0.1 else 0.0)


@pytest.mark.parametrize("method", ["textrank", "lexrank"])
def test_centrality_picks_the_sentence_that_summarises_the_others(method):
    ranking = ranking_of(
        [
            "Dry the figs slowly in a low oven.",
            "Cut figs in half before you dry them.",
            "An oven set low dries figs evenly.",
            "Halved figs dry faster in the oven.",
            "My neighbour owns a red bicycle.",
        ]
    )
    x = extractive.centrality(ranking, method=method, max_words=8)
    assert "bicycle" not in x.text
    assert len(x.sentences) == 1 and x.sentences[0].source.passage.position in (0, 2, 3)


# --------------------------------------------------------------------------- the oracle


def rouge12(scorer, gold: str, text: str) -> float:
    s = scorer.score(gold, text)
    return s["rouge1"].fmeasure + s["rouge2"].fmeasure


@pytest.fixture(scope="module")
def scorer():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)


VOCAB = [
    "dry",
    "figs",
    "oven",
    "low",
    "heat",
    "cut",
    "half",
    "rack",
    "hours",
    "sun",
    "sugar",
    "water",
    "boiling",
    "the",
    "a",
    "and",
    "in",
    "on",
    "for",
]


@st.composite
def oracle_cases(draw):
    rng = random.Random(draw(st.integers(0, 10_000)))
    n = draw(st.integers(1, 9))
    sentences = [
        " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 9))).capitalize() + "." for _ in range(n)
    ]
    passages = [" ".join(sentences[i : i + 2]) for i in range(0, n, 2)]
    gold = " ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 25)))
    return passages, gold


@settings(max_examples=80, deadline=None)
@given(case=oracle_cases())
def test_oracle_is_greedy_optimal_under_rouge_score_itself(scorer, case):
    """No single further sentence raises rouge-score's R1+R2 F1 of the answer, and the answer's score is
    at least that of the best single sentence (the greedy first step)."""
    passages, gold = case
    ranking = ranking_of(passages, doc_of=lambda i: i // 2)
    x = extractive.oracle(ranking, gold)
    pool = extractive.sentences_of(ranking)
    if not x.sentences:
        assert all(rouge12(scorer, gold, s.text) == 0 for s in pool)
        return
    final = rouge12(scorer, gold, x.text)
    assert x.score == pytest.approx(final, abs=1e-12)  # its running score is rouge-score's
    assert final >= max(rouge12(scorer, gold, s.text) for s in pool) - 1e-9
    assert [s.order for s in x.sentences] == sorted(s.order for s in x.sentences)  # source order
    for s in pool:
        if s in x.sentences:
            continue
        grown = sorted([*x.sentences, s], key=lambda t: t.order)
        assert rouge12(scorer, gold, " ".join(t.text for t in grown)) <= final + 1e-9


def test_oracle_recovers_an_answer_made_of_passage_sentences(scorer):
    ranking = ranking_of(
        [
            "Cut the figs in half. Ignore this sentence about cars.",
            "Place them on a rack in a low oven. Bicycles are fun.",
            "Leave them for eight hours.",
        ]
    )
    gold = "Cut the figs in half. Place them on a rack in a low oven. Leave them for eight hours."
    x = extractive.oracle(ranking, gold)
    assert x.text == gold
    assert rouge12(scorer, gold, x.text) == pytest.approx(2.0)
