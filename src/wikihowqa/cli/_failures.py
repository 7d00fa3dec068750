"""The path an OS or SQLite error is about, when the error itself does not say.

A failed ``write()``/``fsync()`` raises ``OSError`` without a file name, and SQLite's errors never name the
database. Both are user-fixable (a full disk, a read-only folder), so the CLI must name the path in its
one line; the frame that failed still holds the open file or connection, and that names it (or, when it
is closed or was opened from a file descriptor, the ``path`` kept beside it).
"""

from __future__ import annotations

import io
import os
import sqlite3
from types import TracebackType
from typing import Any


def _path_of(value: Any) -> str | None:
    if isinstance(value, sqlite3.Connection):
        try:
            rows = value.execute("PRAGMA database_list").fetchall()
        except sqlite3.Error:
            return None
        return next((row[2] for row in rows if row[1] == "main" and row[2]), None)
    if isinstance(value, io.IOBase):
        name = getattr(value, "name", None)
        return name if isinstance(name, str) else None
    return None


#: Names under which a function or an object that holds a file or connection keeps its path.
_PATH_NAMES = ("path", "db_path", "database", "filename", "target")


def _holder_path(names: dict[str, Any]) -> str | None:
    """The path kept beside a file or connection that no longer names it (closed, or opened from a file
    descriptor, whose ``name`` is a number): a ``path`` variable or attribute."""
    if not any(isinstance(v, sqlite3.Connection | io.IOBase) for v in names.values()):
        return None
    for name in _PATH_NAMES:
        value = names.get(name)
        if isinstance(value, str | os.PathLike):
            return os.fspath(value)
    return None


def lost_path(tb: TracebackType | None) -> str | None:
    """The file or database open in the innermost frame (or its ``self``) that has one."""
    frames = []
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        holders = [dict(frame.f_locals)]
        owner = frame.f_locals.get("self")
        if owner is not None and hasattr(owner, "__dict__"):
            holders.append(vars(owner))
        for names in holders:
            for value in names.values():
                if path := _path_of(value):
                    return path
        for names in holders:
            if path := _holder_path(names):
                return path
    return None
