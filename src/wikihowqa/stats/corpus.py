"""Per-example statistics and their aggregation: the paper's Table 1, category counts, Table 2, fragments.

Counting follows Multi-News's ``get_stats.py``: sentences are Punkt sentences of the original text and
words are tok-tok tokens of each sentence (so punctuation marks count as words, as in that script).
Novel n-grams and fragments follow their own modules. The work is per example and independent, so it
runs in forked worker processes (sharing the loaded tokenizers) while the documents stream by.
"""

from __future__ import annotations

import gc
import math
import multiprocessing as mp
import os
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import fmean, median, pstdev
from typing import Any

import numpy as np

from wikihowqa.core.records import SPLITS, Example
from wikihowqa.core.sentences import sentences
from wikihowqa.runtime.executor import Executor, worker_count
from wikihowqa.runtime.workers import init_worker
from wikihowqa.stats.fragments import DOCUMENT_JOINER, encode_ids, match_ids, scores
from wikihowqa.stats.ngrams import NGRAM_ORDERS, novel_ratios_ids
from wikihowqa.stats.tokens import _spacy_tokenizer, _toktok, spacy_ids_many, toktok_ids_many

ALL = "all"
UNSPLIT = "unsplit"


@dataclass(frozen=True, slots=True)
class ExampleStats:
    """Everything the report needs about one example."""

    article_id: int
    split: str | None
    category: str | None
    answer_words: int
    answer_sentences: int
    document_words: tuple[int, ...]
    document_sentences: tuple[int, ...]
    novel: tuple[float | None, ...]  # n = 1..4
    coverage: float
    density: float
    compression: float

    def to_dict(self) -> dict[str, Any]:
        row = asdict(self)
        row["document_words"] = list(self.document_words)
        row["document_sentences"] = list(self.document_sentences)
        row["novel"] = list(self.novel)
        return row


def example_stats(example: Example, documents: Sequence[str]) -> ExampleStats:
    """Table 1 counts, novel n-grams and fragment scores of one example and its documents' texts."""
    return batch_stats([(example, documents)])[0]


def batch_stats(batch: Sequence[tuple[Example, Sequence[str]]]) -> list[ExampleStats]:
    """``example_stats`` of several examples; the tokenizers' caches are filled once for all of them."""
    # Punkt's sentences as they come (strip=False), as the Multi-News script tokenizes them
    sents = [[sentences(t, strip=False) for t in (example.answer, *docs)] for example, docs in batch]
    # Lowercased tok-tok tokens and spaCy tokens, as integer ids.
    tokens = iter(toktok_ids_many([s for group in sents for s in group]))
    spacy = iter(spacy_ids_many([t for e, docs in batch for t in (e.answer, DOCUMENT_JOINER.join(docs))]))
    out: list[ExampleStats] = []
    for (example, documents), groups in zip(batch, sents, strict=True):
        answer_tokens = next(tokens)
        doc_tokens = [next(tokens) for _ in documents]
        source = np.concatenate(doc_tokens) if doc_tokens else np.zeros(0, dtype=np.int64)
        summary, article = next(spacy), next(spacy)
        coverage, density, compression = scores(
            match_ids(*encode_ids(summary, article)), len(summary), len(article)
        )
        out.append(
            ExampleStats(
                article_id=example.article_id,
                split=example.split,
                category=example.category,
                answer_words=len(answer_tokens),
                answer_sentences=len(groups[0]),
                document_words=tuple(len(t) for t in doc_tokens),
                document_sentences=tuple(len(s) for s in groups[1:]),
                novel=novel_ratios_ids(answer_tokens, source, NGRAM_ORDERS),
                coverage=coverage,
                density=density,
                compression=compression,
            )
        )
    return out


# --------------------------------------------------------------------------- running


#: Examples per batch of work: with a worker's window of batches, what the statistics hold of the corpus.
CHUNK = 64


def _batches(
    examples: Sequence[Example], texts: Iterable[tuple[int, Sequence[str]]], chunk: int
) -> Iterator[tuple[list[int], list[tuple[Example, tuple[str, ...]]]]]:
    """``chunk`` examples at a time with their texts, as the texts arrive (the indices beside them)."""
    indices: list[int] = []
    batch: list[tuple[Example, tuple[str, ...]]] = []
    for index, docs in texts:
        indices.append(index)
        batch.append((examples[index], tuple(docs)))
        if len(batch) >= chunk:
            yield indices, batch
            indices, batch = [], []
    if batch:
        yield indices, batch


def compute(
    examples: Sequence[Example],
    texts: Mapping[int, Sequence[str]],
    *,
    workers: int | None = None,
    chunk: int | None = None,
    progress: Callable[[int], None] = lambda _: None,
    executor: Executor | None = None,
) -> list[ExampleStats]:
    """Statistics of every example, in order; ``texts`` maps an article id to its documents' texts."""
    pairs = ((i, texts.get(e.article_id, ())) for i, e in enumerate(examples))
    return compute_stream(examples, pairs, workers=workers, chunk=chunk, progress=progress, executor=executor)


def compute_stream(
    examples: Sequence[Example],
    texts: Iterable[tuple[int, Sequence[str]]],
    *,
    workers: int | None = None,
    chunk: int | None = None,
    progress: Callable[[int], None] = lambda _: None,
    executor: Executor | None = None,
) -> list[ExampleStats]:
    """Statistics of every example, in the examples' order; ``texts`` yields ``(index of an example, its
    documents' texts)`` once per example, in any order, so the corpus can stream by: only a bounded
    window of batches is in flight and only the per-example results are kept.

    ``chunk``: examples per batch (default ``CHUNK``); ``workers`` defaults to the usable CPU count;
    ``progress`` is called with the number just done. A distributed ``executor``
    (``wikihowqa.runtime.executor``) computes the same batches on its workers.
    """
    workers = worker_count(workers)
    chunk = chunk or CHUNK
    out: list[ExampleStats | None] = [None] * len(examples)
    batches = _batches(examples, texts, chunk)
    if executor is not None and executor.distributed:
        order: deque[list[int]] = deque()

        def sent() -> Iterator[list[tuple[Example, tuple[str, ...]]]]:
            for indices, batch in batches:
                order.append(indices)
                yield batch

        _place(out, _zip_order(order, executor.map(batch_stats, sent())), progress)
        return _complete(out)
    _spacy_tokenizer(), _toktok(), sentences("Warm up. Forked workers share the loaded tokenizers.")
    # The work makes millions of short-lived tuples and no reference cycles; the cyclic garbage
    # collector's passes over the large, long-lived caches cost 20-50 % of the run.
    collecting = gc.isenabled()
    gc.disable()
    try:
        if workers == 1 or len(examples) <= chunk or "fork" not in mp.get_all_start_methods():
            _place(out, ((i, batch_stats(b)) for i, b in batches), progress)
            return _complete(out)
        gc.freeze()  # so that the collector never touches (and copies) the parent's pages in a worker
        with mp.get_context("fork").Pool(workers, init_worker, (os.getpid(),)) as pool:  # die with us
            _place(out, _windowed(pool, batches, 4 * workers), progress)
        return _complete(out)
    finally:
        gc.unfreeze()
        if collecting:
            gc.enable()


def _zip_order(
    order: deque[list[int]], results: Iterator[list[ExampleStats]]
) -> Iterator[tuple[list[int], list[ExampleStats]]]:
    """Each in-order result beside the indices of the batch it came from."""
    for result in results:
        yield order.popleft(), result


def _windowed(
    pool: Any, batches: Iterator[tuple[list[int], list[tuple[Example, tuple[str, ...]]]]], window: int
) -> Iterator[tuple[list[int], list[ExampleStats]]]:
    """Batches through the pool with at most ``window`` in flight (``Pool.imap`` would read its whole
    input ahead, and with it the corpus)."""
    pending: deque[tuple[list[int], Any]] = deque()
    for indices, batch in batches:
        pending.append((indices, pool.apply_async(batch_stats, (batch,))))
        if len(pending) >= window:
            done, result = pending.popleft()
            yield done, result.get()
    while pending:
        done, result = pending.popleft()
        yield done, result.get()


def _place(
    out: list[ExampleStats | None],
    parts: Iterable[tuple[list[int], list[ExampleStats]]],
    progress: Callable[[int], None],
) -> None:
    for indices, part in parts:
        for index, stats in zip(indices, part, strict=True):
            out[index] = stats
        progress(len(part))


def _complete(out: list[ExampleStats | None]) -> list[ExampleStats]:
    missing = [i for i, s in enumerate(out) if s is None]
    if missing:
        raise RuntimeError(f"no texts came for {len(missing)} examples (first: index {missing[0]})")
    return [s for s in out if s is not None]


# --------------------------------------------------------------------------- aggregation


def _groups(stats: Sequence[ExampleStats]) -> dict[str, list[ExampleStats]]:
    """Examples per split (canonical order, only splits present), then all of them."""
    groups: dict[str, list[ExampleStats]] = {}
    for name in (*SPLITS, UNSPLIT):
        members = [s for s in stats if (s.split or UNSPLIT) == name]
        if members:
            groups[name] = members
    groups[ALL] = list(stats)
    return groups


def _summary(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "median": None, "std": None}
    return {"mean": fmean(values), "median": float(median(values)), "std": pstdev(values)}


def table1(stats: Sequence[ExampleStats]) -> dict[str, dict[str, Any]]:
    """The paper's Table 1 per split: counts and per-answer / per-document lengths."""
    rows: dict[str, dict[str, Any]] = {}
    for name, members in _groups(stats).items():
        doc_words = [w for s in members for w in s.document_words]
        doc_sents = [n for s in members for n in s.document_sentences]
        rows[name] = {
            "questions": len(members),
            "documents": len(doc_words),
            "documents_per_question": _summary([len(s.document_words) for s in members]),
            "answer_words": _summary([s.answer_words for s in members]),
            "answer_sentences": _summary([s.answer_sentences for s in members]),
            "document_words": _summary(doc_words),
            "document_sentences": _summary(doc_sents),
            "documents_words_per_question": _summary([sum(s.document_words) for s in members]),
            "questions_without_documents": sum(1 for s in members if not s.document_words),
        }
    return rows


def categories(stats: Sequence[ExampleStats]) -> dict[str, dict[str, int]]:
    """Questions per category, per split; empty when the dataset has no categories."""
    if all(s.category is None for s in stats):
        return {}
    return {
        name: dict(Counter(s.category or "(none)" for s in members).most_common())
        for name, members in _groups(stats).items()
    }


def table2(stats: Sequence[ExampleStats]) -> dict[str, dict[str, Any]]:
    """Mean percentage of novel n-grams per split (Multi-News definition), with the examples counted."""
    rows: dict[str, dict[str, Any]] = {}
    for name, members in _groups(stats).items():
        row: dict[str, Any] = {}
        for k, n in enumerate(NGRAM_ORDERS):
            values = [s.novel[k] for s in members if s.novel[k] is not None]
            row[f"novel_{n}grams_percent"] = 100 * fmean(values) if values else None
            row[f"examples_{n}grams"] = len(values)
        rows[name] = row
    return rows


def fragment_scores(stats: Sequence[ExampleStats]) -> dict[str, dict[str, Any]]:
    """Mean (and median) coverage, density and compression per split, over examples with documents."""
    rows: dict[str, dict[str, Any]] = {}
    for name, members in _groups(stats).items():
        kept = [s for s in members if s.document_words and s.answer_words]
        rows[name] = {
            "coverage": _summary([s.coverage for s in kept]),
            "density": _summary([s.density for s in kept]),
            "compression": _summary([s.compression for s in kept]),
            "examples": len(kept),
        }
    return rows


def finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value
