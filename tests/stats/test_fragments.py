"""Fragments follow the Newsroom reference exactly: hand-worked cases and a brute-force scan."""

from __future__ import annotations

import numpy as np
import pytest
import spacy
from hypothesis import given, settings
from hypothesis import strategies as st

from wikihowqa.stats.fragments import (
    Fragments,
    Match,
    encode_ids,
    greedy_fragments,
    match_ids,
    multi_document_fragments,
)

NLP = spacy.blank("en")


def brute_force(a, b):
    """The Newsroom ``_match`` loop, written out again here: O(|a|·|b|) per summary."""
    matches = []
    i = 0
    while i < len(a):
        best, best_len = None, 0
        j = 0
        while j < len(b):
            if a[i] == b[j]:
                k = 0
                while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                    k += 1
                if k > best_len:
                    best, best_len = (i, j, k), k
                j += k  # the reference resumes after the run
            else:
                j += 1
        if best:
            matches.append(best)
            i += best_len
        else:
            i += 1
    return matches


def test_hand_worked_example():
    # summary: the cat sat on the mat .      text: a cat sat on a mat . the cat ran .
    f = Fragments("The cat sat on the mat.", "A cat sat on a mat. The cat ran.")
    assert f.overlaps() == [Match(0, 7, 2), Match(2, 2, 2), Match(4, 7, 1), Match(5, 5, 2)]
    assert f.strings() == ["The cat", "sat on", "the", "mat."]
    assert f.strings(min_length=1) == ["The cat", "sat on", "mat."]
    assert f.coverage() == pytest.approx(7 / 7)
    assert f.density() == pytest.approx((4 + 4 + 1 + 4) / 7)
    assert f.compression() == pytest.approx(11 / 7)


def test_the_scan_skips_occurrences_inside_a_run_as_the_reference_does():
    # The longest match of "x x y" in "x x x y" starts at 1, but the reference's scan resumes after
    # the first run (0..2) and never tries 1: it keeps "x x" at 0, then "y" at 3.
    assert greedy_fragments(list("xxy"), list("xxxy")) == [Match(0, 0, 2), Match(2, 3, 1)]
    f = Fragments("x x y", "x x x y")
    assert f.density() == pytest.approx((4 + 1) / 3)


def test_first_of_equally_long_matches_and_case_handling():
    assert greedy_fragments(list("ab"), list("zabab")) == [Match(0, 1, 2)]
    assert Fragments("Hello World", "hello world").coverage() == 1.0
    assert Fragments("Hello World", "hello world", case=True).coverage() == 0.0


def test_empty_inputs_score_zero_like_the_reference():
    assert Fragments("", "some text").compression() == 0
    assert Fragments("", "some text").coverage() == 0
    assert Fragments("words", "").overlaps() == []
    assert Fragments("words", "").compression() == 0


def test_multiple_documents_are_concatenated():
    f = multi_document_fragments("Stir the soup. Serve hot.", ["Stir the soup gently.", "Serve it hot."])
    # stir the soup . serve hot .  in  stir the soup gently . \n\n serve it hot .
    assert f.overlaps() == [Match(0, 0, 3), Match(3, 4, 1), Match(4, 6, 1), Match(5, 8, 2)]
    assert len(f.text) == 10  # the blank line between documents is one spaCy token, as in the reference


tokens = st.lists(st.sampled_from("abcde"), max_size=40)


@settings(max_examples=600, deadline=None)
@given(tokens, tokens)
def test_fast_matching_equals_brute_force_on_small_alphabets(a, b):
    assert [tuple(m) for m in greedy_fragments(a, b)] == brute_force(a, b)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("ab"), max_size=25), st.lists(st.sampled_from("abc"), max_size=200))
def test_fast_matching_equals_brute_force_with_long_repetitive_texts(a, b):
    assert [tuple(m) for m in greedy_fragments(a, b)] == brute_force(a, b)


words = st.sampled_from(["the", "The", "cat", "sat", ".", ",", "mat", "on", "a", "\n", "ran"])


@settings(max_examples=200, deadline=None)
@given(st.lists(words, max_size=20), st.lists(words, max_size=60))
def test_fragments_on_text_equal_brute_force_on_spacy_tokens(summary_words, text_words):
    summary, text = " ".join(summary_words), " ".join(text_words)
    a = [t.text.lower() for t in NLP(summary)]
    b = [t.text.lower() for t in NLP(text)]
    expected = brute_force(a, b)
    f = Fragments(summary, text)
    assert [tuple(m) for m in f.overlaps()] == expected
    if a:
        assert f.coverage() == pytest.approx(sum(k for _, _, k in expected) / len(a))
        assert f.density() == pytest.approx(sum(k * k for _, _, k in expected) / len(a))
        assert f.compression() == pytest.approx(len(b) / len(a))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(3, 9), max_size=30), st.lists(st.integers(1, 9), max_size=120))
def test_matching_token_ids_equals_brute_force(a, b):
    got = match_ids(*encode_ids(np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)))
    assert [tuple(m) for m in got] == brute_force(a, b)
