"""Judgments out of the server's database into judgments.jsonl, while the server runs or after."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import atomic_write
from wikihowqa.humaneval.app.state import DB_FILE


def export_judgments(
    study_dir: Path, target: Path, *, db_file: str = DB_FILE, overwrite: bool = False
) -> int:
    """Write every stored judgment, in submission order, atomically; returns how many. Reads a snapshot
    (one read transaction), so a running server neither blocks it nor tears it. An existing ``target``
    is replaced only with ``overwrite`` (it may hold judgments the database no longer has)."""
    if Path(target).exists() and not overwrite:
        raise DatasetError(f"{target}: exists (use --overwrite to replace it)")
    path = Path(study_dir) / db_file
    if not path.is_file():
        raise DatasetError(f"{study_dir}: no {db_file} (has `wikihowqa serve` run on this study?)")
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise DatasetError(f"{path}: cannot open ({exc})") from None
    n = 0
    try:
        with atomic_write(Path(target)) as fh:
            for (body,) in conn.execute("SELECT body FROM judgments ORDER BY seq"):
                fh.write(body)
                fh.write("\n")
                n += 1
    except sqlite3.DatabaseError as exc:
        raise DatasetError(f"{path}: not a study server database ({exc})") from None
    finally:
        conn.close()
    return n


__all__ = ["export_judgments"]
