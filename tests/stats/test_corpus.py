"""Per-example statistics and their aggregation, against hand-worked values."""

from __future__ import annotations

import nupunkt
import pytest

from wikihowqa.core.records import Example
from wikihowqa.stats import corpus
from wikihowqa.stats.corpus import ExampleStats, example_stats
from wikihowqa.synthetic.dataset import generate_corpus

ANSWER = "Cut the figs. Then dry them in the sun."
DOCS = ["Cut the figs in half.", "Dry them."]


def test_one_example_by_hand():
    assert nupunkt.sent_tokenize(ANSWER) == ["Cut the figs.", "Then dry them in the sun."]
    s = example_stats(Example(1, "How to Dry Figs", ANSWER, ("u", "v"), split="test"), DOCS)
    # tok-tok words of Punkt sentences: "Cut the figs ." + "Then dry them in the sun ."
    assert (s.answer_words, s.answer_sentences) == (11, 2)
    assert s.document_words == (6, 3) and s.document_sentences == (1, 1)
    # summary: cut the figs . then dry them in the sun .   source: cut the figs in half . dry them .
    # novel unigrams {then, sun} of 11; novel bigrams {figs ., . then, then dry, them in, in the,
    # the sun, sun .} of 10
    assert s.novel[:2] == (pytest.approx(2 / 11), pytest.approx(7 / 10))
    # spaCy tokens of the article: cut the figs in half . \n\n dry them .   fragments: "cut the figs",
    # ".", "dry them", "in", "the", "." -> lengths 3,1,2,1,1,1 over 11 summary tokens
    assert s.coverage == pytest.approx(9 / 11)
    assert s.density == pytest.approx((9 + 1 + 4 + 1 + 1 + 1) / 11)
    assert s.compression == pytest.approx(10 / 11)


def stat(split, answer_words, docs, category=None, novel=(0.1, 0.5, 0.8, None), coverage=0.9):
    return ExampleStats(
        article_id=0,
        split=split,
        category=category,
        answer_words=answer_words,
        answer_sentences=answer_words // 10,
        document_words=tuple(docs),
        document_sentences=tuple(d // 20 for d in docs),
        novel=novel,
        coverage=coverage,
        density=2.0,
        compression=50.0,
    )


def test_tables_aggregate_per_split_and_overall():
    stats = [
        stat("train", 60, [100, 300], "Health"),
        stat("train", 80, [200], "Health", novel=(0.3, 0.7, 1.0, 1.0)),
        stat("test", 100, [], "Youth", coverage=0.0),
    ]
    t1 = corpus.table1(stats)
    assert list(t1) == ["train", "test", "all"]
    assert t1["train"]["questions"] == 2 and t1["train"]["documents"] == 3
    assert t1["train"]["document_words"]["mean"] == pytest.approx(200)
    assert t1["all"]["answer_words"]["mean"] == pytest.approx(80)
    assert t1["all"]["documents_per_question"]["mean"] == pytest.approx(1)
    assert t1["test"]["questions_without_documents"] == 1
    t2 = corpus.table2(stats)
    assert t2["train"]["novel_1grams_percent"] == pytest.approx(20)
    assert t2["all"]["novel_4grams_percent"] == pytest.approx(100) and t2["all"]["examples_4grams"] == 1
    frag = corpus.fragment_scores(stats)
    assert frag["all"]["examples"] == 2  # the example without documents is left out
    assert frag["all"]["coverage"]["mean"] == pytest.approx(0.9)
    assert corpus.categories(stats)["all"] == {"Health": 2, "Youth": 1}
    assert corpus.categories([stat(None, 1, [])]) == {}


def test_worker_processes_give_the_serial_result():
    examples, documents = generate_corpus(24, 60, seed=5)
    texts: dict[int, list[str]] = {}
    for d in documents:
        texts.setdefault(d.article_id, []).append(d.parsed_text)
    serial = corpus.compute(examples, texts, workers=1)
    parallel = corpus.compute(examples, texts, workers=2, chunk=5)
    assert parallel == serial and len(serial) == 24


def test_batched_statistics_equal_the_library_functions():
    from wikihowqa.stats.fragments import multi_document_fragments
    from wikihowqa.stats.ngrams import novel_ngram_ratio

    examples, documents = generate_corpus(6, 14, seed=8)
    texts: dict[int, list[str]] = {}
    for d in documents:
        texts.setdefault(d.article_id, []).append(d.parsed_text)
    stats = corpus.batch_stats([(e, texts[e.article_id]) for e in examples])
    for e, s in zip(examples, stats, strict=True):
        docs = texts[e.article_id]
        assert s.novel == tuple(pytest.approx(novel_ngram_ratio(e.answer, docs, n)) for n in (1, 2, 3, 4))
        f = multi_document_fragments(e.answer, docs)
        assert (s.coverage, s.density, s.compression) == (
            pytest.approx(f.coverage()),
            pytest.approx(f.density()),
            pytest.approx(f.compression()),
        )


def test_examples_streamed_in_any_order_come_back_in_the_examples_order():
    examples, documents = generate_corpus(24, 60, seed=5)
    texts: dict[int, list[str]] = {}
    for d in documents:
        texts.setdefault(d.article_id, []).append(d.parsed_text)
    serial = corpus.compute(examples, texts, workers=1)
    backwards = [(i, texts[e.article_id]) for i, e in reversed(list(enumerate(examples)))]
    assert corpus.compute_stream(examples, iter(backwards), workers=2, chunk=5) == serial
    assert corpus.compute_stream(examples, iter(backwards), workers=1, chunk=5) == serial
    with pytest.raises(RuntimeError, match="no texts came for 1 examples"):
        corpus.compute_stream(examples, iter(backwards[1:]), workers=1)


def test_a_distributed_executor_gets_batches_and_its_results_land_on_their_examples():
    """A stand-in for a cluster executor that reads two batches ahead of the results it yields, as
    ``Executor.map`` does with its window: the statistics still land on their own examples."""
    from collections import deque

    class Ahead:
        distributed = True

        def map(self, fn, batches):
            batches, window = iter(batches), deque()
            for batch in batches:
                window.append(batch)
                if len(window) > 2:
                    yield fn(window.popleft())
            while window:
                yield fn(window.popleft())

    examples, documents = generate_corpus(13, 30, seed=6)
    texts: dict[int, list[str]] = {}
    for d in documents:
        texts.setdefault(d.article_id, []).append(d.parsed_text)
    serial = corpus.compute(examples, texts, workers=1)
    backwards = [(i, texts[e.article_id]) for i, e in reversed(list(enumerate(examples)))]
    assert corpus.compute_stream(examples, iter(backwards), chunk=3, executor=Ahead()) == serial
