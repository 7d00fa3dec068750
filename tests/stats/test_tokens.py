"""The fast tokenizers give exactly the reference libraries' tokens, on any text."""

from __future__ import annotations

import spacy
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.tokenize import ToktokTokenizer

from wikihowqa.stats import tokens
from wikihowqa.stats.tokens import (
    spacy_ids_many,
    spacy_tokens,
    spacy_tokens_many,
    token_id,
    toktok_document,
    toktok_documents,
    toktok_ids_many,
    toktok_sentences,
    toktok_tokens,
)

SPACY = spacy.blank("en").tokenizer
TOKTOK = ToktokTokenizer()

# Pieces that exercise every tok-tok rule and spaCy's prefixes, suffixes, infixes and special cases.
PIECES = [
    "the",
    "Dog",
    "don't",
    "U.S.",
    "e.g.",
    "etc.",
    "Dr.",
    "3.5",
    "1,200",
    "10,",
    ",5",
    ",,",
    "--",
    "...",
    "..",
    ".",
    "?",
    "!",
    "'",
    "''",
    '"',
    "’",
    "`",
    "``",
    "»",
    "›",
    "”",
    "“",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "&",
    "& ",
    "|",
    ":",
    "://",
    "http://x.org/a/b",
    "/",
    "/usr",
    "a/b",
    "$5",
    "€",
    "£3",
    "–",
    "—",
    "%",
    ":)",
    "<3",
    "°F",
    "can't",
    "It's",
    "x-ray",
    "A.",
    "mr.",
    "N.Y.",
    "…",
    "¡",
    "¿",
    "،",
    "؛",
    "«",
    "‹",
    "café",
    "İstanbul",
    "ŉ",
    "5km",
    "o'clock",
    "'s",
    "hello.",
    'said."',
    "end.'",
    "a.b.c",
    "#",
    "@me",
]
SPACES = [" ", " ", " ", "  ", "\n", "\n\n", "\t", "\xa0", " \n", "\n ", "\r\n", "\u2009", " \t "]

texts = st.lists(
    st.tuples(st.sampled_from(PIECES) | st.text(max_size=3), st.sampled_from(SPACES) | st.just("")),
    max_size=14,
).map(lambda parts: "".join(piece + space for piece, space in parts))
edges = st.sampled_from(["", " ", "  ", "\n", "\t", "\xa0"])
# Dense in the characters whose meaning depends on the neighbouring whitespace.
dense = st.text(alphabet="ab1.,&/:?|'’\"”`-$( )\n\t\xa0", max_size=30)
# ... and without tabs, which send a sentence to tok-tok whole.
contexts = st.text(alphabet="a&/.?:,'\"” \n\xa0", max_size=20)
any_text = st.tuples(edges, texts, edges).map("".join) | dense | contexts


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_spacy_tokens_are_spacys_tokens(text):
    tokens._spacy_cache.clear()  # so that new chunks are tokenized in one batch, as in real use
    tokens._spacy_lower_cache.clear()
    assert spacy_tokens(text) == [t.text for t in SPACY(text)]
    assert spacy_tokens(text, lower=True) == [t.text.lower() for t in SPACY(text)]


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_toktok_tokens_are_nltk_toktok_tokens(text):
    assert toktok_tokens(text) == TOKTOK.tokenize(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(any_text, max_size=8))
def test_toktok_batches_of_sentences_are_nltk_toktok_tokens(sentences_):
    tokens._toktok_cache.clear()  # so that new chunks are tokenized in one batch, as in real use
    assert toktok_sentences(sentences_) == [TOKTOK.tokenize(s) for s in sentences_]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(any_text | st.sampled_from(["Cut the figs.", "x", "a b", 'He said "no."', "so ’"]), max_size=12)
)
def test_a_whole_document_of_sentences_gives_nltk_toktok_tokens_in_order(sentences_):
    tokens._toktok_cache.clear()
    tokens._toktok_mid.clear()
    assert toktok_document(sentences_) == [t for s in sentences_ for t in TOKTOK.tokenize(s)]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(any_text, max_size=5), max_size=4), st.lists(any_text, max_size=4))
def test_many_documents_in_one_batch_give_the_reference_tokens(documents, texts_):
    tokens._toktok_cache.clear()
    tokens._toktok_mid.clear()
    tokens._spacy_cache.clear()
    tokens._spacy_lower_cache.clear()
    assert toktok_documents(documents) == [[t for s in doc for t in TOKTOK.tokenize(s)] for doc in documents]
    assert spacy_tokens_many(texts_, lower=True) == [[t.text.lower() for t in SPACY(x)] for x in texts_]
    ids = toktok_ids_many(documents)
    assert [a.tolist() for a in ids] == [
        [token_id(t) for s in d for t in TOKTOK.tokenize(s)] for d in documents
    ]
    ids = spacy_ids_many(texts_)
    assert [a.tolist() for a in ids] == [[token_id(t.text) for t in SPACY(x)] for x in texts_]


def test_token_ids_stand_for_lowercased_tokens():
    assert token_id("Figs") == token_id("figs") != token_id("fig")


@settings(max_examples=200, deadline=None)
@given(texts)
def test_lowercasing_before_or_after_toktok_is_the_same(text):
    assert [t.lower() for t in toktok_tokens(text)] == toktok_tokens(text.lower())


def test_hand_picked_cases():
    assert spacy_tokens("a  b") == ["a", " ", "b"]
    assert spacy_tokens(" a\n\nb ") == [" ", "a", "\n\n", "b"]
    assert toktok_tokens('He said "stop."') == ["He", "said", '"', "stop", ".", '"']
    assert toktok_tokens("He said stop. ’") == ["He", "said", "stop", ".", "’"]
    assert toktok_tokens("A & B\tC | D") == ["A", "&amp;", "B", "&#9;", "C", "&#124;", "D"]
    assert toktok_tokens("go /home now.") == ["go", "/", "home", "now", "."]
    assert toktok_tokens("go\n/home now") == ["go", "/home", "now"]
    assert toktok_tokens("A &\nB c") == ["A", "&", "B", "c"]
    assert toktok_tokens("A &\xa0B c") == ["A", "&amp;", "B", "c"]
