"""``wikihowqa parse``: re-parse a dataset folder's documents from their raw snapshots."""

from __future__ import annotations

from pathlib import Path

import typer

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import ExecutorKind, RayAddress, Workers, running_on
from wikihowqa.core.progress import Bars


@app.command("parse")
def parse_command(
    dataset: Path = typer.Argument(
        ..., help="Dataset folder whose documents to re-parse (documents.jsonl is rewritten)."
    ),
    raw: Path = typer.Option(
        None,
        "--raw",
        help="Folder of raw snapshots with an index.jsonl or cdx.jsonl (default: DATASET/build.sqlite).",
    ),
    max_words: int = typer.Option(100, "--max-words", help="Largest passage, in words (DPR uses 100)."),
    pagination: str = typer.Option(
        "join",
        "--pagination",
        help="join: join an article's further pages when archived; flag: only record them.",
    ),
    keep_boilerplate: bool = typer.Option(
        False,
        "--keep-boilerplate",
        help="Do not remove comments, related links, share and cookie/newsletter blocks.",
    ),
    min_words: int = typer.Option(1, "--min-words", help="Reject pages with fewer words of article text."),
    max_mb: float = typer.Option(20.0, "--max-mb", help="Reject pages larger than this many megabytes."),
    timeout: float = typer.Option(
        60.0, "--timeout", help="Reject a page whose parsing takes longer (seconds)."
    ),
    max_memory_mb: int = typer.Option(
        2048,
        "--max-memory-mb",
        help="Address space of each parser process; a page needing more is too_large (0: no cap).",
    ),
    workers: Workers = None,
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
) -> None:
    """Re-parse every document of DATASET from its raw snapshot: text, Markdown, title and passages.

    Resumable (rerun after an interruption to continue); pages that cannot be parsed are dropped and
    counted by reason in manifest.json. Pages are parsed in worker processes, never in this one (--workers
    1: one worker): a page past --timeout has its worker killed and replaced, a crash costs only its page.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    # Imported here, not with the module: every command (and --help) would pay for them at start-up.
    from wikihowqa.parse.page import ParseSettings  # heavy: lxml, trafilatura
    from wikihowqa.parse.stage import FolderSnapshots, open_build_cache, reparse_folder  # heavy: lxml

    settings = ParseSettings(
        max_words=max_words,
        min_words=min_words,
        max_bytes=int(max_mb * 1_000_000),
        remove_boilerplate=not keep_boilerplate,
        pagination=pagination,
        timeout_s=timeout,
        max_memory_mb=max_memory_mb,
    )
    source = FolderSnapshots(raw) if raw is not None else open_build_cache(dataset)
    columns = (TextColumn("parsing"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with (
        running_on(executor, ray_address, workers) as runner,
        Progress(*columns, console=console, transient=True) as bar,
    ):
        report = reparse_folder(dataset, source, settings, executor=runner, progress=Bars(bar))
    dropped = ", ".join(f"{n} {reason}" for reason, n in sorted(report.rejected.items())) or "none"
    out.print(
        f"parsed {report.parsed} documents ({report.resumed} resumed), "
        f"{report.unchanged} without a raw snapshot "
        f"kept as they were; dropped: {dropped}; comment sections removed from {report.comments_removed}; "
        f"paginated: {report.joined} joined, {report.flagged} flagged; truncated (kept): {report.truncated}"
    )
