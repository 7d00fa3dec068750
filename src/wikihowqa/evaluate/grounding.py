"""Grounding: is each answer sentence supported by the question's own documents?

The paper leaves "metrics that check answers against the supporting documents" to future work; its
human evaluation shows assessors the passages that support each answer sentence. This scores the
same thing automatically, for every answer sentence:

1. *Passages.* Every passage of the question's documents is scored by ``w · dense + (1 - w) · lexical``:
   the cosine of sentence embeddings (the bundled all-MiniLM-L6-v2 by default), which finds paraphrases,
   and lexical precision (idf-weighted content words and word bigrams of the sentence found in the
   passage, stemmed as ROUGE tokenizes). The best ``top_k`` are the sentence's supporting passages.
2. *Alignment.* The sentence is cut into clauses at punctuation, and each clause is aligned to the one
   passage sentence (of any of the question's passages) holding most of its idf-weighted content words.
   Lexical precision is measured against those aligned sentences rather than whole passages: a word
   swapped for its opposite is usually somewhere in a 70-word passage, but rarely in the sentence the
   clause paraphrases.
3. *Checks* of each well-aligned clause against its sentence: negation (a word the clause negates that
   the sentence states plainly, or the reverse, by NegEx-style cue scopes), quantities (another amount
   of the same unit, or the same amount of another unit) and step order (a clause opening "First",
   "Then", "Finally"... whose evidence sits where that word says it cannot, in the source document's
   order relative to the answer's other steps). Each failed check multiplies the support by
   ``1 - penalty``.

Support = ``(w · dense of the best passage + (1 - w) · aligned precision) · (1 - penalty) ** failed``; a
sentence is *supported* at or above a threshold. With a cross-encoder or NLI model given by name, the
best passages are re-scored by it instead (entailment probability for NLI models). Per answer: the share
of supported sentences and the mean support. ``benchmarks/grounding.py`` measures, per error type, how
often a deteriorated answer scores below its original. The word lists the checks use live in
``wikihowqa.evaluate.claims``, written independently of the deterioration generator's lexicons.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Passage
from wikihowqa.core.sentences import sentences as sentences_of
from wikihowqa.encoders.embed import DEFAULT_MODEL, PASSAGE_PRECISION, load_model
from wikihowqa.evaluate.claims import (
    CUE_WORDS,
    STOPWORDS,
    STOPWORDS_V1,
    Quantity,
    clauses_of,
    contradicted,
    negated,
    negation_scopes,
    order_clash,
    order_marker,
    quantities,
)
from wikihowqa.evaluate.defaults import GROUNDING_THRESHOLD
from wikihowqa.evaluate.rouge import _get_tokenizer
from wikihowqa.retrieve.cache import read_through
from wikihowqa.retrieve.dense import EncoderSpec
from wikihowqa.runtime.device import resolve_device

__all__ = [
    "CHECKS", "STOPWORDS", "AnswerGrounding", "Evidence", "GroundingConfig", "GroundingScorer",
    "PassageSupport", "SentenceGrounding", "negated", "sentences_of",
]  # fmt: skip


#: Texts whose vectors a scorer keeps between calls (~80 MB): the questions a batch spans, not the test split.
VECTORS_HELD = 50_000

#: Checks of an aligned clause against its passage sentence: negation polarity, quantities, step order.
CHECKS: tuple[str, ...] = ("negation", "quantity", "order")


@dataclass(frozen=True, slots=True)
class GroundingConfig:
    """Settings of the grounding score. ``dense_weight`` and ``penalty`` were chosen by a grid search
    (``benchmarks/grounding.py --tune``) on the demo questions with even article ids, ``threshold`` by
    Youden's J between their gold answer sentences and other questions' answer sentences; the tables
    that count are on the odd half and the real instances. Little data: settings, not constants."""

    dense_weight: float = 0.5
    threshold: float = GROUNDING_THRESHOLD
    top_k: int = 3
    idf: bool = True  # weight content words by rarity among the question's passages
    align: bool = True  # precision against the clauses' aligned passage sentences, not whole passages
    checks: tuple[str, ...] = CHECKS
    penalty: float = 0.75  # share of a sentence's support lost per failed check
    order_words: bool = True  # "then" and "once" count as content words (they order steps)
    embedding_model: str | None = None  # None: the bundled all-MiniLM-L6-v2
    cross_encoder: str | None = None  # a sentence-transformers CrossEncoder name or path
    batch_size: int = 64
    device: str | None = None  # --device: auto (None), cpu or cuda
    #: the sentence encoder's runner (``encoders.embed.BACKENDS``): auto is OpenVINO on the CPU, torch on
    #: a GPU; torch: sentence-transformers
    backend: str = "auto"
    #: dense retrieval's (``wikihowqa.encoders.embed.PASSAGE_PRECISION``), so passages are read from its cache
    precision: str = PASSAGE_PRECISION


@dataclass(frozen=True, slots=True)
class PassageSupport:
    passage_id: str
    archive_url: str
    position: int
    score: float
    dense: float
    lexical: float


@dataclass(frozen=True, slots=True)
class Evidence:
    """A clause of the answer sentence and the passage sentence it is aligned to."""

    clause: str
    passage_id: str
    sentence: str
    precision: float  # lexical precision of the clause against the sentence
    clashes: tuple[str, ...] = ()  # failed checks, e.g. "negation" or "quantity 9 to 12 minutes"


@dataclass(frozen=True, slots=True)
class SentenceGrounding:
    sentence: str
    support: float
    supported: bool
    passages: tuple[PassageSupport, ...]  # best first
    evidence: tuple[Evidence, ...] = ()  # one per clause, in the sentence's order


@dataclass(frozen=True, slots=True)
class AnswerGrounding:
    sentences: tuple[SentenceGrounding, ...]
    supported_share: float
    mean_support: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "supported_share": self.supported_share,
            "mean_support": self.mean_support,
            "sentences": [
                {
                    "sentence": s.sentence,
                    "support": s.support,
                    "supported": s.supported,
                    "passages": [
                        {
                            "id": p.passage_id,
                            "archive_url": p.archive_url,
                            "position": p.position,
                            "score": p.score,
                            "dense": p.dense,
                            "lexical": p.lexical,
                        }
                        for p in s.passages
                    ],
                    "evidence": [
                        {
                            "clause": e.clause,
                            "passage_id": e.passage_id,
                            "sentence": e.sentence,
                            "precision": e.precision,
                            "clashes": list(e.clashes),
                        }
                        for e in s.evidence
                    ],
                }
                for s in self.sentences
            ],
        }


# --------------------------------------------------------------------------- per-question context


@dataclass(frozen=True, slots=True)
class _Sentence:
    """A passage sentence prepared for alignment."""

    passage: int  # index into the question's passages
    doc: int  # the passage's document
    text: str
    words: frozenset[int]
    bigrams: frozenset[tuple[int, int]]
    negated: frozenset[int]  # content words inside a negation's scope
    quantities: tuple[Quantity, ...]


@dataclass(frozen=True, slots=True)
class _Aligned:
    """One clause of an answer sentence, aligned: its evidence and what the order check needs."""

    evidence: Evidence
    sentence: int | None  # index of the aligned passage sentence; None when aligned too weakly to check
    doc: int
    marker: str | None


@dataclass(frozen=True, slots=True)
class _Context:
    """What scoring needs about one question's passages, computed once for all answers to it."""

    texts: list[str]
    embeddings: np.ndarray  # (passages, dim), unit length
    words: list[frozenset[int]]
    bigrams: list[frozenset[tuple[int, int]]]
    idf: dict[int, float]
    idf_unseen: float  # weight of a word no passage has: the highest
    sentences: list[_Sentence]
    index: dict[int, list[int]]  # word id -> the sentences holding it


class GroundingScorer:
    """Scores answers against passages; holds the models and per-question caches across answers.

    ``passage_cache``: the dataset's ``EmbeddingCache``, read and extended under dense retrieval's key
    (:attr:`encoder_key`): a passage ``answer`` embedded is not embedded again."""

    def __init__(
        self, config: GroundingConfig | None = None, *, encoder: Any = None, passage_cache: Any = None
    ) -> None:
        self.config = config or GroundingConfig()
        if not 0.0 <= self.config.dense_weight <= 1.0:
            raise ValueError("dense_weight must be between 0 and 1")
        if not 0.0 <= self.config.penalty <= 1.0:
            raise ValueError("penalty must be between 0 and 1")
        unknown = set(self.config.checks) - set(CHECKS)
        if unknown:
            raise ValueError(f"unknown check(s) {sorted(unknown)} (known: {', '.join(CHECKS)})")
        self._encoder = encoder
        self._encoder_given = encoder is not None
        self.passage_cache = passage_cache
        self._cross: Any = None
        self._tokens = _get_tokenizer().ids
        self._stopwords = STOPWORDS if self.config.order_words else STOPWORDS_V1
        self._stop_ids = {i for w in self._stopwords for i in self._tokens(w)}
        self._cue_ids = {i for w in CUE_WORDS.split(" ") for i in self._tokens(w)}
        self._contexts: dict[tuple[str, ...], _Context] = {}
        self._vectors: dict[str, np.ndarray] = {}

    def with_config(self, config: GroundingConfig) -> GroundingScorer:
        """A scorer with other settings that shares this one's models and caches."""
        mine, theirs = self.config, config
        model = ("embedding_model", "backend", "precision")
        same_model = all(getattr(theirs, k) == getattr(mine, k) for k in model)
        encoder = self.encoder if same_model else None
        other = GroundingScorer(config, encoder=encoder, passage_cache=self.passage_cache)
        other._encoder_given = self._encoder_given and same_model
        if same_model:
            other._vectors = self._vectors
            if config.order_words == self.config.order_words:
                other._contexts = self._contexts
        if config.cross_encoder == self.config.cross_encoder:
            other._cross = self._cross
        return other

    # ------------------------------------------------------------------ models

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            self._encoder = load_model(
                self.config.embedding_model or DEFAULT_MODEL,
                self.config.device,
                "retrieval",
                backend=self.config.backend,
                precision=self.config.precision,
            )
        return self._encoder

    @property
    def encoder_key(self) -> str:
        """The embedding cache's key of these vectors: dense retrieval's for this model and precision."""
        c = self.config
        spec = EncoderSpec(c.embedding_model, device=c.device, backend=c.backend, precision=c.precision)
        return spec.resolved().key

    @property
    def model_name(self) -> str:
        return self.config.embedding_model or DEFAULT_MODEL

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.encoder.encode(
            list(texts), batch_size=self.config.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)

    def _ensure_vectors(self, texts: Sequence[str], *, keep: bool = False) -> None:
        """Embed, in one batch, the texts not embedded yet (answer sentences, clauses, passages); those the
        dataset's embedding cache holds are read from it, and with ``keep`` (passages) new ones written."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if len(self._vectors) + len(missing) > VECTORS_HELD:
            self._vectors.clear()  # contexts keep their own arrays; what is needed now is re-embedded
            missing = list(dict.fromkeys(texts))
        if missing and self.passage_cache is not None and not self._encoder_given:
            found = read_through(self.passage_cache, self.encoder_key, missing, self._embed, write=keep)
            self._vectors.update(found)
        elif missing:
            self._vectors.update(zip(missing, self._embed(missing), strict=True))

    def _cross_scores(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        from sentence_transformers import CrossEncoder

        if self._cross is None:
            name = self.config.cross_encoder
            try:
                self._cross = CrossEncoder(name, device=resolve_device(self.config.device))
            except OSError as exc:  # not on the hub, not cached offline, no such folder
                why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                raise SettingsError(
                    f"grounding cross-encoder {name!r} (--grounding-cross-encoder): cannot load it ({why})"
                ) from None
        labels = {str(v).lower(): int(k) for k, v in (self._cross.model.config.id2label or {}).items()}
        logits = np.asarray(
            self._cross.predict(pairs, batch_size=self.config.batch_size, show_progress_bar=False)
        )
        if logits.ndim == 2 and "entailment" in labels:  # NLI: probability that the passage entails it
            shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
            return shifted[:, labels["entailment"]] / shifted.sum(axis=1)
        flat = logits.reshape(len(pairs), -1)[:, -1]
        return 1 / (1 + np.exp(-flat))  # relevance cross-encoders give one logit

    # ------------------------------------------------------------------ per-question context

    def _negated_words(self, text: str) -> frozenset[int]:
        return frozenset(u for scope in negation_scopes(text) for u in self._tokens(scope)) - self._stop_ids

    def _context(self, passages: Sequence[Passage]) -> _Context:
        texts = [p.text for p in passages]
        key = (*texts, *(str(p.doc_index) for p in passages))
        found = self._contexts.get(key)
        if found is not None:
            return found
        ids = [self._tokens(t) for t in texts]
        words = [frozenset(i) for i in ids]
        df: dict[int, int] = {}
        for ws in words:
            for u in ws:
                df[u] = df.get(u, 0) + 1
        n = len(texts)
        sentences = []
        index: dict[int, list[int]] = defaultdict(list)
        for j, text in enumerate(texts):
            for s in sentences_of(text):
                tokens = self._tokens(s)
                sentence = _Sentence(
                    j,
                    passages[j].doc_index,
                    s,
                    frozenset(tokens),
                    frozenset(itertools.pairwise(tokens)),
                    self._negated_words(s),
                    quantities(s, self._stopwords),
                )
                for u in sentence.words:
                    index[u].append(len(sentences))
                sentences.append(sentence)
        self._ensure_vectors(texts, keep=True)
        context = _Context(
            texts=texts,
            embeddings=np.stack([self._vectors[t] for t in texts]),
            words=words,
            bigrams=[frozenset(itertools.pairwise(i)) for i in ids],
            idf={u: math.log((n + 1) / (c + 1)) + 1.0 for u, c in df.items()},
            idf_unseen=math.log(n + 1) + 1.0,
            sentences=sentences,
            index=dict(index),
        )
        if len(self._contexts) >= 64:  # callers group answers by question; keep the recent ones
            self._contexts.pop(next(iter(self._contexts)))
        self._contexts[key] = context
        return context

    # ------------------------------------------------------------------ scoring

    def score(self, answer: str, passages: Sequence[Passage]) -> AnswerGrounding:
        return self.score_many([(answer, passages)])[0]

    def score_many(
        self,
        items: Sequence[tuple[str, Sequence[Passage]]],
        *,
        progress: Callable[[int], Any] | None = None,
    ) -> list[AnswerGrounding]:
        """Grounding of each (answer, the question's passages) pair; group pairs by question for speed."""
        split = [sentences_of(answer) for answer, _ in items]
        texts = [s for sentences in split for s in sentences]
        texts += [c for s in texts for c in clauses_of(s, stopwords=self._stopwords)]
        # one batched encoder call for all answer sentences: per-answer calls cost ~10x more
        self._ensure_vectors(texts)
        results = []
        for sentences, (_, passages) in zip(split, items, strict=True):
            results.append(self._score_sentences(sentences, passages))
            if progress:
                progress(1)
        return results

    def _weights(self, content: Sequence[int], ctx: _Context) -> list[float]:
        return [ctx.idf.get(u, ctx.idf_unseen) if self.config.idf else 1.0 for u in content]

    def _lexical(self, content: list[int], bigrams: list[tuple[int, int]], ctx: _Context) -> np.ndarray:
        """Per passage: mean of idf-weighted content-word precision and bigram precision."""
        weights = self._weights(content, ctx)
        total = sum(weights)
        scores = np.zeros(len(ctx.texts))
        for j, (words, pairs) in enumerate(zip(ctx.words, ctx.bigrams, strict=True)):
            parts = []
            if content:
                parts.append(sum(w for u, w in zip(content, weights, strict=True) if u in words) / total)
            if bigrams:
                parts.append(sum(1 for b in bigrams if b in pairs) / len(bigrams))
            scores[j] = sum(parts) / len(parts) if parts else 0.0
        return scores

    def _align(
        self, sentence: str, ctx: _Context, passages: Sequence[Passage]
    ) -> tuple[float, list[_Aligned]]:
        """The sentence's lexical precision against its clauses' aligned passage sentences, and each
        clause's evidence with its failed negation and quantity checks (order needs the whole answer:
        see ``_order_checks``).

        A clause aligns to the passage sentence holding the largest share of its idf-weighted content
        words (negation cues left out, so that polarity does not decide what a clause is about; ties:
        the earlier sentence). Its precision there is the mean of that share, cues included, and of its
        word-bigram precision; the sentence's is the clauses' mean, weighted by their content.
        """
        total_weight = 0.0
        weighted = 0.0
        aligned = []
        for clause in clauses_of(sentence, stopwords=self._stopwords):
            ids = self._tokens(clause)
            content = [u for u in ids if u not in self._stop_ids]
            weights = self._weights(content, ctx)
            mass = sum(weights)
            overlap = np.zeros(len(ctx.sentences))
            for u, weight in dict(zip(content, weights, strict=True)).items():
                if u not in self._cue_ids:
                    overlap[ctx.index.get(u, [])] += weight
            total_weight += mass or 1.0
            if not overlap.any():
                aligned.append(_Aligned(Evidence(clause, "", "", 0.0), None, -1, order_marker(clause)))
                continue
            best = int(np.argmax(overlap))
            target = ctx.sentences[best]
            parts = []
            if content:
                parts.append(
                    sum(x for u, x in zip(content, weights, strict=True) if u in target.words) / mass
                )
            pairs = list(itertools.pairwise(ids))
            if pairs:
                parts.append(sum(1 for b in pairs if b in target.bigrams) / len(pairs))
            precision = sum(parts) / len(parts) if parts else 0.0
            weighted += (mass or 1.0) * precision
            # checks only where the alignment is good (half the clause's weighted content words, two
            # words at least): a clause the passages do not state is already penalised by its
            # precision, and a check against the wrong sentence is noise
            shared = set(content) & target.words
            checkable = mass > 0 and overlap[best] / mass >= 0.5 and len(shared) >= min(2, len(set(content)))
            clashes = self._checks(clause, shared, target) if checkable else []
            aligned.append(
                _Aligned(
                    Evidence(clause, passages[target.passage].id, target.text, precision, tuple(clashes)),
                    best if checkable else None,
                    target.doc,
                    order_marker(clause),
                )
            )
        return (weighted / total_weight if total_weight else 0.0), aligned

    def _checks(self, clause: str, shared: set[int], target: _Sentence) -> list[str]:
        """Failed negation and quantity checks of a clause against its aligned passage sentence."""
        clashes = []
        if "negation" in self.config.checks:
            ours = self._negated_words(clause) & shared
            theirs = target.negated & shared
            if (ours or theirs) and not ours & theirs:
                clashes.append("negation")
        if "quantity" in self.config.checks:
            for q in quantities(clause, self._stopwords):
                if contradicted(q, target.quantities):
                    clashes.append(f"quantity {q.text}")
        return clashes

    def _order_checks(self, clauses: list[_Aligned]) -> list[_Aligned]:
        """Clauses opening with a sequence word (first, finally, then, ...) checked against where their
        evidence and the other clauses' evidence sit in the source document."""
        out = []
        for i, c in enumerate(clauses):
            if c.marker is None or c.sentence is None or "order" not in self.config.checks:
                out.append(c)
                continue
            same_doc = [
                (j, o.sentence)
                for j, o in enumerate(clauses)
                if j != i and o.sentence is not None and o.doc == c.doc
            ]
            previous = next((p for j, p in reversed(same_doc) if j < i), None)
            others = [p for _, p in same_doc]
            if order_clash(c.marker, c.sentence, previous, others):
                e = c.evidence
                evidence = Evidence(
                    e.clause, e.passage_id, e.sentence, e.precision, (*e.clashes, f"order ({c.marker})")
                )
                c = _Aligned(evidence, c.sentence, c.doc, c.marker)
            out.append(c)
        return out

    def _score_sentences(self, sentences: list[str], passages: Sequence[Passage]) -> AnswerGrounding:
        cfg = self.config
        if not sentences or not passages:
            return AnswerGrounding(tuple(SentenceGrounding(s, 0.0, False, ()) for s in sentences), 0.0, 0.0)
        ctx = self._context(passages)
        dense = np.clip(np.stack([self._vectors[s] for s in sentences]) @ ctx.embeddings.T, 0.0, 1.0)
        rows = []
        all_clauses: list[_Aligned] = []
        for k, sentence in enumerate(sentences):
            ids = self._tokens(sentence)
            content = [i for i in ids if i not in self._stop_ids]
            lexical = self._lexical(content, list(itertools.pairwise(ids)), ctx)
            combined = cfg.dense_weight * dense[k] + (1 - cfg.dense_weight) * lexical
            order = np.argsort(-combined, kind="stable")[: max(cfg.top_k, 1)]
            precision, clauses = self._align(sentence, ctx, passages)
            rows.append((order, lexical, combined, precision, len(clauses)))
            all_clauses.extend(clauses)
        all_clauses = self._order_checks(all_clauses)
        grounded = []
        start = 0
        for k, (sentence, (order, lexical, combined, precision, n)) in enumerate(
            zip(sentences, rows, strict=True)
        ):
            evidence = tuple(c.evidence for c in all_clauses[start : start + n])
            start += n
            best = tuple(
                PassageSupport(
                    passages[i].id,
                    passages[i].archive_url,
                    passages[i].position,
                    float(combined[i]),
                    float(dense[k, i]),
                    float(lexical[i]),
                )
                for i in order
            )
            if cfg.cross_encoder:
                scores = self._cross_scores([(ctx.texts[i], sentence) for i in order])
                resort = np.argsort(-scores, kind="stable")
                best = tuple(
                    PassageSupport(p.passage_id, p.archive_url, p.position, float(s), p.dense, p.lexical)
                    for p, s in zip([best[i] for i in resort], scores[resort], strict=True)
                )
                support = best[0].score
            else:
                lexical_part = precision if cfg.align else float(lexical[order[0]])
                support = cfg.dense_weight * float(dense[k, order[0]]) + (1 - cfg.dense_weight) * lexical_part
                failed = sum(len(e.clashes) for e in evidence)
                support *= (1 - cfg.penalty) ** failed
            grounded.append(SentenceGrounding(sentence, support, support >= cfg.threshold, best, evidence))
        return AnswerGrounding(
            tuple(grounded),
            sum(g.supported for g in grounded) / len(grounded),
            float(np.mean([g.support for g in grounded])),
        )

    def metadata(self) -> dict[str, Any]:
        cfg = self.config
        return {
            "version": 2,
            "embedding_model": self.model_name,
            "encoder": self.encoder_key,
            "dense_weight": cfg.dense_weight,
            "threshold": cfg.threshold,
            "top_k": cfg.top_k,
            "cross_encoder": cfg.cross_encoder,
            "idf": cfg.idf,
            "align": cfg.align,
            "checks": list(cfg.checks),
            "penalty": cfg.penalty,
            "order_words": cfg.order_words,
            "support": (
                f"cross-encoder {cfg.cross_encoder} on the top {cfg.top_k} passages"
                if cfg.cross_encoder
                else f"{cfg.dense_weight:g}·dense cosine + {1 - cfg.dense_weight:g}·lexical precision"
                + (" against the clauses' aligned passage sentences" if cfg.align else "")
            ),
        }


@dataclass(frozen=True)
class GroundingModel:
    """The grounding scorer as a model spec (``wikihowqa.runtime.executor``): built once per worker
    process."""

    config: GroundingConfig

    def build(self) -> GroundingScorer:
        return GroundingScorer(self.config)
