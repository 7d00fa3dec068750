"""What the study server has collected in a study folder, read without the server: the study builder refuses
to rebuild over judgments (``tasks.write_study``), so this sits below the web app (``humaneval.app``), which
the library never imports."""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: The study server's database, in the study folder.
SERVER_DB = "server.sqlite"


def count_judgments(path: Path) -> int:
    """Judgments in a server database file, read-only (0 when the file is not one)."""
    path = Path(path)
    if not path.is_file():
        return 0
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT count(*) FROM judgments").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
