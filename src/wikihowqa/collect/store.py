"""The collector's state in one SQLite file (``build.sqlite``): every response and every stage result.

Each completed request is committed under its full URL the moment it completes, and so is each stage
result (an article's record, a reference's snapshot, a document's parse), in write-ahead-log mode: a
``kill -9`` at any instant loses at most the requests then in flight, and rerunning the same command
reads everything else back instead of asking the network again. The raw bytes of archived snapshots
live here too (zlib-compressed), which is what lets the parse stage re-read them without refetching.
The file's layout and its reading side are ``wikihowqa.dataset.snapshots`` (a low layer the parse stage
reads).
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa.collect.http import Response
from wikihowqa.core.errors import DatasetError
from wikihowqa.dataset.snapshots import (
    SCHEMA,
    SCHEMA_VERSION,
    STATE_FILE,
    StateReader,
    StoredSnapshots,
    canonical_url,
    snapshot_source,
)

__all__ = [
    "STATE_FILE",
    "StateStore",
    "StoredResults",
    "StoredSnapshots",
    "canonical_url",
    "snapshot_source",
]

_COMPRESS_ABOVE = 512
#: The stages whose results come from the archive (forgotten when the archive changes).
ARCHIVE_STAGES = ("reference", "continuation", "document")


class StateStore(StateReader):
    """Responses, stage results and a snapshot index; safe against being killed at any moment."""

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        if readonly:
            super().__init__(path)
            return
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a committed transaction survives the process dying (kill -9);
            # only a power cut could drop the last few, which a rerun simply fetches again.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise DatasetError(f"{self.path}: not a usable build state database ({exc})") from None
        if self.get_meta("schema") is None:
            self.set_meta("schema", SCHEMA_VERSION)
        self._check_version()

    # ------------------------------------------------------------------ responses (ResponseCache)

    def get_response(self, key: str) -> Response | None:
        stored = self.stored_response(key)
        return None if stored is None else Response(*stored, from_cache=True)

    def put_response(self, key: str, response: Response) -> None:
        body = response.content
        compressed = len(body) > _COMPRESS_ABOVE
        stored = zlib.compress(body, 6) if compressed else body
        self._db.execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                key,
                response.url,
                response.status,
                json.dumps(dict(response.headers), sort_keys=True),
                stored,
                int(compressed),
                _now(),
            ),
        )

    def response_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def delete_responses(self, keys: Iterable[str]) -> None:
        with self._transaction():
            self._db.executemany("DELETE FROM responses WHERE key = ?", ((k,) for k in keys))

    def response_keys(self) -> set[str]:
        return {k for (k,) in self._db.execute("SELECT key FROM responses")}

    # ------------------------------------------------------------------ stage results

    def get_result(self, stage: str, key: str) -> Any | None:
        row = self._db.execute(
            "SELECT value FROM results WHERE stage = ? AND key = ?", (stage, key)
        ).fetchone()
        return None if row is None else json.loads(row[0])

    def get_fields(self, stage: str, key: str, fields: Sequence[str]) -> dict[str, Any] | None:
        """Some top-level scalar fields of a result (a missing one is ``None``), picked out by SQLite: a
        caller that needs a parse's verdict does not decode the document's text."""
        columns = ", ".join("json_extract(value, ?)" for _ in fields)
        row = self._db.execute(
            f"SELECT {columns} FROM results WHERE stage = ? AND key = ?",
            (*(f"$.{f}" for f in fields), stage, key),
        ).fetchone()
        return None if row is None else dict(zip(fields, row, strict=True))

    def put_result(self, stage: str, key: str, value: Any) -> Any:
        """Store a result; returns it as a later :meth:`get_result` will (so a resumed run computes
        with exactly what an uninterrupted one did, down to the order of keys)."""
        text = _dumps(value)
        self._db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?)", (stage, key, text))
        return json.loads(text)

    def put_results(self, stage: str, items: Iterable[tuple[str, Any]]) -> None:
        """Several results in one transaction: all of them are kept, or (killed midway) none."""
        with self._transaction():
            self._db.executemany(
                "INSERT OR REPLACE INTO results VALUES (?, ?, ?)",
                ((stage, key, _dumps(value)) for key, value in items),
            )

    def results(self, stage: str) -> dict[str, Any]:
        return {
            key: json.loads(value)
            for key, value in self._db.execute(
                "SELECT key, value FROM results WHERE stage = ? ORDER BY key", (stage,)
            )
        }

    def iter_results(self, stage: str) -> Iterator[tuple[str, Any]]:
        """The stage's results one at a time, in key order (memory stays flat however many there are)."""
        for key, value in self._db.execute(
            "SELECT key, value FROM results WHERE stage = ? ORDER BY key", (stage,)
        ):
            yield key, json.loads(value)

    def result_keys(self, stage: str) -> set[str]:
        """The keys of a stage's results, without reading the results."""
        return {k for (k,) in self._db.execute("SELECT key FROM results WHERE stage = ?", (stage,))}

    def delete_results(self, stage: str, keys: Iterable[str]) -> None:
        with self._transaction():
            self._db.executemany(
                "DELETE FROM results WHERE stage = ? AND key = ?", ((stage, k) for k in keys)
            )

    # ------------------------------------------------------------------ snapshot index

    def put_snapshot(self, archive_url: str, url: str, timestamp: str, response_key: str) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?, ?)",
            (archive_url, url, canonical_url(url), timestamp, response_key),
        )

    # ------------------------------------------------------------------ meta

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def forget_other_archive(self, archive: str) -> None:
        """A rerun against another archive (a wrong setting corrected) must not read back what the earlier
        archive answered: its references, continuations and documents are forgotten. ``archive`` names the
        source (``ArchiveSettings.key``, or ``hydrate --from-warc``'s files); ``build`` and ``hydrate`` share
        this bookkeeping here, not through each other."""
        before = self.get_meta("archive")
        if before is not None and before != archive:
            for stage in ARCHIVE_STAGES:
                self.delete_results(stage, self.result_keys(stage))  # keys only: documents are large
        self.set_meta("archive", archive)

    # ------------------------------------------------------------------ helpers

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class StoredResults(Mapping[str, Any]):
    """Some keys' results of one stage, each read from the store when asked for: a mapping over a
    release of any size that holds only its keys in memory. ``missing``: the value of a key the store
    has no result for (``None``: such a key is a ``KeyError``)."""

    def __init__(
        self, store: StateStore, stage: str, keys: Iterable[str], missing: Any | None = None
    ) -> None:
        self.store, self.stage, self.missing = store, stage, missing
        self.keys_ = tuple(dict.fromkeys(keys))
        self._known = frozenset(self.keys_)

    def __getitem__(self, key: str) -> Any:
        if key not in self._known:
            raise KeyError(key)
        value = self.store.get_result(self.stage, key)
        if value is None:
            if self.missing is None:
                raise KeyError(key)
            return self.missing
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys_)

    def __len__(self) -> int:
        return len(self.keys_)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
