"""The paper's input builder: whole passages only, never over the limit, as many as fit, in source order."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from wikihowqa.core.records import Passage
from wikihowqa.generate.context import InputFormat, build_input, hf_token_counter, render, source_order
from wikihowqa.retrieve.ranking import Ranked

QUESTION = "how to qa qb"


def make_ranking(lengths: list[int], docs: list[int], order: list[int]) -> list[Ranked]:
    """Passage i has ``lengths[i]`` unique words (``p{i}w{j}``) and sits in document ``docs[i]``."""
    passages = [
        Passage(article_id=7, doc_index=docs[i], position=i, text=" ".join(f"p{i}w{j}" for j in range(n)))
        for i, n in enumerate(lengths)
    ]
    return [Ranked(passages[i], float(len(order) - r), r + 1) for r, i in enumerate(order)]


def words_plus_specials(text: str) -> int:
    return len(text.split()) + 2  # like BART: <s> … </s>


def chars_over_three(text: str) -> int:
    return math.ceil(len(text) / 3) + 1  # not additive: joining strings changes the count


def superadditive(text: str) -> int:
    n = len(text.split())
    return n + n * n // 50  # pieces sum to less than the whole: a per-passage estimate undershoots


@st.composite
def rankings(draw):
    n = draw(st.integers(0, 12))
    lengths = draw(st.lists(st.integers(1, 40), min_size=n, max_size=n))
    docs = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    order = draw(st.permutations(list(range(n))))
    return make_ranking(lengths, docs, order)


def check_invariants(question, ranking, count, limit, built):
    words = built.text.split()
    # never over the limit, and the count reported is the rendered string's
    assert built.n_tokens == count(built.text) <= limit
    # a prefix of the ranking: rank order decides what is kept
    assert list(built.kept) == list(ranking[: len(built.kept)])
    # as many as fit: one more passage would pass the limit
    if len(built.kept) < len(ranking):
        assert count(render(question, ranking[: len(built.kept) + 1])) > limit
    # never cuts a passage: each kept passage's words appear whole and contiguous; no other passage's appear
    starts = []
    for r in built.kept:
        passage_words = r.passage.text.split()
        start = words.index(passage_words[0])
        assert words[start : start + len(passage_words)] == passage_words
        starts.append((start, r))
    for r in ranking[len(built.kept) :]:
        assert r.passage.text.split()[0] not in words
    # reordered by source document, then position
    assert [r for _, r in sorted(starts, key=lambda x: x[0])] == source_order(built.kept)


@settings(max_examples=200, deadline=None)
@given(ranking=rankings(), limit=st.integers(1, 400))
def test_word_tokenizer_never_cuts_never_exceeds_and_fills(ranking, limit):
    assume(words_plus_specials(QUESTION) <= limit)
    built = build_input(QUESTION, ranking, words_plus_specials, limit)
    check_invariants(QUESTION, ranking, words_plus_specials, limit, built)


@pytest.mark.parametrize("count", [chars_over_three, superadditive])
@settings(max_examples=150, deadline=None)
@given(ranking=rankings(), limit=st.integers(1, 900))
def test_a_non_additive_tokenizer_still_never_exceeds_the_limit(count, ranking, limit):
    assume(count(QUESTION) <= limit)
    built = build_input(QUESTION, ranking, count, limit)
    check_invariants(QUESTION, ranking, count, limit, built)


@pytest.fixture(scope="module")
def bpe_counter():
    """A real Hugging Face tokenizer (byte-level BPE trained here) counting as the generator would."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = [" ".join(f"p{i}w{j}" for j in range(40)) for i in range(12)] + [QUESTION]
    tok.train_from_iterator(
        corpus, trainers.BpeTrainer(vocab_size=300, special_tokens=["<s>", "</s>", "<p>"])
    )
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))],
    )
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>")
    fast.add_special_tokens({"additional_special_tokens": ["<p>"]})
    return hf_token_counter(fast)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ranking=rankings(), limit=st.integers(8, 600))
def test_a_real_subword_tokenizer_never_cuts_never_exceeds_and_fills(bpe_counter, ranking, limit):
    assume(bpe_counter(QUESTION) <= limit)
    built = build_input(QUESTION, ranking, bpe_counter, limit)
    check_invariants(QUESTION, ranking, bpe_counter, limit, built)


def test_default_format_is_the_reconstructed_paper_format():
    ranking = make_ranking([1, 1, 1], docs=[0, 0, 1], order=[2, 0, 1])
    built = build_input("q", ranking, words_plus_specials, 100)
    assert built.text == "q </s> p0w0 <p> p1w0 </s> p2w0"


def test_kept_passages_are_reordered_by_document_then_position():
    ranking = make_ranking([1, 1, 1, 1], docs=[1, 0, 1, 0], order=[2, 3, 0, 1])
    assert render("q", ranking) == "q </s> p1w0 <p> p3w0 </s> p0w0 <p> p2w0"


def test_separators_and_document_labels_are_settings():
    fmt = InputFormat(question_sep=" || ", document_sep=" ## ", passage_sep=" / ", document_prefix="[{n}] ")
    ranking = make_ranking([1, 1, 1], docs=[0, 1, 1], order=[0, 1, 2])
    assert render("q", ranking, fmt) == "q || [1] p0w0 ## [2] p1w0 / p2w0"


def test_stops_at_the_first_passage_that_does_not_fit_even_if_a_later_one_would():
    ranking = make_ranking([5, 30, 1], docs=[0, 0, 0], order=[0, 1, 2])
    built = build_input("q", ranking, words_plus_specials, 20)
    assert [r.passage.position for r in built.kept] == [0]


def test_a_question_over_the_limit_keeps_no_passage():
    built = build_input("a very long question indeed", make_ranking([1], [0], [0]), words_plus_specials, 3)
    assert built.kept == () and built.text == "a very long question indeed"
