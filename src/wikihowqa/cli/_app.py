"""The typer application every command module registers on; kept apart to avoid import cycles."""

from __future__ import annotations

import typer
from rich.console import Console

from wikihowqa import __version__

app = typer.Typer(
    name="wikihowqa",
    help="Build, split, describe, answer and evaluate multi-document non-factoid QA benchmarks (WikiHowQA).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)
console = Console(stderr=True)
out = Console()


def _version(value: bool) -> None:
    if value:
        out.print(f"wikihowqa {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """wikihowqa: one command per pipeline stage; each reads and writes a dataset folder."""
