"""``wikihowqa hydrate``: a release's document part, from the Wayback snapshots its QA part names."""

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
from wikihowqa.cli._options import Fresh, Overwrite, out_option, renamed


@app.command("hydrate")
def hydrate_command(
    dataset: Path = typer.Argument(
        ..., help="Dataset folder holding the QA part (e.g. from `wikihowqa import --qa`); rerun to resume."
    ),
    out_dir: Annotated[
        Path | None,
        out_option("the hydrated dataset (QA part copied, documents, hydration/)", "DATASET itself"),
    ] = None,
    wayback_url: WaybackUrl = WAYBACK_DEFAULT,
    cdx_url: CdxUrl = None,
    playback_url: PlaybackUrl = None,
    memento_timegate: MementoTimegate = None,
    memento_timemap: MementoTimemap = None,
    archive_host: ArchiveHost = [],  # noqa: B006 - typer copies it
    lookup: Annotated[
        str | None,
        lookup_option("playback (the named capture itself first; memento with a TimeGate/TimeMap)"),
    ] = None,
    max_shift: str = typer.Option(
        "90d",
        "--max-shift",
        help="How far the capture the archive serves may be from the one the release names (the Internet "
        "Archive serves the closest when the named one is gone): seconds or 12h, 90d, 1y. Further ones are "
        "refused and counted as capture_too_far. Default 90d: a season keeps a page's text; years do not.",
    ),
    warc: Path = typer.Option(
        None,
        "--warc",
        help="Also write every capture served, and what became of each named one, as WARC records into this "
        "folder (to keep or share under the archive's terms, and rebuild with --from-warc).",
    ),
    from_warc: Path = typer.Option(
        None,
        "--from-warc",
        help="Rebuild from the WARC files a --warc run wrote into this folder, without the network: the same "
        "output.",
    ),
    compare: Path = typer.Option(
        None,
        "--compare",
        help="The released document part (.jsonl or .parquet, held under its agreement): report the word F1 "
        "of each hydrated document against it, the mean, and the worst (hydration/compare.json).",
    ),
    concurrency: Concurrency = 8,
    cdx_rate: CdxRate = 0.4,
    playback_rate: PlaybackRate = 8.0,
    http_timeout: HttpTimeout = None,
    timeout: OldTimeout = None,
    retries: Retries = 5,
    contact: Contact = None,
    retry_failed: Annotated[bool, retry_failed_option("captures")] = False,
    fresh: Fresh = False,
    overwrite: Overwrite = False,
) -> None:
    """Fetch, verify and parse every capture the dataset's QA part names, and write its document part.

    Each release URL (http://web.archive.org/web/TIMESTAMP/URL) is asked for as TIMESTAMPid_/URL through
    the collector's client and capture rule (status 200 and Memento-Datetime; redirect captures followed
    inside the archive; never the live web). Writes documents.jsonl and hydration/: status.jsonl (every
    release URL), questions.jsonl (documents recovered per question), coverage.md/.json/.png (funnel,
    coverage by capture year and by site). Resumable: every answer is saved in hydration/build.sqlite.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

    # heavy: aiohttp and the parse stage, through the collector (start-up time)
    from wikihowqa.cli.build import RichReporter
    from wikihowqa.collect.archive_settings import ArchiveSettings
    from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings
    from wikihowqa.collect.hydrate import HydrateSettings, hydrate, parse_shift, state_path
    from wikihowqa.collect.hydrate_compare import COMPARE_FILE, compare_files
    from wikihowqa.errors import SettingsError

    if warc is not None and from_warc is not None:
        raise SettingsError("--warc and --from-warc: give one (a rebuild from WARC files writes none)")
    http = HttpSettings(
        concurrency=concurrency,
        rates={MEDIAWIKI: 0.0, CDX: cdx_rate, PLAYBACK: playback_rate},
        timeout_s=renamed(http_timeout, timeout, "--http-timeout", "--timeout") or HTTP_TIMEOUT_S,
        retries=retries,
        contact=contact,
    )
    archive = ArchiveSettings(
        wayback_url=wayback_url,
        cdx_url=cdx_url,
        playback_url=playback_url,
        memento_timegate=memento_timegate,
        memento_timemap=memento_timemap,
        archive_hosts=tuple(archive_host),
        lookup=lookup,
    )
    settings = HydrateSettings(archive, parse_shift(max_shift), retry_failed, http)
    target = out_dir or dataset
    if (
        contact is None
        and from_warc is None
        and wayback_url == WAYBACK_DEFAULT
        and not (cdx_url or playback_url)
    ):
        console.print("[yellow]note:[/] pass --contact EMAIL so the Internet Archive can reach you")
    if fresh:
        state = state_path(target)
        for stale in (state, state.with_name(state.name + "-wal"), state.with_name(state.name + "-shm")):
            stale.unlink(missing_ok=True)
    columns = (TextColumn("{task.description:<22}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        result = hydrate(
            dataset,
            settings,
            out=out_dir,
            warc_dir=warc,
            from_warc=from_warc,
            overwrite=overwrite,
            reporter=RichReporter(progress),
        )
    funnel = result.hydration.funnel
    table = Table(title=f"hydrated {result.folder.path}")
    table.add_column("funnel", no_wrap=True)  # a label is read whole, at any terminal width
    table.add_column("count", justify="right")
    for group in ("urls", "captures", "questions"):
        for name, value in funnel[group].items():
            table.add_row(f"{group}: {name.replace('_', ' ')}", f"{value:,}")
    for name, value in funnel["rejections"].items():
        if value:
            table.add_row(f"rejected: {name.replace('_', ' ')}", f"{value:,}")
    out.print(table)
    if compare is not None:
        report = compare_files(
            result.folder.documents_path, compare, result.folder.path / "hydration" / COMPARE_FILE
        )
        summary = report.summary
        mean = "n/a" if summary["mean_f1"] is None else f"{summary['mean_f1']:.3f}"
        out.print(
            f"word F1 against {compare}: mean {mean} over {summary['recovered']} of {summary['released']} "
            f"released documents ({summary['not_recovered']} not recovered)",
            markup=False,
        )
        worst = Table(title="worst documents (hydration/compare.json lists the released passages they lack)")
        for column in ("F1", "precision", "recall", "archive URL"):
            worst.add_column(column, justify="right" if column != "archive URL" else "left")
        for row in [r for r in report.documents if r["recovered"]][:10]:
            worst.add_row(
                f"{row['f1']:.3f}", f"{row['precision']:.3f}", f"{row['recall']:.3f}", row["archive_url"]
            )
        out.print(worst)
