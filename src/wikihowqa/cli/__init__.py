"""Command-line interface: one thin command per stage, no logic beyond argument handling."""

from __future__ import annotations

import sqlite3
import sys

from rich.markup import escape

from wikihowqa.cli._app import app, console
from wikihowqa.cli._failures import lost_path
from wikihowqa.core.errors import WikihowqaError, describe_environment_error, is_environment_error

# Each module registers its commands on ``app`` when imported.
# Registered in pipeline order, which is the order `wikihowqa --help` lists them in.
from wikihowqa.cli import build  # noqa: F401  isort: skip
from wikihowqa.cli import hydrate  # noqa: F401  isort: skip
from wikihowqa.cli import dataset  # noqa: F401  isort: skip
from wikihowqa.cli import parse  # noqa: F401  isort: skip
from wikihowqa.cli import split  # noqa: F401  isort: skip
from wikihowqa.cli import stats  # noqa: F401  isort: skip
from wikihowqa.cli import answer  # noqa: F401  isort: skip
from wikihowqa.cli import evaluate  # noqa: F401  isort: skip
from wikihowqa.cli import humaneval  # noqa: F401  isort: skip
from wikihowqa.cli import serve  # noqa: F401  isort: skip
from wikihowqa.cli import metaeval  # noqa: F401  isort: skip
from wikihowqa.cli import export  # noqa: F401  isort: skip
from wikihowqa.cli import replay  # noqa: F401  isort: skip
from wikihowqa.cli import view  # noqa: F401  isort: skip
from wikihowqa.cli import demo  # noqa: F401  isort: skip


def _fail(message: str) -> None:
    console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(2)


def main() -> None:
    """Entry point: user errors become one red line and exit status 2, never a traceback.

    A full disk, a read-only folder or a missing path (``OSError``, or SQLite's equivalent) is such an
    error too: one line naming the path and the OS error. The message is escaped: it quotes file names
    and values, and a ``[`` in them is not rich markup.
    """
    try:
        app()
    except WikihowqaError as exc:
        _fail(str(exc))
    except (OSError, sqlite3.Error) as exc:
        if not is_environment_error(exc):
            raise
        _fail(describe_environment_error(exc, lost_path(exc.__traceback__)))
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]: completed work is saved; run the same command again to resume")
        sys.exit(130)


__all__ = ["app", "main"]
