"""The path an OS or SQLite error is about, when the error itself does not say.

A failed ``write()``/``fsync()`` raises ``OSError`` without a file name, and SQLite's errors never name the
database. Both are user-fixable (a full disk, a read-only folder), so the CLI must name the path in its
one line; the frame that failed still holds the open file or connection (or, once the run has closed
it, the object that owned it, with its ``path``), and that names it.
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


#: Attribute names under which an object that holds a connection keeps its database file.
_PATH_ATTRIBUTES = ("path", "db_path", "database", "filename")


def _owner_path(owner: Any) -> str | None:
    """The file of an object holding a (maybe already closed) connection, from its ``path`` attribute."""
    attributes = vars(owner)
    if not any(isinstance(v, sqlite3.Connection) for v in attributes.values()):
        return None
    for name in _PATH_ATTRIBUTES:
        value = attributes.get(name)
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
        values = list(frame.f_locals.values())
        owner = frame.f_locals.get("self")
        if owner is not None and hasattr(owner, "__dict__"):
            values += list(vars(owner).values())
        for value in values:
            path = _path_of(value)
            if path:
                return path
        if owner is not None and hasattr(owner, "__dict__") and (path := _owner_path(owner)):
            return path  # its connection is closed by now (the failed run cleaned up)
    return None
