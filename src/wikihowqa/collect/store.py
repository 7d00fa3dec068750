"""The collector's state in one SQLite file (``build.sqlite``): every response and every stage result.

Each completed request is committed under its full URL the moment it completes, and so is each stage
result (an article's record, a reference's snapshot, a document's parse), in write-ahead-log mode: a
``kill -9`` at any instant loses at most the requests then in flight, and rerunning the same command
reads everything else back instead of asking the network again. The raw bytes of archived snapshots
live here too (zlib-compressed), which is what lets the parse stage re-read them without refetching.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikihowqa.collect.http import Response
from wikihowqa.errors import DatasetError

if TYPE_CHECKING:
    from wikihowqa.parse.stage import RawSnapshot

STATE_FILE = "build.sqlite"
SCHEMA_VERSION = "1"
_COMPRESS_ABOVE = 512

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY, url TEXT NOT NULL, status INTEGER NOT NULL, headers TEXT NOT NULL,
    body BLOB NOT NULL, compressed INTEGER NOT NULL, fetched_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    stage TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (stage, key));
CREATE TABLE IF NOT EXISTS snapshots (
    archive_url TEXT PRIMARY KEY, url TEXT NOT NULL, canonical TEXT NOT NULL, timestamp TEXT NOT NULL,
    response_key TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS snapshots_by_canonical ON snapshots (canonical);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def canonical_url(url: str) -> str:
    """Scheme, ``www.`` and a trailing slash do not change which page a URL names."""
    url = re.sub(r"^[a-z][a-z0-9+.-]*://(www\.)?", "", url.strip(), flags=re.I)
    head, sep, query = url.partition("?")
    return head.rstrip("/").lower() + sep + query


class StateStore:
    """Responses, stage results and a snapshot index; safe against being killed at any moment."""

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        self.path = Path(path)
        if readonly:
            if not self.path.is_file():
                raise DatasetError(f"{self.path}: no such build state file")
            uri = f"file:{self.path}?mode=ro"
            self._db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            self._check_version()
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a committed transaction survives the process dying (kill -9);
            # only a power cut could drop the last few, which a rerun simply fetches again.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise DatasetError(f"{self.path}: not a usable build state database ({exc})") from None
        if self.get_meta("schema") is None:
            self.set_meta("schema", SCHEMA_VERSION)
        self._check_version()

    def _check_version(self) -> None:
        try:
            version = self.get_meta("schema")
        except sqlite3.DatabaseError as exc:
            raise DatasetError(f"{self.path}: not a usable build state database ({exc})") from None
        if version not in (None, SCHEMA_VERSION):
            raise DatasetError(
                f"{self.path}: build state schema {version}, this version reads {SCHEMA_VERSION}"
            )

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Fold the write-ahead log into the database file, so the state is one self-contained file."""
        with contextlib.suppress(sqlite3.DatabaseError):
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.close()

    def __enter__(self) -> StateStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ responses (ResponseCache)

    def get_response(self, key: str) -> Response | None:
        row = self._db.execute(
            "SELECT url, status, headers, body, compressed FROM responses WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        url, status, headers, body, compressed = row
        content = zlib.decompress(body) if compressed else bytes(body)
        return Response(url, status, json.loads(headers), content, from_cache=True)

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
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

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

    def snapshot(self, archive_url: str) -> tuple[str, str, str] | None:
        """``(url, timestamp, response_key)`` of a stored snapshot."""
        row = self._db.execute(
            "SELECT url, timestamp, response_key FROM snapshots WHERE archive_url = ?", (archive_url,)
        ).fetchone()
        return None if row is None else tuple(row)  # type: ignore[return-value]

    def snapshots_of(self, url: str) -> list[tuple[str, str, str, str]]:
        """``(archive_url, url, timestamp, response_key)`` of every stored capture of a page."""
        return [
            tuple(r)  # type: ignore[misc]
            for r in self._db.execute(
                "SELECT archive_url, url, timestamp, response_key FROM snapshots WHERE canonical = ? "
                "ORDER BY timestamp",
                (canonical_url(url),),
            )
        ]

    def snapshot_urls(self) -> list[str]:
        return [u for (u,) in self._db.execute("SELECT archive_url FROM snapshots ORDER BY archive_url")]

    # ------------------------------------------------------------------ meta

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # ------------------------------------------------------------------ helpers

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


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


# --------------------------------------------------------------------------- the parse stage's view


class StoredSnapshots:
    """Raw snapshots kept in ``build.sqlite``: the parse stage's ``SnapshotSource`` (``get`` by archive URL,
    ``find`` by original URL, for the continuation pages of a paginated article)."""

    def __init__(self, store: StateStore) -> None:
        self.store = store

    def _load(self, archive_url: str, url: str, response_key: str) -> RawSnapshot | None:
        from wikihowqa.parse.stage import RawSnapshot

        response = self.store.get_response(response_key)
        if response is None:
            return None
        return RawSnapshot(archive_url, url, archive_url, response.content, dict(response.headers))

    def get(self, archive_url: str) -> RawSnapshot | None:
        found = self.store.snapshot(archive_url)
        return None if found is None else self._load(archive_url, found[0], found[2])

    def find(self, url: str, near: str | None = None) -> RawSnapshot | None:
        """The stored capture of ``url`` closest in time to ``near`` (a 14-digit timestamp; ties: earlier)."""
        rows = self.store.snapshots_of(url)
        if not rows:
            return None
        if near is not None:
            target = int(near.ljust(14, "0")[:14])
            rows = sorted(rows, key=lambda r: (abs(int(r[2]) - target), r[2]))
        archive_url, original, _, key = rows[0]
        return self._load(archive_url, original, key)

    def __iter__(self) -> Iterator[RawSnapshot]:
        for archive_url in self.store.snapshot_urls():
            snap = self.get(archive_url)
            if snap is not None:
                yield snap


def snapshot_source(path: Path | str) -> StoredSnapshots:
    """Read-only access to the raw snapshots of a build state file (used by ``wikihowqa parse``)."""
    return StoredSnapshots(StateStore(path, readonly=True))
