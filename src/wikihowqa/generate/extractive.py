"""Extractive baselines that need no trained model: lead sentences, TextRank, LexRank, and the oracle.

All of them pick whole sentences from passages. ``lead`` takes the first sentence of each top-ranked
passage; ``textrank``/``lexrank`` rank the sentences of the top retrieved passages by graph centrality;
``oracle`` greedily picks the sentences that maximise ROUGE-1 + ROUGE-2 F1 against the gold answer — an
upper bound for any extractive system, as in the standard extractive-oracle construction (Nallapati et
al., 2017; Liu and Lapata, 2019).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from wikihowqa.core.sentences import sentences as sentences_in
from wikihowqa.retrieve.bm25 import tokenize
from wikihowqa.retrieve.ranking import Ranked

#: Answer length when a dataset gives nothing to measure (WikiHowQA answers are a short paragraph).
DEFAULT_MAX_WORDS = 80


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    source: Ranked
    index: int  # position of the sentence in its passage

    @property
    def order(self) -> tuple[int, int, int, int]:
        p = self.source.passage
        return (p.article_id, p.doc_index, p.position, self.index)


@dataclass(frozen=True, slots=True)
class Extract:
    """An extractive answer and the passages its sentences came from (in the order first used)."""

    text: str
    sentences: tuple[Sentence, ...]
    score: float | None = None  # the oracle's objective (ROUGE-1 F1 + ROUGE-2 F1 against the gold answer)

    @property
    def used(self) -> tuple[Ranked, ...]:
        return tuple(dict.fromkeys(s.source for s in self.sentences))


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage: paragraphs (lines) first, then Punkt within each
    (``wikihowqa.core.sentences``)."""
    return sentences_in(text, lines=True)


def sentences_of(ranking: Sequence[Ranked], *, dedupe: bool = True) -> list[Sentence]:
    """Sentences of the ranked passages, in rank order; exact repeats (boilerplate) kept once."""
    seen: set[str] = set()
    out: list[Sentence] = []
    for r in ranking:
        for i, text in enumerate(split_sentences(r.passage.text)):
            key = " ".join(text.lower().split())
            if dedupe and key in seen:
                continue
            seen.add(key)
            out.append(Sentence(text, r, i))
    return out


def words(text: str) -> int:
    return len(text.split())


def _fill(candidates: Sequence[Sentence], max_words: int, *, source_order: bool) -> Extract:
    """Take candidates in order until the next would pass ``max_words`` (at least one is always taken)."""
    chosen: list[Sentence] = []
    total = 0
    for s in candidates:
        n = words(s.text)
        if chosen and total + n > max_words:
            break
        chosen.append(s)
        total += n
    if source_order:
        chosen.sort(key=lambda s: s.order)
    return Extract(" ".join(s.text for s in chosen), tuple(chosen))


# --------------------------------------------------------------------------- lead


def lead(ranking: Sequence[Ranked], *, max_words: int = DEFAULT_MAX_WORDS, per_passage: int = 1) -> Extract:
    """The first ``per_passage`` sentences of each passage, best-ranked passage first, up to ``max_words``."""
    firsts = [s for s in sentences_of(ranking) if s.index < per_passage]
    return _fill(firsts, max_words, source_order=False)


# --------------------------------------------------------------------------- graph centrality


def pagerank(
    weights: np.ndarray, *, damping: float = 0.85, tol: float = 1e-10, max_iter: int = 1000
) -> np.ndarray:
    """PageRank of a weighted graph by power iteration (networkx's semantics: dangling rows jump uniformly).

    Written with numpy rather than calling ``networkx.pagerank``: the same scores (tested, |Δ| < 1e-16) and,
    counting the graph networkx needs built, 25–50× (50 sentences) to 500–1,000× (200–500) faster on
    the dense sentence graphs of TextRank/LexRank (``benchmarks/extractive.py``).
    """
    n = weights.shape[0]
    if n == 0:
        return np.zeros(0)
    out_weight = weights.sum(axis=1)
    dangling = out_weight == 0
    transition = np.divide(
        weights, out_weight[:, None], out=np.zeros_like(weights, dtype=float), where=~dangling[:, None]
    )
    rank = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        new = damping * (rank @ transition + rank[dangling].sum() / n) + (1.0 - damping) / n
        if np.abs(new - rank).sum() < n * tol:
            return new
        rank = new
    return rank


def _tokens(texts: Sequence[str]) -> list[list[str]]:
    return tokenize(texts)


def textrank_weights(token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """Mihalcea and Tarau (2004): shared words over log lengths; stopwords out, words stemmed."""
    sets = [set(t) for t in token_lists]
    lengths = [len(t) for t in token_lists]
    n = len(sets)
    w = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            denom = math.log(lengths[i]) + math.log(lengths[j]) if lengths[i] > 1 and lengths[j] > 1 else 0.0
            if denom > 0:
                shared = len(sets[i] & sets[j])
                w[i, j] = w[j, i] = shared / denom
    return w


def lexrank_weights(token_lists: Sequence[Sequence[str]], *, threshold: float | None = 0.1) -> np.ndarray:
    """Erkan and Radev (2004): idf-modified cosine of sentences; thresholded (0.1) or continuous (None)."""
    n = len(token_lists)
    df: Counter[str] = Counter()
    for tokens in token_lists:
        df.update(set(tokens))
    vocab = {t: i for i, t in enumerate(df)}
    idf = np.array([math.log(n / df[t]) for t in vocab]) if vocab else np.zeros(0)
    m = np.zeros((n, len(vocab)))
    for row, tokens in enumerate(token_lists):
        for t, c in Counter(tokens).items():
            m[row, vocab[t]] = c * idf[vocab[t]]
    norms = np.linalg.norm(m, axis=1)
    norms[norms == 0] = 1.0
    m /= norms[:, None]
    sim = m @ m.T
    np.fill_diagonal(sim, 0.0)
    if threshold is not None:
        sim = (sim > threshold).astype(float)
    return sim


def centrality(
    ranking: Sequence[Ranked],
    *,
    method: str = "textrank",
    top_passages: int = 10,
    max_words: int = DEFAULT_MAX_WORDS,
    damping: float = 0.85,
    threshold: float | None = 0.1,
) -> Extract:
    """The most central sentences of the top passages up to ``max_words``, shown in source order."""
    pool = sentences_of(ranking[:top_passages])
    if not pool:
        return Extract("", ())
    token_lists = _tokens([s.text for s in pool])
    if method == "textrank":
        weights = textrank_weights(token_lists)
    elif method == "lexrank":
        weights = lexrank_weights(token_lists, threshold=threshold)
    else:
        raise ValueError(f"unknown centrality method {method!r}")
    scores = pagerank(weights, damping=damping)
    order = sorted(range(len(pool)), key=lambda i: (-scores[i], pool[i].source.rank, pool[i].index))
    return _fill([pool[i] for i in order], max_words, source_order=True)


def textrank(ranking: Sequence[Ranked], **settings: Any) -> Extract:
    return centrality(ranking, method="textrank", **settings)


def lexrank(ranking: Sequence[Ranked], **settings: Any) -> Extract:
    return centrality(ranking, method="lexrank", **settings)


# --------------------------------------------------------------------------- extractive oracle


@lru_cache(maxsize=1)
def _rouge_tokenizer() -> Any:
    from rouge_score import tokenizers

    return tokenizers.DefaultTokenizer(use_stemmer=True)


def rouge_tokens(text: str) -> list[str]:
    """``rouge-score``'s own tokens (lower-cased, alphanumeric, stemmed): the oracle optimises ROUGE."""
    return _rouge_tokenizer().tokenize(text)


class _NgramState:
    """Running n-gram counts of a candidate answer and their clipped overlap with the reference."""

    def __init__(self, reference: Counter) -> None:
        self.reference = reference
        self.ref_total = sum(reference.values())
        self.counts: Counter = Counter()
        self.total = 0
        self.overlap = 0

    def gain(self, delta: Counter) -> tuple[int, int]:
        """(overlap, total) after adding ``delta`` (which may hold negative counts), without applying it."""
        overlap, total = self.overlap, self.total
        for gram, d in delta.items():
            if not d:
                continue
            old = self.counts.get(gram, 0)
            ref = self.reference.get(gram, 0)
            overlap += min(old + d, ref) - min(old, ref)
            total += d
        return overlap, total

    def apply(self, delta: Counter) -> None:
        self.overlap, self.total = self.gain(delta)
        self.counts.update(delta)

    def f1(self, overlap: int, total: int) -> float:
        p = overlap / max(total, 1)
        r = overlap / max(self.ref_total, 1)
        return 2 * p * r / (p + r) if p + r > 0 else 0.0


def oracle(
    ranking: Sequence[Ranked], gold: str, *, max_sentences: int | None = None, dedupe: bool = True
) -> Extract:
    """Greedy extractive oracle: add the sentence that most raises ROUGE-1 F1 + ROUGE-2 F1 of the answer
    (sentences joined in source order) until no sentence raises it.

    Scores are exact ``rouge-score`` values (stemmed ROUGE-1/2 of the joined text, bigrams across sentence
    boundaries included), computed incrementally: each candidate costs its own length, not the answer's —
    35× faster than rescoring every candidate with ``rouge-score``, with the same selections
    (``benchmarks/extractive.py``).
    """
    pool = sorted(sentences_of(ranking, dedupe=dedupe), key=lambda s: s.order)
    if not pool:
        return Extract("", (), 0.0)
    toks = [rouge_tokens(s.text) for s in pool]
    gold_tokens = rouge_tokens(gold)
    uni = _NgramState(Counter(gold_tokens))
    bi = _NgramState(Counter(itertools.pairwise(gold_tokens)))
    internal = [Counter(itertools.pairwise(t)) for t in toks]
    selected: list[int] = []  # indices into pool, kept sorted (source order)
    best = 0.0
    limit = max_sentences or len(pool)

    def neighbours(i: int) -> tuple[int | None, int | None]:
        before = [j for j in selected if j < i and toks[j]]
        after = [j for j in selected if j > i and toks[j]]
        return (before[-1] if before else None), (after[0] if after else None)

    def bigram_delta(i: int) -> Counter:
        delta = Counter(internal[i])
        if not toks[i]:
            return delta
        a, b = neighbours(i)
        if a is not None and b is not None:
            delta[(toks[a][-1], toks[b][0])] -= 1
        if a is not None:
            delta[(toks[a][-1], toks[i][0])] += 1
        if b is not None:
            delta[(toks[i][-1], toks[b][0])] += 1
        return delta

    while len(selected) < limit:
        choice, choice_score, choice_deltas = None, best, None
        for i in range(len(pool)):
            if i in selected or not toks[i]:
                continue
            d_uni, d_bi = Counter(toks[i]), bigram_delta(i)
            score = uni.f1(*uni.gain(d_uni)) + bi.f1(*bi.gain(d_bi))
            if score > choice_score + 1e-12:
                choice, choice_score, choice_deltas = i, score, (d_uni, d_bi)
        if choice is None or choice_deltas is None:
            break
        uni.apply(choice_deltas[0])
        bi.apply(choice_deltas[1])
        selected.append(choice)
        selected.sort()
        best = choice_score
    chosen = tuple(pool[i] for i in selected)
    return Extract(" ".join(s.text for s in chosen), chosen, best)
