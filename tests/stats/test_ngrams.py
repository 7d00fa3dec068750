"""Novel n-grams follow the Multi-News statistics script: hand-worked cases and the script's own steps."""

from __future__ import annotations

import numpy as np
import nupunkt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.tokenize import ToktokTokenizer

from wikihowqa.stats.ngrams import novel_ngram_ratio, novel_ratios, novel_ratios_ids


def script_ratio(summary_tokens, source_tokens, n):
    """The script's arithmetic: ``np.setdiff1d`` of joined n-grams over the count of all summary n-grams."""
    grams = [" ".join(summary_tokens[i : i + n]) for i in range(len(summary_tokens) - n + 1)]
    seen = [" ".join(source_tokens[i : i + n]) for i in range(len(source_tokens) - n + 1)]
    if not grams:
        return None
    return len(np.setdiff1d(grams, seen)) / len(grams)


def test_hand_worked_example():
    summary = ["the", "cat", "sat", ".", "the", "cat", "ran", "."]
    source = ["a", "cat", "sat", "on", "the", "mat", ".", "dogs", "ran", "."]
    # unigrams: all known -> 0/8; bigrams: {the cat, sat ., . the, cat ran} novel of 7 (the cat twice);
    # trigrams and 4-grams: none occur in the source.
    assert novel_ratios(summary, source) == (0.0, pytest.approx(4 / 7), 1.0, 1.0)


def test_repeated_novel_ngrams_count_once_over_all_ngrams():
    assert novel_ratios(["x", "x", "x"], ["y"], (1, 2)) == (pytest.approx(1 / 3), pytest.approx(1 / 2))


def test_too_short_summary_has_no_ratio_and_empty_source_is_all_novel():
    assert novel_ratios(["one"], ["one"], (1, 2)) == (0.0, None)
    assert novel_ratios(["a", "b"], [], (1, 2)) == (1.0, 1.0)
    with pytest.raises(ValueError):
        novel_ngram_ratio("a", ["b"], 0)


def test_text_is_split_into_sentences_toktok_tokenized_and_lowercased():
    summary = "To dry figs, cut them in half. Then, place the figs on a rack."
    documents = ["Cut the figs in half.", "Place them on a rack, cut side up."]
    toktok = ToktokTokenizer()

    def script_tokens(text):
        return [t.lower() for s in nupunkt.sent_tokenize(text) for t in toktok.tokenize(s)]

    source = [t for d in documents for t in script_tokens(d)]
    for n in (1, 2, 3, 4):
        assert novel_ngram_ratio(summary, documents, n) == pytest.approx(
            script_ratio(script_tokens(summary), source, n)
        )
    assert novel_ngram_ratio("Cut them in half.", ["CUT THEM IN HALF."], 4) == 0.0


vocab = st.sampled_from(["a", "b", "c", "d", "e", "f"])


@settings(max_examples=500, deadline=None)
@given(st.lists(vocab, max_size=30), st.lists(vocab, max_size=80), st.integers(1, 4))
def test_novel_ratios_equal_the_script_arithmetic(summary, source, n):
    expected = script_ratio(summary, source, n)
    got = novel_ratios(summary, source, (n,))[0]
    assert got == (None if expected is None else pytest.approx(expected))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 6), max_size=30), st.lists(st.integers(1, 8), max_size=80), st.integers(1, 4))
def test_novel_ratios_of_token_ids_equal_the_script_arithmetic(summary, source, n):
    expected = script_ratio([str(t) for t in summary], [str(t) for t in source], n)
    got = novel_ratios_ids(np.array(summary, dtype=np.int64), np.array(source, dtype=np.int64), (n,))[0]
    assert got == (None if expected is None else pytest.approx(expected))
