"""The article-extraction benchmark's metric, checked against hand-worked cases and a brute-force count."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikihowqa.parse.metric import evaluate, page_counts, shingles


def test_identical_texts_score_one():
    counts = page_counts("the cat sat on the mat", "the cat sat on the mat")
    assert (counts.tp, counts.fp, counts.fn) == (1.0, 0.0, 0.0)
    assert counts.precision == counts.recall == 1.0


def test_prediction_missing_the_last_word_worked_by_hand():
    # truth shingles: (a b c d), (b c d e); prediction: (a b c d) -> tp 1, fn 1, normalised to 1/2 each
    counts = page_counts("a b c d e", "a b c d")
    assert counts.tp == pytest.approx(0.5) and counts.fn == pytest.approx(0.5) and counts.fp == 0
    assert counts.precision == 1.0 and counts.recall == pytest.approx(0.5)


def test_extra_text_costs_precision_only():
    # prediction adds "f": shingles (a b c d), (b c d e), (c d e f) -> tp 2, fp 1 -> 2/3 precision
    counts = page_counts("a b c d e", "a b c d e f")
    assert counts.precision == pytest.approx(2 / 3) and counts.recall == 1.0


def test_shingles_are_a_multiset():
    # truth repeats (x y z w) twice among five shingles; a prediction with it once recalls 1 of 5
    assert shingles("x y z w x y z w")[("x", "y", "z", "w")] == 2
    counts = page_counts("x y z w x y z w", "x y z w")
    assert counts.recall == pytest.approx(1 / 5) and counts.precision == 1.0


def test_texts_shorter_than_four_tokens_are_one_short_shingle():
    assert shingles("hello world") == {("hello", "world"): 1}
    assert page_counts("hello world", "hello world").recall == 1.0
    assert page_counts("hello world", "hello there").recall == 0.0


def test_tokens_are_word_characters_and_keep_case():
    assert list(shingles("Don't STOP-now!", n=1)) == [("Don",), ("t",), ("STOP",), ("now",)]
    assert page_counts("Alpha beta gamma delta", "alpha beta gamma delta").recall == 0.0


def test_empty_prediction_counts_for_recall_but_not_precision():
    # page 1: precision 1, recall 1/2; page 2: predicted nothing -> recall 0, no precision
    score = evaluate({"p1": "a b c d e", "p2": "one two three four"}, {"p1": "a b c d", "p2": ""})
    assert score.precision == pytest.approx(1.0)
    assert score.recall == pytest.approx(0.25)
    assert score.f1 == pytest.approx(2 * 1.0 * 0.25 / 1.25)


def test_f1_comes_from_mean_precision_and_mean_recall_not_mean_f1():
    score = evaluate({"a": "a b c d e", "b": "a b c d e"}, {"a": "a b c d", "b": "a b c d e f"})
    precision, recall = (1 + 2 / 3) / 2, (0.5 + 1) / 2
    assert score.f1 == pytest.approx(2 * precision * recall / (precision + recall))


def _brute(true: str, pred: str) -> tuple[float, float, float]:
    """Independent count: lists, no Counter arithmetic."""

    def grams(text: str) -> list[tuple[str, ...]]:
        toks = re.findall(r"\w+", text)
        if len(toks) < 4:
            return [tuple(toks)] if toks else []
        return [tuple(toks[i : i + 4]) for i in range(len(toks) - 3)]

    t, p = grams(true), grams(pred)
    remaining = list(t)
    tp = 0
    for g in p:
        if g in remaining:
            remaining.remove(g)
            tp += 1
    fp, fn = len(p) - tp, len(t) - tp
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d", "é", "x1"]), max_size=14),
    st.lists(st.sampled_from(["a", "b", "c", "d", "é", "x1"]), max_size=14),
)
def test_page_counts_match_a_brute_force_count(true_words, pred_words):
    true, pred = " ".join(true_words), " ".join(pred_words)
    counts = page_counts(true, pred)
    assert (counts.tp, counts.fp, counts.fn) == pytest.approx(_brute(true, pred))


# ------------------------------------------------------------------ the web-extraction benchmark's word F1


def test_word_f1_worked_by_hand():
    from wikihowqa.parse.metric import word_score

    # reference words: the×2 cat sat; extracted: the cat cat dog -> overlap the×1 cat×1 = 2
    score = word_score("The cat sat, the end?", "the CAT cat dog")
    assert score.precision == pytest.approx(2 / 4) and score.recall == pytest.approx(2 / 5)
    assert score.f1 == pytest.approx(2 * 0.5 * 0.4 / 0.9)


def test_an_empty_extraction_scores_zero_and_snippets_are_case_insensitive_substrings():
    from wikihowqa.parse.metric import summarise, word_score

    empty = word_score("some text", "", with_=["some text"], without=["menu"])
    assert (empty.f1, empty.found, empty.avoided) == (0.0, 0, 1)
    both_empty = word_score("", "")
    assert both_empty.f1 == 1.0
    page = word_score(
        "Add the flour", "add THE flour. Menu", with_=["Add the", "sugar"], without=["menu", "x"]
    )
    assert (page.found, page.wanted, page.avoided, page.unwanted) == (1, 2, 1, 2)
    total = summarise([empty, page])
    assert total.f1 == pytest.approx((0 + page.f1) / 2)
    assert total.with_rate == pytest.approx(1 / 3) and total.without_rate == pytest.approx(2 / 3)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "D", "e1", "_"]), max_size=30),
    st.lists(st.sampled_from(["a", "b", "c", "d", "e1", "z"]), max_size=30),
)
def test_word_f1_equals_a_brute_force_count(truth, guess):
    from wikihowqa.parse.metric import word_score

    ref, out = [w.lower() for w in truth], [w.lower() for w in guess]
    left, overlap = list(ref), 0
    for word in out:  # multiset intersection, one match at a time
        if word in left:
            left.remove(word)
            overlap += 1
    score = word_score(" ".join(truth), " ".join(guess))
    if not ref and not out:
        assert score.f1 == 1.0
    elif not ref or not out:
        assert score.f1 == 0.0
    else:
        p, r = overlap / len(out), overlap / len(ref)
        assert score.precision == pytest.approx(p) and score.recall == pytest.approx(r)
        assert score.f1 == pytest.approx(2 * p * r / (p + r) if p + r else 0.0)
