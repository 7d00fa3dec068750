"""Passage embeddings cached on disk, per dataset folder, keyed by model and passage text.

Embedding every passage of a split is the slow part of dense retrieval (minutes on a CPU); the cache makes
a rerun, another system using the same encoder, or a resumed run skip it. One SQLite file
(``<dataset>/cache/embeddings.sqlite``): rows are (model, sha256 of the text, float32 vector), so a changed
passage gets a new row and a changed model never reads another model's vectors.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import numpy as np

CACHE_DIR = "cache"
EMBEDDINGS_FILE = "embeddings.sqlite"


def text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


def default_cache_path(dataset: Path) -> Path:
    return Path(dataset) / CACHE_DIR / EMBEDDINGS_FILE


class EmbeddingCache:
    """``get``/``put`` float32 vectors by (model, text key); safe to interrupt (each ``put`` commits)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        # A new file's pages hold whole rows: on 4 KB pages a 1.5 KB MiniLM vector overflows this index-
        # organised table's in-page limit and took 4.7 KB on disk (3×); 16 KB pages keep it near 1.6 KB.
        # (No effect on an existing file.)
        self._db.execute("PRAGMA page_size = 16384")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, key BLOB NOT NULL,"
            " dim INTEGER NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, key)) WITHOUT ROWID"
        )
        self._db.commit()

    def get(self, model: str, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), 500):  # SQLite caps the number of bound parameters
            chunk = list(keys[start : start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT key, dim, vector FROM embeddings WHERE model = ? AND key IN ({marks})",
                [model, *chunk],
            )
            for key, dim, blob in rows:
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape[0] == dim:  # a torn row is treated as missing and recomputed
                    found[key] = vector
        return found

    def put(self, model: str, items: Mapping[bytes, np.ndarray] | Iterable[tuple[bytes, np.ndarray]]) -> None:
        pairs = items.items() if isinstance(items, Mapping) else items
        rows = [(model, key, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes()) for key, v in pairs]
        self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)
        self._db.commit()

    def count(self, model: str | None = None) -> int:
        if model is None:
            return self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        return self._db.execute("SELECT COUNT(*) FROM embeddings WHERE model = ?", [model]).fetchone()[0]

    def close(self) -> None:
        self._db.close()


def read_through(
    cache: EmbeddingCache,
    model: str,
    texts: Sequence[str],
    embed: Callable[[list[str]], np.ndarray],
    *,
    write: bool = True,
) -> dict[str, np.ndarray]:
    """Vectors of the distinct ``texts``: those ``cache`` holds under ``model``, the others embedded by
    ``embed`` (one call) and, with ``write``, written back (grounding reads the passages dense retrieval
    embedded, and adds those it embeds; answer sentences it only looks up)."""
    keys = {t: text_key(t) for t in dict.fromkeys(texts)}
    found = cache.get(model, list(keys.values()))
    out = {t: found[k] for t, k in keys.items() if k in found}
    todo = [t for t in keys if t not in out]
    if todo:
        vectors = np.asarray(embed(todo), dtype=np.float32)
        out.update(zip(todo, vectors, strict=True))
        if write:
            cache.put(model, ((keys[t], v) for t, v in zip(todo, vectors, strict=True)))
    return out
