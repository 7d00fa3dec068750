"""``wikihowqa parse``: re-parse a dataset folder's documents from their raw snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._options import (
    ExecutorKind,
    Fresh,
    RayAddress,
    _default_workers,
    deprecated_option,
    renamed,
    running_on,
)
from wikihowqa.progress import Bars

#: parse's --workers: the one rule of every command, but a page is never parsed in this process (a page that
#: hangs or crashes must cost only its worker), so 1 means one worker process, not "all in this process".
PARSE_WORKERS_HELP = (
    "Parser worker processes (1: one worker process; pages are never parsed in this one), Ray tasks in "
    "flight with --executor ray. 0 or omitted: one per usable CPU (on Ray: the cluster's CPUs)."
)
ParseWorkers = Annotated[
    int | None,
    typer.Option("--workers", min=0, callback=_default_workers, help=PARSE_WORKERS_HELP),
]
PAGE_TIMEOUT_S = 60.0


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
    page_timeout: float = typer.Option(
        None,
        "--page-timeout",
        min=0.001,
        help="Seconds one page's parse may take; a page that takes longer is rejected (default: 60).",
    ),
    timeout: Annotated[float | None, deprecated_option("--timeout", "--page-timeout")] = None,
    max_memory_mb: int = typer.Option(
        2048,
        "--max-memory-mb",
        help="Address space of each parser process; a page needing more is too_large (0: no cap).",
    ),
    workers: ParseWorkers = None,
    fresh: Fresh = False,
    executor: ExecutorKind = "local",
    ray_address: RayAddress = None,
) -> None:
    """Re-parse every document of DATASET from its raw snapshot: text, Markdown, title and passages.

    Resumable (rerun after an interruption to continue); pages that cannot be parsed are dropped and
    counted by reason in manifest.json. Pages are parsed in worker processes, never in this one: a page
    past --page-timeout has its worker killed and replaced, a crash costs only its page.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    # Imported here, not with the module: every command (and --help) would pay for them at start-up.
    from wikihowqa.parse.page import ParseSettings  # heavy: lxml, trafilatura
    from wikihowqa.parse.stage import PROGRESS_FILE, FolderSnapshots, open_build_cache, reparse_folder

    settings = ParseSettings(
        max_words=max_words,
        min_words=min_words,
        max_bytes=int(max_mb * 1_000_000),
        remove_boilerplate=not keep_boilerplate,
        pagination=pagination,
        timeout_s=renamed(page_timeout, timeout, "--page-timeout", "--timeout") or PAGE_TIMEOUT_S,
        max_memory_mb=max_memory_mb,
    )
    if fresh:
        (dataset / PROGRESS_FILE).unlink(missing_ok=True)
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
