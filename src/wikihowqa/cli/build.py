"""``wikihowqa build``: collect a benchmark from a MediaWiki how-to site and a Wayback archive."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from wikihowqa.cli._app import app, console, out
from wikihowqa.cli._archive import (
    HTTP_TIMEOUT_S,
    WAYBACK_DEFAULT,
    ArchiveHost,
    CdxRate,
    CdxUrl,
    Concurrency,
    Contact,
    HttpTimeout,
    MementoTimegate,
    MementoTimemap,
    OldTimeout,
    PlaybackRate,
    PlaybackUrl,
    Retries,
    WaybackUrl,
    lookup_option,
    retry_failed_option,
)
from wikihowqa.cli._options import Fresh, renamed
from wikihowqa.errors import SettingsError
from wikihowqa.progress import Bars

_WIKI = "https://www.wikihow.com/api.php"
_WAYBACK = WAYBACK_DEFAULT


class RichReporter(Bars):
    """One progress bar per phase (``wikihowqa.progress.Bars``), and throttling events printed above them."""

    def event(self, message: str) -> None:
        self.display.console.print(f"[yellow]![/] {message}", highlight=False)


@app.command("build")
def build_command(
    out_dir: Path = typer.Argument(
        ..., help="Dataset folder to build into; rerun the same command to resume an interrupted build."
    ),
    api_url: str = typer.Option(_WIKI, "--api-url", help="The wiki's MediaWiki api.php."),
    wayback_url: WaybackUrl = _WAYBACK,
    cdx_url: CdxUrl = None,
    playback_url: PlaybackUrl = None,
    memento_timegate: MementoTimegate = None,
    memento_timemap: MementoTimemap = None,
    archive_host: ArchiveHost = [],  # noqa: B006 - typer copies it
    lookup: Annotated[str | None, lookup_option("memento with a TimeGate/TimeMap, else cdx")] = None,
    limit: int = typer.Option(None, "--limit", min=1, help="Read at most this many articles."),
    category: str = typer.Option(
        None,
        "--category",
        help="Only articles in this category or its subcategories, as the site names it: 'Pets and Animals'.",
    ),
    title_filter: str = typer.Option(
        None,
        "--title-filter",
        help="Only articles whose title matches this regular expression (case-insensitive).",
    ),
    reference_time: str = typer.Option(
        "modified",
        "--reference-time",
        help="Fetch each reference as archived closest to when the article was 'created' or last 'modified'.",
    ),
    created_after: str = typer.Option(
        None,
        "--created-after",
        help="Only articles created at or after this date (2023-01-01): a benchmark fresher than a model.",
    ),
    created_before: str = typer.Option(
        None, "--created-before", help="Only articles created before this date."
    ),
    summary_namespace: int = typer.Option(
        30, "--summary-namespace", help="Number of the namespace holding Quick Summaries (wikiHow: 30)."
    ),
    root_category: str = typer.Option(
        None,
        "--root-category",
        help="The site's category root: an article's top-level category is the one right under it. "
        "Default: found from the wiki (its one category in no category that holds most such categories' "
        "subcategories and is above most articles); without one, as on wikiHow, the categories in no "
        "category that have subcategories are the top level. Hidden and tracking categories never count; "
        "the manifest says which root was used and why.",
    ),
    concurrency: Concurrency = 8,
    mediawiki_rate: float = typer.Option(
        2.0, "--mediawiki-rate", min=0, help="Wiki API requests per second (0: unpaced)."
    ),
    cdx_rate: CdxRate = 0.4,
    playback_rate: PlaybackRate = 8.0,
    http_timeout: HttpTimeout = None,
    timeout: OldTimeout = None,
    retries: Retries = 5,
    maxlag: int = typer.Option(
        5, "--maxlag", min=0, help="MediaWiki maxlag: back off when replicas lag more (seconds)."
    ),
    contact: Contact = None,
    pagination: str = typer.Option(
        "join",
        "--pagination",
        help="Paginated cited pages: 'join' fetches and joins their further pages, 'flag' only records them.",
    ),
    retry_failed: Annotated[bool, retry_failed_option("references")] = False,
    fresh: Fresh = False,
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Only estimate the requests and the time they take at the configured rates."
    ),
) -> None:
    """Build a benchmark: articles with a Quick Summary and references, their archived snapshots, parsed.

    Politeness: requests are paced per service, retried with backoff, and a burst of 429s pauses the host.
    Resumable: every response and result is saved in OUT_DIR/build.sqlite as it arrives.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    # heavy: aiohttp, surt and the parse stage's extractors, through the collector (~0.75 s on every
    # command's start-up if global)
    from wikihowqa.collect.build import BuildSettings, build, no_question, parked_state
    from wikihowqa.collect.estimate import dry_run as estimate_run
    from wikihowqa.collect.estimate import lists_to_count
    from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings
    from wikihowqa.collect.store import STATE_FILE
    from wikihowqa.parse import ParseSettings

    http = HttpSettings(
        concurrency=concurrency,
        rates={MEDIAWIKI: mediawiki_rate, CDX: cdx_rate, PLAYBACK: playback_rate},
        timeout_s=renamed(http_timeout, timeout, "--http-timeout", "--timeout") or HTTP_TIMEOUT_S,
        retries=retries,
        contact=contact,
    )
    settings = BuildSettings(
        api_url=api_url,
        wayback_url=wayback_url,
        cdx_url=cdx_url,
        playback_url=playback_url,
        memento_timegate=memento_timegate,
        memento_timemap=memento_timemap,
        archive_hosts=tuple(archive_host),
        lookup=lookup,
        limit=limit,
        category=category,
        title_filter=title_filter,
        reference_time=reference_time,
        created_after=created_after,
        created_before=created_before,
        summary_namespace=summary_namespace,
        root_category=root_category,
        maxlag=maxlag,
        retry_failed=retry_failed,
        http=http,
        parse=ParseSettings(pagination=pagination),
    )
    if dry_run:
        if lists_to_count(settings):
            console.print("[yellow]note:[/] listing the selected articles to count them, as a build starts")
        est = estimate_run(settings)
        title = f"estimate for {est.articles:,} articles"
        if est.window is not None:
            title = f"estimate for {est.window.read:,} of {est.articles:,} articles (the creation window's)"
        table = Table(title=title)
        for column in ("service", "requests", "rate (req/s)", "time"):
            table.add_column(column, justify="right" if column != "service" else "left")
        for lane in (MEDIAWIKI, CDX, PLAYBACK):
            rate = http.rate(lane)
            table.add_row(
                lane,
                f"{est.requests[lane]:,}",
                f"{rate:g}" if rate else "unpaced",
                _duration(est.seconds[lane]),
            )
        table.add_row("total", f"{sum(est.requests.values()):,}", "", _duration(est.total_s))
        out.print(table)
        if est.window is not None:
            w = est.window
            out.print(
                f"creation window: {w.logged_inside:,} of the {w.listed:,} listed articles created in it "
                f"(page-creation log, {w.log_requests:,} requests); {w.unlogged:,} not in the log are "
                "asked one by one and counted as read (an upper bound)"
            )
        out.print(
            "assumed from the paper: "
            + ", ".join(f"{k.replace('_', ' ')} {v:.3g}" for k, v in est.assumptions.items())
        )
        return
    if contact is None and (api_url == _WIKI or wayback_url == _WAYBACK):
        console.print(
            "[yellow]note:[/] pass --contact EMAIL so wikiHow and the Internet Archive can reach you"
        )
    if fresh:
        for stale in (out_dir / STATE_FILE, parked_state(out_dir)):
            stale.unlink(missing_ok=True)
    columns = (TextColumn("{task.description:<20}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        result = build(out_dir, settings, reporter=RichReporter(progress))
    funnel = result.manifest["funnel"]
    table = Table(title=f"built {result.folder.path}")
    table.add_column("funnel")
    table.add_column("count", justify="right")
    for group in ("articles", "references"):
        for name, value in funnel[group].items():
            table.add_row(f"{group}: {name.replace('_', ' ')}", f"{value:,}")
    for name, value in result.manifest["rejections"].items():
        if value:
            table.add_row(f"rejected: {name.replace('_', ' ')}", f"{value:,}")
    out.print(table)
    empty = no_question(result.manifest)
    if empty is not None:  # recorded and resumable, but no dataset: never an empty qa.jsonl with exit 0
        raise SettingsError(f"{result.folder.path}: {empty}")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
