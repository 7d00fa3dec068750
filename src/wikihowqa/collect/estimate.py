"""``--dry-run``: how many requests a build would make, and how long they take at the configured rates."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from wikihowqa.collect.articles import enumerate_articles
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
}


#: Requests per cited URL, by lookup (``--lookup``), measured by ``benchmarks/collect.py`` on the generated
#: corpus with archive fates (RESULTS.md, "collect lookups"): (CDX lane, playback lane).
LOOKUP_COSTS = {"cdx": (1.20, 0.86), "playback": (0.17, 1.16), "memento": (0.14, 2.00)}


@dataclass(frozen=True)
class Estimate:
    articles: int
    requests: dict[str, int]
    seconds: dict[str, float]
    total_s: float
    assumptions: dict[str, float]


@dataclass(frozen=True)
class ArticleCount:
    """How many articles a build would read, and how many wiki requests finding them took (``None``: the
    count came from the limit or the wiki's statistics, and listing them is estimated)."""

    articles: int
    listing_requests: int | None = None


def estimate(articles: int, settings: BuildSettings, *, listing_requests: int | None = None) -> Estimate:
    """Requests per lane and time at the configured rates for a crawl of ``articles`` articles;
    ``listing_requests``: what listing them cost when it was measured (a category or a title filter)."""
    r = PAPER_RATIOS
    kept = math.ceil(articles * r["with_summary_and_references"])
    urls = math.ceil(kept * r["citations_per_article"] * r["unique_per_citation"])
    listing = math.ceil(articles / 500) if listing_requests is None else listing_requests
    requests = {
        MEDIAWIKI: 1
        + listing  # allpages or category members
        + 2 * math.ceil(articles / BATCH)  # pages + Summary: pages
        + kept  # creation timestamps
        + 3 * math.ceil(max(kept, 1) / BATCH),  # category parents, a few levels
        CDX: math.ceil(urls * LOOKUP_COSTS[settings.archive_lookup][0]),
        PLAYBACK: math.ceil(urls * LOOKUP_COSTS[settings.archive_lookup][1]),
    }
    seconds: dict[str, float] = {}
    for lane, n in requests.items():
        rate = settings.http.rate(lane)
        seconds[lane] = n / rate if rate else 0.0
    # The wiki is read first; CDX lookups and playback fetches then overlap.
    total = seconds[MEDIAWIKI] + max(seconds[CDX], seconds[PLAYBACK])
    return Estimate(articles, requests, seconds, total, dict(r))


def lists_to_count(settings: BuildSettings) -> bool:
    """Whether counting the articles means listing them: always, since only the listing says what a build
    reads (a wiki's ``statistics.articles`` counts pages with a link, not the pages the build reads: 49
    against 52 on the demo corpus in MediaWiki 1.39). It costs a request per 500 titles."""
    return True


async def count_articles(settings: BuildSettings) -> ArticleCount:
    """How many articles a build would read: listed as the build lists them (all, a category's, those
    matching the title filter), at most the limit."""
    # A dry run should answer soon: at most two retries, and never more than the build would make.
    http_settings = replace(settings.http, retries=min(settings.http.retries, 2))
    async with HttpClient(http_settings) as http:
        wiki = MediaWiki(http, settings.api_url, maxlag=settings.maxlag, resumable=False)
        try:
            await wiki.siteinfo()
            pages = await enumerate_articles(
                wiki, limit=settings.limit, category=settings.category, title_filter=settings.title_filter
            )
        except (FetchError, MediaWikiError) as exc:
            raise SettingsError(f"dry run: cannot count the articles: {exc}") from None
    return ArticleCount(len(pages), http.lane_stats(MEDIAWIKI).responses - 1)


def dry_run(settings: BuildSettings) -> Estimate:
    counted = asyncio.run(count_articles(settings))
    return estimate(counted.articles, settings, listing_requests=counted.listing_requests)
