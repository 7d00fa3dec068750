"""The study server's database: one SQLite file in the study folder, WAL mode, used by one process.

Why SQLite: a study is one folder that a researcher can copy, and a crowd study peaks at a few hundred
submissions a second, well within one SQLite writer. WAL keeps readers (progress, downloads) from
blocking the writer, and a committed transaction survives the process being killed (with
``durable=True``, ``synchronous=FULL``, also a power loss). Every statement is a constant with ``?``
parameters: nothing a client sends is ever formatted into SQL (tests/humaneval/app/test_app_db.py checks
this module's source for it).

A judgment is stored once: its client-generated ``judgment_id`` and the (task, assessor) pair are both
unique, so a retried submit finds the row it already wrote instead of adding a second.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from wikihowqa.humaneval.collected import count_judgments

SCHEMA_VERSION = "1"

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS assessors (
        assessor_id TEXT PRIMARY KEY,
        part TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('plan', 'crowd', 'extra')),
        token TEXT NOT NULL,
        token_digest TEXT NOT NULL UNIQUE,
        worker_id TEXT,
        completion_code TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (worker_id, part)
    )""",
    """CREATE TABLE IF NOT EXISTS shown (
        assessor_id TEXT NOT NULL REFERENCES assessors (assessor_id),
        task_id TEXT NOT NULL,
        shown_at TEXT NOT NULL,
        PRIMARY KEY (assessor_id, task_id)
    )""",
    """CREATE TABLE IF NOT EXISTS judgments (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        judgment_id TEXT NOT NULL UNIQUE,
        task_id TEXT NOT NULL,
        assessor_id TEXT NOT NULL REFERENCES assessors (assessor_id),
        attentive INTEGER,
        body TEXT NOT NULL,
        UNIQUE (task_id, assessor_id)
    )""",
)

_INSERT_JUDGMENT = (
    "INSERT INTO judgments (judgment_id, task_id, assessor_id, attentive, body) VALUES (?, ?, ?, ?, ?) "
    "ON CONFLICT DO NOTHING"
)
_JUDGMENT_BY_ID = "SELECT task_id, assessor_id, body FROM judgments WHERE judgment_id = ?"
_JUDGMENT_BY_PAIR = "SELECT judgment_id FROM judgments WHERE task_id = ? AND assessor_id = ?"


@dataclass(frozen=True)
class AssessorRow:
    assessor_id: str
    part: str
    kind: str  # "plan" (a slot of assignments.jsonl), "crowd" (joined with a worker id), "extra" (admin)
    token: str
    token_digest: str
    worker_id: str | None
    completion_code: str
    created_at: str


@dataclass(frozen=True)
class JudgmentRow:
    seq: int
    judgment_id: str
    task_id: str
    assessor_id: str
    attentive: bool | None
    body: str  # the judgments.jsonl line, without the newline


@dataclass(frozen=True)
class Stored:
    """What an insert did: ``stored`` (new row), ``duplicate`` (the same submission again: ``body`` is
    the row stored the first time), ``id_taken`` or ``already_judged`` (a different submission)."""

    outcome: str
    body: str | None = None


class StudyDB:
    """The server's state on disk. Not thread-safe by design: the server calls it from its event loop
    only (one process, one thread), which also makes each read-check-write sequence atomic."""

    def __init__(self, path: Path, *, durable: bool = False) -> None:
        self.path = Path(path)
        new = not self.path.exists()
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        if new:
            os.chmod(self.path, 0o600)  # it holds the assessors' tokens
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = FULL" if durable else "PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.execute("PRAGMA busy_timeout = 5000")
        with self.transaction():
            for statement in _SCHEMA:
                self.conn.execute(statement)
            self.conn.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT DO NOTHING",
                (SCHEMA_VERSION,),
            )

    # ------------------------------------------------------------------ plumbing

    def transaction(self) -> _Transaction:
        return _Transaction(self.conn)

    def close(self) -> None:
        self.conn.close()

    def journal_mode(self) -> str:
        return str(self.conn.execute("PRAGMA journal_mode").fetchone()[0])

    # ------------------------------------------------------------------ meta

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def set_meta(self, values: dict[str, str]) -> None:
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                list(values.items()),
            )

    # ------------------------------------------------------------------ assessors

    def add_assessors(self, rows: list[AssessorRow]) -> None:
        with self.transaction():
            self.conn.executemany(
                "INSERT INTO assessors (assessor_id, part, kind, token, token_digest, worker_id, "
                "completion_code, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        r.assessor_id,
                        r.part,
                        r.kind,
                        r.token,
                        r.token_digest,
                        r.worker_id,
                        r.completion_code,
                        r.created_at,
                    )
                    for r in rows
                ],
            )

    def assessors(self) -> list[AssessorRow]:
        rows = self.conn.execute(
            "SELECT assessor_id, part, kind, token, token_digest, worker_id, completion_code, created_at "
            "FROM assessors ORDER BY rowid"
        ).fetchall()
        return [AssessorRow(*r) for r in rows]

    def set_token(self, assessor_id: str, token: str, digest: str) -> None:
        with self.transaction():
            self.conn.execute(
                "UPDATE assessors SET token = ?, token_digest = ? WHERE assessor_id = ?",
                (token, digest, assessor_id),
            )

    def delete_unused_plan_assessors(self, keep: set[str]) -> int:
        """Drop plan slots that are no longer in the plan and have never been opened (after the task files
        were rebuilt before any judgment)."""
        rows = self.conn.execute(
            "SELECT assessor_id FROM assessors WHERE kind = 'plan' "
            "AND assessor_id NOT IN (SELECT assessor_id FROM shown)"
        ).fetchall()
        gone = [(r[0],) for r in rows if r[0] not in keep]
        with self.transaction():
            self.conn.executemany("DELETE FROM assessors WHERE assessor_id = ?", gone)
        return len(gone)

    # ------------------------------------------------------------------ shown tasks (leases)

    def add_shown(self, assessor_id: str, task_id: str, shown_at: str) -> None:
        with self.transaction():
            self.conn.execute(
                "INSERT INTO shown (assessor_id, task_id, shown_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (assessor_id, task_id, shown_at),
            )

    def shown(self) -> list[tuple[str, str, str]]:
        return self.conn.execute("SELECT assessor_id, task_id, shown_at FROM shown ORDER BY rowid").fetchall()

    def clear_shown(self) -> None:
        with self.transaction():
            self.conn.execute("DELETE FROM shown")

    # ------------------------------------------------------------------ judgments

    def insert_judgment(
        self, judgment_id: str, task_id: str, assessor_id: str, attentive: bool | None, body: str
    ) -> Stored:
        """Store a judgment once; a retry of the same submission returns the row stored first."""
        flag = None if attentive is None else int(attentive)
        with self.transaction():
            cursor = self.conn.execute(_INSERT_JUDGMENT, (judgment_id, task_id, assessor_id, flag, body))
            if cursor.rowcount == 1:
                return Stored("stored")
            existing = self.conn.execute(_JUDGMENT_BY_ID, (judgment_id,)).fetchone()
            if existing is not None:
                if existing[0] == task_id and existing[1] == assessor_id:
                    return Stored("duplicate", existing[2])
                return Stored("id_taken")
            if self.conn.execute(_JUDGMENT_BY_PAIR, (task_id, assessor_id)).fetchone() is not None:
                return Stored("already_judged")
            raise sqlite3.IntegrityError("judgment not stored for an unknown reason")  # pragma: no cover

    def judgments(self) -> Iterator[JudgmentRow]:
        cursor = self.conn.execute(
            "SELECT seq, judgment_id, task_id, assessor_id, attentive, body FROM judgments ORDER BY seq"
        )
        for seq, jid, task_id, assessor_id, attentive, body in cursor:
            yield JudgmentRow(
                seq, jid, task_id, assessor_id, None if attentive is None else bool(attentive), body
            )

    def judgment_keys(self) -> list[tuple[str, str, bool | None]]:
        """(task, assessor, attentive) of every judgment: what the assignment state is rebuilt from."""
        rows = self.conn.execute(
            "SELECT task_id, assessor_id, attentive FROM judgments ORDER BY seq"
        ).fetchall()
        return [(t, a, None if f is None else bool(f)) for t, a, f in rows]

    def judgment(self, judgment_id: str) -> JudgmentRow | None:
        row = self.conn.execute(
            "SELECT seq, judgment_id, task_id, assessor_id, attentive, body FROM judgments "
            "WHERE judgment_id = ?",
            (judgment_id,),
        ).fetchone()
        if row is None:
            return None
        return JudgmentRow(*row[:4], None if row[4] is None else bool(row[4]), row[5])

    def judgments_of(self, assessor_id: str) -> list[JudgmentRow]:
        rows = self.conn.execute(
            "SELECT seq, judgment_id, task_id, assessor_id, attentive, body FROM judgments "
            "WHERE assessor_id = ? ORDER BY seq",
            (assessor_id,),
        ).fetchall()
        return [JudgmentRow(*r[:4], None if r[4] is None else bool(r[4]), r[5]) for r in rows]

    def count_judgments(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM judgments").fetchone()[0])


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (or ``ROLLBACK`` on error): one atomic unit on disk."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.outer = False

    def __enter__(self) -> sqlite3.Connection:
        self.outer = not self.conn.in_transaction
        if self.outer:
            self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind, value, tb) -> None:
        if not self.outer:
            return
        self.conn.execute("ROLLBACK" if kind is not None else "COMMIT")


__all__ = ["AssessorRow", "JudgmentRow", "Stored", "StudyDB", "count_judgments"]
