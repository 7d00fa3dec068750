"""Command-line interface: one thin command per stage, no logic beyond argument handling."""

from __future__ import annotations

import sys

from rich.markup import escape

from wikihowqa.cli._app import app, console
from wikihowqa.errors import WikihowqaError

# Each module registers its commands on ``app`` when imported.
# Registered in pipeline order, which is the order `wikihowqa --help` lists them in.
from wikihowqa.cli import build  # noqa: F401  isort: skip
from wikihowqa.cli import dataset  # noqa: F401  isort: skip
from wikihowqa.cli import parse  # noqa: F401  isort: skip
from wikihowqa.cli import split  # noqa: F401  isort: skip
from wikihowqa.cli import stats  # noqa: F401  isort: skip
from wikihowqa.cli import answer  # noqa: F401  isort: skip
from wikihowqa.cli import evaluate  # noqa: F401  isort: skip
from wikihowqa.cli import humaneval  # noqa: F401  isort: skip
from wikihowqa.cli import serve  # noqa: F401  isort: skip
from wikihowqa.cli import replay  # noqa: F401  isort: skip
from wikihowqa.cli import demo  # noqa: F401  isort: skip


def main() -> None:
    """Entry point: user errors become one red line and exit status 2, never a traceback.

    The message is escaped: it quotes file names and values, and a ``[`` in them is not rich markup.
    """
    try:
        app()
    except WikihowqaError as exc:
        console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]: completed work is saved; run the same command again to resume")
        sys.exit(130)


__all__ = ["app", "main"]
