"""ROUGE-1/2/L/Lsum with exactly the numbers of Google's ``rouge-score``, several times faster.

The definitions are ``rouge_score.rouge_scorer.RougeScorer(ROUGE_TYPES, use_stemmer=True)``: its tokenizer
(lower case, every run of characters outside ``[a-z0-9]`` is a separator, Porter stemming of tokens longer
than three characters), its n-gram counts, its LCS, and its summary-level union-LCS for ROUGE-Lsum
including the particular LCS its backtrack picks (the union of LCS index sets, and so the score, depends
on which LCS is read out). ROUGE-1/2/L are computed on the texts as given; ROUGE-Lsum on the texts with
one sentence per line (``lsum_text``: the project's nupunkt sentences, ``wikihowqa.core.sentences``, joined by
newlines), which is what ``rouge-score`` expects and what ``nltk.sent_tokenize`` gave the papers of the time.

Why not call ``rouge-score``: on paper-like answers it scores ~35-140 pairs/s, almost all of it Python DP
tables and re-stemming the same words. Here each distinct word is stemmed once per process, LCS lengths
come from ``rapidfuzz`` (C++), the Lsum backtrack runs on bit-parallel LCS rows (Hyyrö's algorithm on
Python ints, one row per reference token instead of a full table), and pairs are spread over processes.
``benchmarks/evaluate.py`` measures the speed-up against ``rouge-score`` in the same run and checks
that every score is equal.
"""

from __future__ import annotations

import re
import sys
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from functools import partial
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.context import BaseContext
from typing import Any

from wikihowqa.core.sentences import split as punkt_sentences
from wikihowqa.runtime.executor import Executor, worker_count
from wikihowqa.runtime.workers import process_pool

ROUGE_TYPES: tuple[str, ...] = ("rouge1", "rouge2", "rougeL", "rougeLsum")
FIELDS: tuple[str, ...] = ("precision", "recall", "fmeasure")

# rouge_score.tokenize: lower-case, non-alphanumerics become spaces, split, stem (len > 3), keep valid.
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_VALID = re.compile(r"^[a-z0-9]+$")

#: Below this many pairs the cost of starting worker processes outweighs the gain (the default runs them
#: in this process; an explicit ``workers`` count is obeyed: ``executor.worker_count``).
PARALLEL_MIN_PAIRS = 600
_CHUNK = 256

Scores = dict[str, dict[str, float]]


# --------------------------------------------------------------------------- sentences


def lsum_text(text: str) -> str:
    """``text`` with one sentence per line, as ``rouge-score`` wants it for ROUGE-Lsum."""
    return "\n".join(punkt_sentences(text))


# --------------------------------------------------------------------------- tokens


class _Tokenizer:
    """rouge-score's DefaultTokenizer(use_stemmer=True), with tokens as ints and a per-word cache.

    Porter stemming dominates rouge-score's time; a word's stem never changes, so each distinct word is
    stemmed once. Token ids are the ids of the *stems*, so equal ids mean equal tokens.
    """

    def __init__(self) -> None:
        from nltk.stem import porter

        self._stem = porter.PorterStemmer().stem
        self._word_id: dict[str, int] = {}
        self._stem_id: dict[str, int] = {}

    def _lookup(self, word: str) -> int:
        token = self._stem(word) if len(word) > 3 else word
        token_id = self._stem_id.setdefault(token, len(self._stem_id)) if _VALID.match(token) else -1
        self._word_id[word] = token_id
        return token_id

    def ids(self, text: str) -> list[int]:
        ids = []
        cache = self._word_id
        for word in _NON_ALNUM.sub(" ", text.lower()).split():
            token_id = cache.get(word)
            if token_id is None:
                token_id = self._lookup(word)
            if token_id >= 0:
                ids.append(token_id)
        return ids


_tokenizer: _Tokenizer | None = None


def _get_tokenizer() -> _Tokenizer:
    global _tokenizer
    if _tokenizer is None:
        _tokenizer = _Tokenizer()
    return _tokenizer


# --------------------------------------------------------------------------- scores


def _fmeasure(precision: float, recall: float) -> float:
    # rouge_score.scoring.fmeasure, same float operations in the same order.
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def _ngram_score(target: list[int], prediction: list[int], n: int) -> tuple[float, float, float]:
    if n == 1:
        target_grams, prediction_grams = Counter(target), Counter(prediction)
    else:
        target_grams = Counter(zip(*(target[i:] for i in range(n)), strict=False))
        prediction_grams = Counter(zip(*(prediction[i:] for i in range(n)), strict=False))
    overlap = sum((target_grams & prediction_grams).values())
    precision = overlap / max(max(len(prediction) - n + 1, 0), 1)
    recall = overlap / max(max(len(target) - n + 1, 0), 1)
    return precision, recall, _fmeasure(precision, recall)


def _as_text(ids: list[int]) -> str:
    # rapidfuzz compares strings code point by code point in C++; one code point per token id.
    return "".join(map(chr, ids))


def _lcs_score(target: list[int], prediction: list[int]) -> tuple[float, float, float]:
    if not target or not prediction:
        return 0.0, 0.0, 0.0
    from rapidfuzz.distance import LCSseq

    if max(max(target), max(prediction)) < 0x110000:
        lcs = LCSseq.similarity(_as_text(target), _as_text(prediction))
    else:  # a vocabulary beyond Unicode's range: compare the id lists themselves (slower)
        lcs = LCSseq.similarity(target, prediction)
    precision = lcs / len(prediction)
    recall = lcs / len(target)
    return precision, recall, _fmeasure(precision, recall)


def _lcs_rows(ref: list[int], cand_masks: dict[int, int], width: int) -> list[int]:
    """Bit-parallel LCS rows (Hyyrö 2004): row i has a 0 bit at column j-1 for each LCS step.

    ``L[i][j]`` of the DP table equals ``j - popcount(rows[i] & ((1 << j) - 1))``.
    """
    full = (1 << width) - 1
    row = full
    rows = [row]
    for token in ref:
        match = row & cand_masks.get(token, 0)
        row = ((row + match) | (row - match)) & full
        rows.append(row)
    return rows


def _lcs_indices(ref: list[int], cand: list[int], cand_masks: dict[int, int]) -> list[int]:
    """Indices into ``ref`` of the one LCS that rouge-score's ``_backtrack_norec`` reads out."""
    width = len(cand)
    rows = _lcs_rows(ref, cand_masks, width)
    i, j = len(ref), width
    out: list[int] = []
    while i > 0 and j > 0:
        row = rows[i]
        if row & ((1 << j) - 1) == (1 << j) - 1:  # L[i][j] == 0: nothing left to read out
            break
        if ref[i - 1] == cand[j - 1]:
            out.append(i - 1)
            i -= 1
            j -= 1
            continue
        # rouge-score: move left if L[i][j-1] > L[i-1][j], else up.
        left = (j - 1) - (row & ((1 << (j - 1)) - 1)).bit_count()
        up = j - (rows[i - 1] & ((1 << j) - 1)).bit_count()
        if left > up:
            j -= 1
        else:
            i -= 1
    out.reverse()
    return out


def _masks(cand: list[int]) -> dict[int, int]:
    masks: dict[int, int] = {}
    for position, token in enumerate(cand):
        masks[token] = masks.get(token, 0) | (1 << position)
    return masks


def _lsum_score(ref_sents: list[list[int]], cand_sents: list[list[int]]) -> tuple[float, float, float]:
    # rouge_score.rouge_scorer._summary_level_lcs, with the LCS read-out replaced by an equal one.
    if not ref_sents or not cand_sents:
        return 0.0, 0.0, 0.0
    m = sum(map(len, ref_sents))
    n = sum(map(len, cand_sents))
    if not n or not m:
        return 0.0, 0.0, 0.0
    ref_counts: Counter[int] = Counter()
    cand_counts: Counter[int] = Counter()
    for sent in ref_sents:
        ref_counts.update(sent)
    for sent in cand_sents:
        cand_counts.update(sent)
    cands = [(cand, _masks(cand), frozenset(cand)) for cand in cand_sents if cand]
    hits = 0
    for ref in ref_sents:
        if not ref:
            continue
        ref_set = set(ref)
        union: set[int] = set()
        for cand, masks, cand_set in cands:
            if not ref_set.isdisjoint(cand_set):
                union.update(_lcs_indices(ref, cand, masks))
        for index in sorted(union):
            token = ref[index]
            if cand_counts[token] > 0 and ref_counts[token] > 0:
                hits += 1
                cand_counts[token] -= 1
                ref_counts[token] -= 1
    recall = hits / m
    precision = hits / n
    return precision, recall, _fmeasure(precision, recall)


def _lines(text: str, split_sentences: bool) -> list[str]:
    # rouge_scorer.score.get_sents without split_summaries: split on "\n", drop empty strings.
    return [line for line in (lsum_text(text) if split_sentences else text).split("\n") if len(line)]


def _score_flat(prediction: str, reference: str, split_sentences: bool = True) -> tuple[float, ...]:
    """The twelve numbers of one pair: (P, R, F) for each of ROUGE_TYPES, in that order."""
    tok = _get_tokenizer()
    target, pred = tok.ids(reference), tok.ids(prediction)
    target_sents = [tok.ids(s) for s in _lines(reference, split_sentences)]
    pred_sents = [tok.ids(s) for s in _lines(prediction, split_sentences)]
    return (
        *_ngram_score(target, pred, 1),
        *_ngram_score(target, pred, 2),
        *_lcs_score(target, pred),
        *_lsum_score(target_sents, pred_sents),
    )


def _score_chunk(pairs: list[tuple[str, str]], split_sentences: bool = True) -> list[tuple[float, ...]]:
    return [_score_flat(prediction, reference, split_sentences) for prediction, reference in pairs]


def _as_dict(flat: Sequence[float]) -> Scores:
    return {
        rouge_type: dict(zip(FIELDS, flat[3 * k : 3 * k + 3], strict=True))
        for k, rouge_type in enumerate(ROUGE_TYPES)
    }


def score(prediction: str, reference: str, *, split_sentences: bool = True) -> Scores:
    """ROUGE scores of one prediction against its reference (see ``score_pairs``)."""
    return _as_dict(_score_flat(prediction, reference, split_sentences))


def _context() -> BaseContext:
    """fork when it is safe (one thread, no torch loaded): instant, and workers inherit warm caches.

    Otherwise spawn: a fork would copy other threads' locks half-held (torch keeps a thread pool).
    Spawned workers cost about a second each to start, mostly importing nltk.
    """
    if "fork" in get_all_start_methods() and threading.active_count() == 1 and "torch" not in sys.modules:
        return get_context("fork")
    return get_context("spawn")


def score_pairs(
    predictions: Sequence[str],
    references: Sequence[str],
    *,
    split_sentences: bool = True,
    workers: int | None = None,
    progress: Callable[[int], Any] | None = None,
    executor: Executor | None = None,
) -> list[Scores]:
    """ROUGE of each prediction against the reference at the same index.

    Each result is ``{"rouge1": {"precision", "recall", "fmeasure"}, "rouge2": …, "rougeL": …,
    "rougeLsum": …}`` with ``rouge-score``'s values. ROUGE-Lsum sees one sentence per line: the
    ``nupunkt`` sentences, or with ``split_sentences=False`` the lines the texts already have.
    ``workers`` processes share the pairs (default: ``executor.worker_count``'s rule); ``progress`` is
    called with the number of pairs just finished. A distributed ``executor`` (``wikihowqa.runtime.executor``)
    scores the chunks on its workers instead (the same chunks: the same numbers).
    """
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    pairs = list(zip(predictions, references, strict=True))
    for index, (prediction, reference) in enumerate(pairs):
        if not isinstance(prediction, str) or not isinstance(reference, str):
            raise TypeError(f"pair {index}: predictions and references must be strings")
    workers = worker_count(workers, items=len(pairs), parallel_from=PARALLEL_MIN_PAIRS)
    chunks = [pairs[i : i + _CHUNK] for i in range(0, len(pairs), _CHUNK)]
    flat: list[tuple[float, ...]] = []
    if executor is not None and executor.distributed:
        results = executor.map(partial(_score_chunk, split_sentences=split_sentences), chunks)
        for chunk, result in zip(chunks, results, strict=True):
            flat.extend(result)
            if progress:
                progress(len(chunk))
    elif workers == 1:
        for chunk in chunks:
            flat.extend(_score_chunk(chunk, split_sentences))
            if progress:
                progress(len(chunk))
    else:
        with process_pool(workers, mp_context=_context()) as pool:  # workers die with this process
            results = pool.map(_score_chunk, chunks, [split_sentences] * len(chunks))
            for chunk, result in zip(chunks, results, strict=True):
                flat.extend(result)
                if progress:
                    progress(len(chunk))
    return [_as_dict(f) for f in flat]
