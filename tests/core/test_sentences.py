"""The one sentence splitter: Punkt's boundaries, and what each kind of caller keeps of them."""

from __future__ import annotations

from importlib.metadata import version
from itertools import pairwise

import nupunkt
from hypothesis import given, settings
from hypothesis import strategies as st

from wikihowqa.core import sentences
from wikihowqa.core.sentences import sentences as sentences_of
from wikihowqa.core.sentences import spans, split

TEXT = "  Hello Dr. Smith.  He left at 5 p.m. today.\n\nThen it rained. "
PIECES = [
    *("Dr.", "Smith", "left", "it", "rained", "p.m.", "U.S.", "5", "e.g."),
    *(".", "!", "?", "\n", "\n\n", " ", "  "),
]


def test_split_is_nupunkts_sentences_as_they_come():
    assert split(TEXT) == nupunkt.sent_tokenize(TEXT)
    assert split(TEXT)[0].startswith("  Hello")  # the text's leading whitespace stays with the first


def test_sentences_are_the_non_blank_punkt_sentences_stripped():
    assert sentences_of("Hello Dr. Smith. He left.\n\n") == ["Hello Dr. Smith.", "He left."]
    assert sentences_of(TEXT) == ["Hello Dr. Smith.", "He left at 5 p.m. today.", "Then it rained."]
    assert sentences_of("  \n") == [] and sentences_of("") == []


def test_unstripped_sentences_keep_what_punkt_gives():
    assert sentences_of(TEXT, strip=False) == [s for s in nupunkt.sent_tokenize(TEXT) if s.strip()]
    assert sentences_of(TEXT, strip=False)[0] == "  Hello Dr. Smith."


def test_by_lines_no_sentence_crosses_a_line_break_and_whitespace_is_collapsed():
    text = "First line has no end\nSecond   line.  Third one.\n\n\n"
    assert sentences_of(text) == ["First line has no end\nSecond   line.", "Third one."]
    assert sentences_of(text, lines=True) == ["First line has no end", "Second line.", "Third one."]


def test_spans_index_the_exact_text_trimmed():
    found = spans(TEXT)
    assert [TEXT[s:e] for s, e in found] == sentences_of(TEXT)
    assert found[0] == (2, 18)
    assert spans(" \n ") == [] and spans("") == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map(" ".join))
def test_every_variant_agrees_on_the_boundaries(text):
    found = spans(text)
    assert all(text[s:e] == text[s:e].strip() != "" for s, e in found)
    assert all(e1 <= s2 for (_, e1), (s2, _) in pairwise(found))
    assert [text[s:e] for s, e in found] == sentences_of(text)
    assert [s.strip() for s in sentences_of(text, strip=False)] == sentences_of(text)


def test_the_version_is_nupunkts():
    assert sentences.version() == version("nupunkt")
