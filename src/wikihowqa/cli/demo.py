"""``wikihowqa demo``: run the pipeline on the embedded demo corpus."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from wikihowqa.cli._app import app, console, out


@app.command("demo")
def demo_command(
    out_dir: Path = typer.Option(
        None,
        "--out",
        help="Folder to write everything into (default: a new wikihowqa-demo-<time> folder here).",
    ),
) -> None:
    """Run the whole pipeline on the embedded demo corpus and print a table of what it produced."""
    from wikihowqa.demo.run import default_out_dir, run_demo

    target = out_dir or default_out_dir()
    ctx = run_demo(target, progress=lambda title: console.print(f"[bold cyan]›[/] {title}"))
    table = Table(title=f"wikihowqa demo → {ctx.out}")
    for column in ("what", "where", "how many"):
        table.add_column(column)
    for row in ctx.produced:
        table.add_row(*row)
    out.print(table)
