"""Raw archived snapshots, and the reading side of the build state file (``build.sqlite``) that holds them.

A low layer so that the parse stage can re-read what the collector stored without importing the collector:
``collect.store.StateStore`` writes this file (and extends :class:`StateReader`), ``parse`` reads it through
:func:`snapshot_source`. The file's layout (:data:`SCHEMA`) is written down here, once, for both sides.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol, Self

from wikihowqa.core.errors import DatasetError

STATE_FILE = "build.sqlite"
SCHEMA_VERSION = "1"

SCHEMA = """
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


@dataclass(frozen=True, slots=True)
class RawSnapshot:
    """One archived response as fetched: ``url`` is the original URL, ``archive_url`` where it came from."""

    key: str
    url: str
    archive_url: str
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)


class SnapshotSource(Protocol):
    """Where the parse stage finds raw snapshots: :class:`StoredSnapshots` implements this over
    ``build.sqlite``, ``parse.stage.FolderSnapshots`` over a folder of files."""

    def get(self, archive_url: str) -> RawSnapshot | None:
        """The snapshot a document was parsed from."""

    def find(self, url: str, near: str | None = None) -> RawSnapshot | None:
        """The capture of an original URL (a continuation page) closest in time to ``near`` (a 14-digit
        Wayback timestamp: the first page's), or ``None``."""


class StoredResponse(NamedTuple):
    url: str
    status: int
    headers: dict[str, str]
    content: bytes


def canonical_url(url: str) -> str:
    """Scheme, ``www.`` and a trailing slash do not change which page a URL names."""
    url = re.sub(r"^[a-z][a-z0-9+.-]*://(www\.)?", "", url.strip(), flags=re.I)
    head, sep, query = url.partition("?")
    return head.rstrip("/").lower() + sep + query


class StateReader:
    """A build state file opened read-only: stored responses, the snapshot index, meta."""

    _db: sqlite3.Connection

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise DatasetError(f"{self.path}: no such build state file")
        uri = f"file:{self.path}?mode=ro"
        self._db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
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

    def close(self) -> None:
        """Fold the write-ahead log into the database file, so the state is one self-contained file."""
        with contextlib.suppress(sqlite3.DatabaseError):
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def stored_response(self, key: str) -> StoredResponse | None:
        row = self._db.execute(
            "SELECT url, status, headers, body, compressed FROM responses WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        url, status, headers, body, compressed = row
        content = zlib.decompress(body) if compressed else bytes(body)
        return StoredResponse(url, status, json.loads(headers), content)

    def snapshot(self, archive_url: str) -> tuple[str, str, str] | None:
        """``(url, timestamp, response_key)`` of a stored snapshot."""
        row = self._db.execute(
            "SELECT url, timestamp, response_key FROM snapshots WHERE archive_url = ?", (archive_url,)
        ).fetchone()
        return None if row is None else tuple(row)

    def snapshots_of(self, url: str) -> list[tuple[str, str, str, str]]:
        """``(archive_url, url, timestamp, response_key)`` of every stored capture of a page."""
        return [
            tuple(r)
            for r in self._db.execute(
                "SELECT archive_url, url, timestamp, response_key FROM snapshots WHERE canonical = ? "
                "ORDER BY timestamp",
                (canonical_url(url),),
            )
        ]

    def snapshot_urls(self) -> list[str]:
        return [u for (u,) in self._db.execute("SELECT archive_url FROM snapshots ORDER BY archive_url")]

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]


class StoredSnapshots:
    """Raw snapshots kept in ``build.sqlite``: a :class:`SnapshotSource` (``get`` by archive URL, ``find`` by
    original URL, for the continuation pages of a paginated article)."""

    def __init__(self, store: StateReader) -> None:
        self.store = store

    def _load(self, archive_url: str, url: str, response_key: str) -> RawSnapshot | None:
        response = self.store.stored_response(response_key)
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
    return StoredSnapshots(StateReader(path))
