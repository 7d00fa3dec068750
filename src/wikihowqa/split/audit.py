"""Leakage audit of a split: how close is each validation/test question to the nearest train question?

Works on any dataset folder with splits, the official release included. For every evaluation question
it finds the most similar train question (cosine similarity of sentence embeddings), and reports the
distribution, the count above a paraphrase threshold, clusters found in more than one split, and,
optionally, evaluation questions whose normalised title equals a train question's (lowercased, the
leading "how to" and articles dropped, punctuation removed).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from wikihowqa import __version__
from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import write_json
from wikihowqa.core.progress import QUIET, Progress
from wikihowqa.core.records import NOISE_CLUSTER, Example
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.encoders.embed import DEFAULT_MODEL, question_embeddings
from wikihowqa.runtime.executor import Executor

AUDIT_FILE = "audit.json"
DEFAULT_THRESHOLD = 0.9
EVALUATION_SPLITS = ("validation", "test")
HISTOGRAM_EDGES = tuple(round(x, 2) for x in np.linspace(0.0, 1.0, 21))

_LEAD = re.compile(r"^(how (to|do (i|you)|can (i|you))|ways to)\b")
_FILLER = re.compile(r"\b(a|an|the|your|my|one's)\b")
_NON_WORD = re.compile(r"[^\w\s]+")


def normalise_title(question: str) -> str:
    """Lowercase, without punctuation, a leading "how to", articles and possessives; single spaces."""
    text = _NON_WORD.sub(" ", question.lower().replace("’", "'"))
    text = _LEAD.sub(" ", " ".join(text.split()))
    return " ".join(_FILLER.sub(" ", text).split())


@dataclass(frozen=True)
class AuditPair:
    article_id: int
    split: str
    question: str
    nearest_article_id: int | None
    nearest_question: str | None
    similarity: float | None
    same_title: bool


@dataclass(frozen=True)
class AuditResult:
    threshold: float
    pairs: list[AuditPair]
    crossing_clusters: list[int]
    clustered_in_evaluation: int
    model: str = DEFAULT_MODEL
    lexical: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def similarities(self, split: str | None = None) -> np.ndarray:
        return np.array(
            [p.similarity for p in self.pairs if p.similarity is not None and split in (None, p.split)],
            dtype=float,
        )

    def summary(self) -> dict[str, Any]:
        per_split: dict[str, Any] = {}
        for split in (*EVALUATION_SPLITS, None):
            sims = self.similarities(split)
            pairs = [p for p in self.pairs if split in (None, p.split)]
            counts, _ = np.histogram(np.clip(sims, 0.0, 1.0), bins=np.array(HISTOGRAM_EDGES))
            per_split[split or "all"] = {
                "questions": len(pairs),
                "above_threshold": int(np.count_nonzero(sims >= self.threshold)),
                "same_normalised_title": sum(p.same_title for p in pairs) if self.lexical else None,
                "similarity": {
                    "mean": float(sims.mean()) if sims.size else None,
                    "median": float(np.median(sims)) if sims.size else None,
                    "max": float(sims.max()) if sims.size else None,
                },
                "histogram": counts.tolist(),
            }
        return {
            "model": self.model,
            "threshold": self.threshold,
            "histogram_edges": list(HISTOGRAM_EDGES),
            "splits": per_split,
            "clusters_in_more_than_one_split": self.crossing_clusters,
            "clustered_evaluation_questions": self.clustered_in_evaluation,
        }

    def to_json(self) -> dict[str, Any]:
        ranked = sorted(self.pairs, key=lambda p: -(p.similarity if p.similarity is not None else -2))
        return {
            **self.summary(),
            **self.extra,
            "pairs": [p.__dict__ for p in ranked],
        }


def fingerprint(examples: Sequence[Example]) -> str:
    """Identifies the questions and splits an audit was made for."""
    digest = hashlib.sha1()
    for e in examples:
        digest.update(f"{e.article_id}\t{e.split}\t{e.question}\n".encode())
    return digest.hexdigest()


def load_audit(folder: DatasetFolder, examples: Sequence[Example], model: str) -> dict[str, Any] | None:
    """The folder's saved audit, if it was made for these questions and splits with this model."""
    path = folder.path / AUDIT_FILE
    if not path.is_file():
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if saved.get("fingerprint") != fingerprint(examples) or saved.get("model") != model:
        return None
    return saved


def crossing_clusters(examples: Sequence[Example]) -> list[int]:
    """Cluster ids (noise excluded) whose questions sit in more than one split."""
    seen: dict[int, set[str | None]] = {}
    for e in examples:
        if e.cluster is not None and e.cluster != NOISE_CLUSTER:
            seen.setdefault(e.cluster, set()).add(e.split)
    return sorted(c for c, splits in seen.items() if len(splits) > 1)


def audit_examples(
    examples: Sequence[Example],
    embeddings: np.ndarray,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    lexical: bool = True,
    model: str = DEFAULT_MODEL,
    block: int = 2048,
) -> AuditResult:
    """The audit of split ``examples`` given their question embeddings (L2-normalised, one row each)."""
    if not any(e.split for e in examples):
        raise DatasetError("the dataset has no splits (run `wikihowqa split` first)")
    train = np.array([i for i, e in enumerate(examples) if e.split == "train"], dtype=np.int64)
    evaluation = [i for i, e in enumerate(examples) if e.split in EVALUATION_SPLITS]
    titles: dict[str, int] = {}
    if lexical:
        for i in train.tolist():
            titles.setdefault(normalise_title(examples[i].question), i)
    pairs: list[AuditPair] = []
    train_vectors = embeddings[train] if len(train) else None
    for start in range(0, len(evaluation), block):
        rows = evaluation[start : start + block]
        nearest: list[int | None] = [None] * len(rows)
        sims: list[float | None] = [None] * len(rows)
        if train_vectors is not None:
            scores = embeddings[rows] @ train_vectors.T
            best = scores.argmax(axis=1)
            nearest = train[best].tolist()
            sims = scores[np.arange(len(rows)), best].astype(float).tolist()
        for i, j, sim in zip(rows, nearest, sims, strict=True):
            e = examples[i]
            same = lexical and normalise_title(e.question) in titles
            pairs.append(
                AuditPair(
                    article_id=e.article_id,
                    split=e.split or "",
                    question=e.question,
                    nearest_article_id=examples[j].article_id if j is not None else None,
                    nearest_question=examples[j].question if j is not None else None,
                    similarity=round(sim, 6) if sim is not None else None,
                    same_title=bool(same),
                )
            )
    return AuditResult(
        threshold=threshold,
        pairs=pairs,
        crossing_clusters=crossing_clusters(examples),
        clustered_in_evaluation=sum(
            1 for e in examples if e.split in EVALUATION_SPLITS and e.cluster not in (None, NOISE_CLUSTER)
        ),
        model=model,
        lexical=lexical,
    )


def audit_dataset(
    folder: DatasetFolder,
    *,
    model: str = DEFAULT_MODEL,
    threshold: float = DEFAULT_THRESHOLD,
    lexical: bool = True,
    executor: Executor | None = None,
    device: str | None = None,
    progress: Progress = QUIET,
) -> AuditResult:
    """Audit a dataset folder; writes ``audit.json`` there (summary, then every pair, closest first)."""
    examples = folder.examples()
    embeddings = question_embeddings(
        folder, examples, model, executor=executor, device=device, progress=progress
    )
    result = audit_examples(examples, embeddings, threshold=threshold, lexical=lexical, model=model)
    payload = result.to_json()
    payload["fingerprint"] = fingerprint(examples)
    payload["tool"] = f"wikihowqa {__version__}"
    payload["created"] = datetime.now(UTC).isoformat(timespec="seconds")
    write_json(folder.path / AUDIT_FILE, payload)
    return result
