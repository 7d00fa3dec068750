"""``wikihowqa demo``: run the pipeline on the embedded demo corpus."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import PORT_DEFAULT, Port, out_option
from wikihowqa.cli._outputs import writes


def _corpus() -> list[tuple[str, Path]]:
    """The demo's input: the corpus shipped in the package (a demo --out there would replace it)."""
    from wikihowqa.demo.paths import corpus_path

    return [("corpus", corpus_path())]


@app.command("demo")
@writes("out_dir", extra=_corpus)
def demo_command(
    out_dir: Annotated[
        Path | None, out_option("everything", "a new wikihowqa-demo-<time> folder here")
    ] = None,
    serve: bool = typer.Option(
        False, "--serve", help="Afterwards, serve the demo study in the browser on 127.0.0.1 (Ctrl+C stops)."
    ),
    port: Port = PORT_DEFAULT,
) -> None:
    """Run the whole pipeline on the embedded demo corpus and print a table of what it produced.

    Builds the dataset from a local replay of wikiHow and the Wayback Machine, splits and describes it,
    answers its test questions with baselines, evaluates them, and runs a simulated human evaluation.
    """
    from wikihowqa.demo.run import default_out_dir, run_demo  # heavy: numpy (start-up time)

    target = out_dir or default_out_dir()
    ctx = run_demo(target, progress=lambda title: console.print(f"[bold cyan]›[/] {escape(title)}"))
    # Paths and counts are text: a "[" in a folder name must not be read as rich markup.
    table = Table(title=f"wikihowqa demo → {escape(str(ctx.out))}")
    for column in ("what", "where", "how many"):
        table.add_column(column)
    for row in ctx.produced:
        table.add_row(*map(escape, row))
    out.print(table)
    if serve:
        from wikihowqa.humaneval.app import demo_serve  # heavy: FastAPI, pydantic

        demo_serve(ctx, port=port, open_browser=True)
