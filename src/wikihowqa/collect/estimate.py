"""``--dry-run``: how many requests a build would make, and how long they take at the configured rates."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, FetchError, HttpClient
from wikihowqa.collect.mediawiki import BATCH, MediaWiki, MediaWikiError
from wikihowqa.errors import SettingsError

if TYPE_CHECKING:
    from wikihowqa.collect.build import BuildSettings

#: Ratios from the paper (§3.1) and the release, used to estimate a full crawl: 236k articles, 126,711
#: with references, about 20 % of those with a summary; 11,746 questions keep 74,527 documents.
PAPER_RATIOS = {
    "with_summary_and_references": 126_711 * 0.20 / 236_000,
    "citations_per_article": 8.0,
    "unique_per_citation": 0.95,
    "snapshot_per_reference": 0.85,
}


@dataclass(frozen=True)
class Estimate:
    articles: int
    requests: dict[str, int]
    seconds: dict[str, float]
    total_s: float
    assumptions: dict[str, float]


def estimate(articles: int, settings: BuildSettings) -> Estimate:
    """Requests per lane and time at the configured rates for a crawl of ``articles`` articles."""
    r = PAPER_RATIOS
    kept = math.ceil(articles * r["with_summary_and_references"])
    urls = math.ceil(kept * r["citations_per_article"] * r["unique_per_citation"])
    requests = {
        MEDIAWIKI: 1
        + math.ceil(articles / 500)  # allpages
        + 2 * math.ceil(articles / BATCH)  # pages + Summary: pages
        + kept  # creation timestamps
        + 3 * math.ceil(max(kept, 1) / BATCH),  # category parents, a few levels
        CDX: urls,
        PLAYBACK: math.ceil(urls * r["snapshot_per_reference"]),
    }
    seconds: dict[str, float] = {}
    for lane, n in requests.items():
        rate = settings.http.rate(lane)
        seconds[lane] = n / rate if rate else 0.0
    # The wiki is read first; CDX lookups and playback fetches then overlap.
    total = seconds[MEDIAWIKI] + max(seconds[CDX], seconds[PLAYBACK])
    return Estimate(articles, requests, seconds, total, dict(r))


async def count_articles(settings: BuildSettings) -> int:
    """How many articles a build would read: the limit, or the wiki's own article count (one request)."""
    if settings.limit is not None:
        return settings.limit
    async with HttpClient(replace(settings.http, retries=2)) as http:
        wiki = MediaWiki(http, settings.api_url, maxlag=settings.maxlag)
        try:
            info = await wiki.siteinfo()
        except (FetchError, MediaWikiError) as exc:
            raise SettingsError(f"cannot ask {settings.api_url} how many articles it has: {exc}") from None
    count = (info.get("statistics") or {}).get("articles")
    if not isinstance(count, int):
        raise SettingsError(f"{settings.api_url} did not report an article count; pass --limit")
    return count


def dry_run(settings: BuildSettings) -> Estimate:
    return estimate(asyncio.run(count_articles(settings)), settings)
