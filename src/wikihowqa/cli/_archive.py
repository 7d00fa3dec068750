"""The archive and politeness options, shared by ``build`` and ``hydrate`` (one definition, one meaning).

Both commands read the same archive through the same client: ``--wayback-url`` (the Internet Archive's
layout), ``--cdx-url``/``--playback-url`` (pywb and other Wayback software), the Memento options, the
lookup method, and the pacing, retries and contact of every request.
"""

from __future__ import annotations

from typing import Annotated

import typer

from wikihowqa.cli._options import deprecated_option

WAYBACK_DEFAULT = "https://web.archive.org"

WaybackUrl = Annotated[
    str,
    typer.Option(
        "--wayback-url",
        help="Base URL of an archive laid out as the Internet Archive's: BASE/cdx/search/cdx and BASE/web/.",
    ),
]
CdxUrl = Annotated[
    str | None,
    typer.Option(
        "--cdx-url",
        help="The CDX endpoint itself (pywb: http://HOST/COLLECTION/cdx); overrides --wayback-url's.",
    ),
]
PlaybackUrl = Annotated[
    str | None,
    typer.Option(
        "--playback-url",
        help="Prefix to which TIMESTAMPid_/URL is appended (pywb: http://HOST/COLLECTION/).",
    ),
]
MementoTimegate = Annotated[
    str | None,
    typer.Option(
        "--memento-timegate",
        help="A Memento TimeGate prefix (URL appended), for archives without CDX and for aggregators.",
    ),
]
MementoTimemap = Annotated[
    str | None,
    typer.Option(
        "--memento-timemap",
        help="A Memento TimeMap URL template with {url} (pywb: http://HOST/COLLECTION/timemap/link/{url}).",
    ),
]
ArchiveHost = Annotated[
    list[str],
    typer.Option(
        "--archive-host",
        help="Another host mementos may be fetched from (an aggregator's archives); repeatable. "
        "No request goes to any host but the configured ones.",
    ),
]
Concurrency = Annotated[int, typer.Option("--concurrency", min=1, help="Most requests in flight at once.")]
CdxRate = Annotated[
    float,
    typer.Option(
        "--cdx-rate", min=0, help="Wayback CDX requests per second (0: unpaced; the real server allows ~0.4)."
    ),
]
PlaybackRate = Annotated[
    float,
    typer.Option(
        "--playback-rate",
        min=0,
        help="Wayback snapshot downloads per second (0: unpaced; the real limit is ~8).",
    ),
]
HttpTimeout = Annotated[
    float | None,
    typer.Option(
        "--http-timeout",
        min=0.001,
        help="Seconds to wait for one HTTP response before retrying it (default: 30).",
    ),
]
#: ``--timeout``, the old name of ``--http-timeout`` (``parse`` had a ``--timeout`` that meant a page's parse)
OldTimeout = Annotated[float | None, deprecated_option("--timeout", "--http-timeout")]
HTTP_TIMEOUT_S = 30.0
Retries = Annotated[
    int, typer.Option("--retries", min=0, help="Retries of a request that failed (5xx, timeout, reset).")
]
Contact = Annotated[
    str | None,
    typer.Option("--contact", help="An e-mail or URL for the User-Agent, so site operators can reach you."),
]


def lookup_option(default_note: str) -> typer.models.OptionInfo:
    """``--lookup``: how captures are found; ``default_note`` says the command's default."""
    return typer.Option(
        "--lookup",
        help="How captures are found: 'cdx' (one CDX query per URL), 'playback' (the archive's own "
        "choice first, CDX only when it cannot tell: far fewer CDX requests, the same captures) or "
        f"'memento'. Default: {default_note}.",
    )


def retry_failed_option(what: str) -> typer.models.OptionInfo:
    return typer.Option(
        "--retry-failed",
        help=f"Ask again for the {what} an earlier run gave up on (dropping their stored failed answers).",
    )
