"""A leakage-free split (the paper, section 3): paraphrase clusters go to train, only loners are evaluated.

Questions are embedded and clustered with HDBSCAN (scikit-learn's). Every clustered question goes to
train; the unclustered ones (cluster ``-1``, the official release's convention for noise) are shuffled
with the seed and dealt to validation and test up to their target sizes, the rest to train. So no
cluster crosses splits, and validation and test hold no two questions HDBSCAN deems the same topic.

HDBSCAN can leave a paraphrase unclustered while its twin is clustered; ``guard`` (off by default, as
in the paper) also keeps in train every unclustered question whose nearest neighbour is at least that
similar. The leakage audit (``wikihowqa.split.audit``) measures what is left either way.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from wikihowqa import __version__
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.files import write_json
from wikihowqa.core.progress import QUIET, Progress
from wikihowqa.core.records import NOISE_CLUSTER, Example
from wikihowqa.dataset.folder import MANIFEST_FILE, DatasetFolder
from wikihowqa.encoders.embed import DEFAULT_MODEL, question_embeddings
from wikihowqa.runtime.executor import Executor

#: Default target sizes, as fractions of all questions: the official release holds about 70 % train,
#: 10 % validation and 20 % test (by the sizes of its per-split files on the Hugging Face Hub).
DEFAULT_VALIDATION = 0.1
DEFAULT_TEST = 0.2
#: What HDBSCAN's brute force may hold: its two n × n float64 matrices (the distances and the copy that
#: finds each core distance), 2 × 8 n² bytes; past it (n > 8,192) scikit-learn's tree algorithm, whose memory
#: is linear. On the paper's 11,738 questions the brute force peaked at 2,349 MB and took 14 s, the trees
#: 244 MB and 177 s (shared 2-core machine), the same labels.
BRUTE_FORCE_BYTES = 1 << 30


@dataclass(frozen=True)
class SplitSettings:
    model: str = DEFAULT_MODEL
    min_cluster_size: int = 2
    min_samples: int | None = None
    selection: str = "eom"
    validation_size: float = DEFAULT_VALIDATION
    test_size: float = DEFAULT_TEST
    seed: int = 0
    guard: float | None = None

    def __post_init__(self) -> None:
        if self.min_cluster_size < 2:
            raise SettingsError("--min-cluster-size must be at least 2")
        if self.min_samples is not None and self.min_samples < 1:
            raise SettingsError("--min-samples must be at least 1")
        if self.selection not in {"eom", "leaf"}:
            raise SettingsError(f"--selection must be eom or leaf, not {self.selection!r}")
        for name in ("validation_size", "test_size"):
            value = getattr(self, name)
            if value < 0 or (value >= 1 and value != int(value)):
                raise SettingsError(f"--{name.replace('_', '-')} must be a count or a fraction in [0, 1)")
        if self.guard is not None and not 0 < self.guard <= 1:
            raise SettingsError("--guard must be a similarity in (0, 1]")


def parse_size(text: str, option: str) -> float:
    """A target size: a fraction of all questions ("0.1") or a count ("1200")."""
    try:
        value = float(text) if "." in text or "e" in text.lower() else int(text)
    except ValueError:
        raise SettingsError(f"{option} must be a count or a fraction, not {text!r}") from None
    if value < 0 or (isinstance(value, float) and value >= 1):
        raise SettingsError(f"{option} must be a count (≥ 0) or a fraction in [0, 1), not {text!r}")
    return value


def target_count(size: float, total: int) -> int:
    return round(size * total) if isinstance(size, float) and size < 1 else int(size)


@dataclass(frozen=True)
class SplitResult:
    examples: list[Example]
    clusters: int
    clustered: int
    guarded: int
    counts: dict[str, int]
    targets: dict[str, int]
    settings: SplitSettings
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        return {
            "settings": dataclasses.asdict(self.settings),
            "questions": len(self.examples),
            "clusters": self.clusters,
            "clustered_questions": self.clustered,
            "unclustered_questions": len(self.examples) - self.clustered,
            "guarded_to_train": self.guarded,
            "targets": self.targets,
            "counts": self.counts,
            "warnings": self.warnings,
        }


def hdbscan_algorithm(n: int) -> str:
    """``brute`` (fastest) while its matrices fit :data:`BRUTE_FORCE_BYTES`, else ``auto`` (trees)."""
    return "brute" if 2 * 8 * n * n <= BRUTE_FORCE_BYTES else "auto"


def cluster(embeddings: np.ndarray, settings: SplitSettings) -> np.ndarray:
    """HDBSCAN labels (``-1``: unclustered) of L2-normalised embeddings (Euclidean ~ cosine)."""
    n = len(embeddings)
    if n < settings.min_cluster_size:
        return np.full(n, NOISE_CLUSTER, dtype=np.int64)
    from sklearn.cluster import HDBSCAN

    model = HDBSCAN(
        min_cluster_size=settings.min_cluster_size,
        min_samples=settings.min_samples,
        cluster_selection_method=settings.selection,
        algorithm=hdbscan_algorithm(n),
        copy=True,
    )
    labels: np.ndarray = model.fit_predict(np.asarray(embeddings, dtype=np.float64)).astype(np.int64)
    return labels


def nearest_neighbour_similarity(embeddings: np.ndarray, rows: np.ndarray, block: int = 2048) -> np.ndarray:
    """For each row index, the highest cosine similarity to any *other* question."""
    best = np.full(len(rows), -1.0, dtype=np.float32)
    for start in range(0, len(rows), block):
        part = rows[start : start + block]
        sims = embeddings[part] @ embeddings.T
        sims[np.arange(len(part)), part] = -np.inf
        best[start : start + block] = sims.max(axis=1) if sims.shape[1] else -1.0
    return best


def assign(
    labels: np.ndarray,
    settings: SplitSettings,
    *,
    keep_in_train: np.ndarray | None = None,
) -> tuple[list[str], dict[str, int], list[str]]:
    """Split names per question: clustered (and kept) ones to train, the rest dealt by a seeded shuffle."""
    n = len(labels)
    want = {
        "validation": target_count(settings.validation_size, n),
        "test": target_count(settings.test_size, n),
    }
    free = np.flatnonzero(labels == NOISE_CLUSTER)
    if keep_in_train is not None:
        free = free[~keep_in_train[free]]
    order = np.random.default_rng(settings.seed).permutation(free)
    warnings: list[str] = []
    need = want["validation"] + want["test"]
    got = dict(want)
    if need > len(order):
        got["validation"] = want["validation"] * len(order) // need if need else 0
        got["test"] = len(order) - got["validation"]
        warnings.append(
            f"only {len(order)} unclustered questions for {need} validation and test places: "
            f"validation {got['validation']}, test {got['test']} (a larger --min-cluster-size leaves more)"
        )
    splits = ["train"] * n
    for i in order[: got["validation"]].tolist():
        splits[i] = "validation"
    for i in order[got["validation"] : got["validation"] + got["test"]].tolist():
        splits[i] = "test"
    return splits, want, warnings


def split_examples(
    examples: Sequence[Example], embeddings: np.ndarray, settings: SplitSettings
) -> SplitResult:
    """The split of ``examples`` given their question embeddings (pure: same inputs, same result)."""
    if len(embeddings) != len(examples):
        raise ValueError("one embedding per example is needed")
    labels = cluster(embeddings, settings)
    keep = None
    if settings.guard is not None:
        noise = np.flatnonzero(labels == NOISE_CLUSTER)
        keep = np.zeros(len(labels), dtype=bool)
        keep[noise] = nearest_neighbour_similarity(embeddings, noise) >= settings.guard
    splits, targets, warnings = assign(labels, settings, keep_in_train=keep)
    out = [
        dataclasses.replace(e, split=s, cluster=int(c))
        for e, s, c in zip(examples, splits, labels.tolist(), strict=True)
    ]
    counts = Counter(splits)
    return SplitResult(
        examples=out,
        clusters=int(labels.max()) + 1 if len(labels) and labels.max() >= 0 else 0,
        clustered=int(np.count_nonzero(labels != NOISE_CLUSTER)),
        guarded=int(keep.sum()) if keep is not None else 0,
        counts={name: counts.get(name, 0) for name in ("train", "validation", "test")},
        targets=targets,
        settings=settings,
        warnings=warnings,
    )


def split_dataset(
    folder: DatasetFolder,
    settings: SplitSettings,
    *,
    executor: Executor | None = None,
    device: str | None = None,
    progress: Progress = QUIET,
) -> SplitResult:
    """Split a dataset folder in place (QA part: ``split``, ``cluster``; manifest: the settings)."""
    examples = folder.examples()
    embeddings = question_embeddings(
        folder, examples, settings.model, executor=executor, device=device, progress=progress
    )
    result = split_examples(examples, embeddings, settings)
    folder.write_examples(result.examples)
    manifest = folder.manifest()
    manifest["split"] = {
        **result.summary(),
        "tool": f"wikihowqa {__version__}",
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    write_json(folder.path / MANIFEST_FILE, manifest)
    return result
