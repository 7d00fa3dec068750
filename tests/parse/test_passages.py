"""Passages keep paragraphs, lists and tables whole where they can and are exact slices of the text."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wikihowqa.parse.blocks import Block
from wikihowqa.parse.passages import blocks_from_text, passage_spans, split_passages


def words(n: int, stem: str = "w") -> str:
    return " ".join(f"{stem}{i}" for i in range(n))


def test_short_paragraphs_are_packed_together_up_to_the_limit():
    text = "\n".join([words(40, "a"), words(40, "b"), words(40, "c")])
    assert split_passages(text, max_words=100) == [f"{words(40, 'a')}\n{words(40, 'b')}", words(40, "c")]


def test_a_paragraph_is_never_cut_when_it_fits():
    text = "\n".join([words(70, "a"), words(60, "b")])
    assert split_passages(text, 100) == [words(70, "a"), words(60, "b")]


def test_a_long_paragraph_is_cut_at_sentence_ends():
    sentence = "The kettle boils water quickly and safely for tea every morning. "
    paragraph = (sentence * 20).strip()  # 11 words per sentence, 220 words
    passages = split_passages(paragraph, max_words=50)
    assert all(p.endswith("morning.") for p in passages)
    assert all(len(p.split()) <= 50 for p in passages)
    assert " ".join(passages) == paragraph


def test_a_run_on_sentence_is_cut_into_word_windows():
    passages = split_passages(words(250), max_words=100)
    assert [len(p.split()) for p in passages] == [100, 100, 50]


def test_a_list_stays_whole_when_it_fits_in_a_fresh_passage():
    intro = words(60, "p")
    items = [f"- {words(9, f'i{k}_')}" for k in range(5)]  # 50 words of list
    passages = split_passages("\n".join([intro, *items]), max_words=100)
    assert passages == [intro, "\n".join(items)]


def test_a_long_list_is_cut_between_items_not_inside_one():
    items = [f"- {words(29, f'i{k}_')}" for k in range(6)]  # 30 words each
    passages = split_passages("\n".join(items), max_words=100)
    assert passages == ["\n".join(items[:3]), "\n".join(items[3:])]


def test_a_heading_starts_the_passage_of_what_follows_it():
    text = "\n".join([words(80, "a"), "Safety Tips", words(50, "b")])
    passages = split_passages(text, 100)
    assert passages == [words(80, "a"), f"Safety Tips\n{words(50, 'b')}"]


def test_table_rows_from_blocks_are_kept_together():
    rows = [Block("row", f"Row {k} | {words(5)}", 0) for k in range(4)]
    blocks = [Block("paragraph", words(70, "p")), *rows]
    text = "\n".join(b.text for b in blocks)
    spans = passage_spans(text, blocks, max_words=100)
    assert [s.text for s in spans] == [words(70, "p"), "\n".join(r.text for r in rows)]


def test_spans_are_exact_slices_with_positions():
    text = "First line here.\n\n  Second paragraph with several words.  \n- item one\n- item two\n"
    spans = passage_spans(text, max_words=6)
    assert [s.position for s in spans] == list(range(len(spans)))
    for span in spans:
        assert text[span.start : span.end] == span.text
        assert span.words == len(span.text.split())


def test_blocks_are_guessed_from_plain_text():
    text = (
        "How to Wash Wool\nWool shrinks in hot water, so always use a cool wash and a gentle detergent.\n"
        "- Fill a basin\n- Soak ten minutes\nSize | Water\nS | 2 l"
    )
    kinds = [(b.kind, b.group) for b in blocks_from_text(text)]
    assert kinds == [("heading", -1), ("paragraph", -1), ("item", 0), ("item", 0), ("row", 1), ("row", 1)]


def test_empty_text_has_no_passages_and_bad_limits_are_refused():
    assert split_passages("") == []
    assert split_passages("\n \n") == []
    with pytest.raises(ValueError):
        split_passages("text", max_words=0)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(alphabet="abcdefg .!?", min_size=1, max_size=300),
            st.builds(lambda s: "- " + s, st.text(alphabet="xyz ", min_size=1, max_size=40)),
        ),
        max_size=25,
    ),
    st.integers(min_value=1, max_value=60),
)
def test_every_word_lands_in_exactly_one_passage_in_order(paragraphs, max_words):
    text = "\n".join(paragraphs)
    spans = passage_spans(text, max_words=max_words)
    assert [w for s in spans for w in s.text.split()] == text.split()
    assert all(s.words <= max_words for s in spans)
    assert all(text[s.start : s.end] == s.text for s in spans)
    assert all(a.end <= b.start for a, b in itertools.pairwise(spans))
