"""Record a benchmark's table in benchmarks/RESULTS.md: one heading per run (date, commit), newest first."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).parent / "RESULTS.md"
TITLE = "# Benchmark results\n\nEach run's tables as its script printed them, newest first.\n"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def append_run(title: str, body: str, path: Path = RESULTS) -> None:
    """Insert ``## title — date, commit`` and ``body`` right after the file's title."""
    text = path.read_text(encoding="utf-8") if path.exists() else TITLE
    if not text.startswith(TITLE):
        text = TITLE + "\n" + text
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = f"\n## {title} — {stamp}, commit {_commit()}\n\n{body.rstrip()}\n"
    path.write_text(TITLE + section + text[len(TITLE) :], encoding="utf-8")
