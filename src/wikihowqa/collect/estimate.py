"""``--dry-run``: how many requests a build would make, and how long they take at the configured rates."""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from wikihowqa.collect.articles import (
    creation_log_requests,
    empty_window,
    enumerate_articles,
    in_window,
    reads_the_log,
)
from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, FetchError, HttpClient
from wikihowqa.collect.wiki_queries import BATCH, MediaWiki, MediaWikiError
from wikihowqa.core.errors import SettingsError

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
    window: WindowCount | None = None


@dataclass(frozen=True)
class WindowCount:
    """What finding the creation times of the listed pages costs, and how many fall in the window:
    ``logged_inside`` pages the page-creation log dates inside it, ``unlogged`` pages it does not list,
    whose first revisions are asked one by one (``per_page_requests``) and which are counted as read
    (an upper bound: the dry run does not ask them)."""

    listed: int
    logged_inside: int
    unlogged: int
    log_requests: int  # requests the dry run made reading the log (0: the build asks page by page)

    @property
    def per_page_requests(self) -> int:
        return self.unlogged

    @property
    def read(self) -> int:
        return self.logged_inside + self.unlogged


@dataclass(frozen=True)
class ArticleCount:
    """How many articles a build would read, and how many wiki requests finding them took (``None``: the
    count came from the limit or the wiki's statistics, and listing them is estimated)."""

    articles: int
    listing_requests: int | None = None
    window: WindowCount | None = None


def estimate(
    articles: int,
    settings: BuildSettings,
    *,
    listing_requests: int | None = None,
    window: WindowCount | None = None,
) -> Estimate:
    """Requests per lane and time at the configured rates for a crawl of ``articles`` articles (with a
    creation-time ``window``: the listed ones, of which only those created in it are read);
    ``listing_requests``: what listing them cost when it was measured (a category or a title filter)."""
    r = PAPER_RATIOS
    listing = math.ceil(articles / 500) if listing_requests is None else listing_requests
    read = articles if window is None else window.read
    kept = math.ceil(read * r["with_summary_and_references"])
    urls = math.ceil(kept * r["citations_per_article"] * r["unique_per_citation"])
    # Creation times: of the kept articles, or (a window) of every listed page before anything is read.
    created = kept if window is None else window.log_requests + window.per_page_requests
    requests = {
        MEDIAWIKI: 1
        + listing  # allpages or category members
        + created  # creation timestamps
        + 2 * math.ceil(read / BATCH)  # pages + Summary: pages
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
    return Estimate(articles, requests, seconds, total, dict(r), window)


def lists_to_count(settings: BuildSettings) -> bool:
    """Whether counting the articles means listing them: always, since only the listing says what a build
    reads (a wiki's ``statistics.articles`` counts pages with a link, not the pages the build reads: 49
    against 52 on the demo corpus in MediaWiki 1.39). It costs a request per 500 titles."""
    return True


async def count_articles(settings: BuildSettings) -> ArticleCount:
    """How many articles a build would read: listed as the build lists them (all, a category's, those
    matching the title filter), at most the limit; with a creation-time window, the page-creation log
    read as the build reads it (when the build would) to count those created in the window."""
    # A dry run should answer soon: at most two retries, and never more than the build would make.
    http_settings = replace(settings.http, retries=min(settings.http.retries, 2))
    window: WindowCount | None = None
    async with HttpClient(http_settings) as http:
        wiki = MediaWiki(http, settings.api_url, maxlag=settings.maxlag, resumable=False)
        try:
            site = await wiki.siteinfo()
            pages = await enumerate_articles(
                wiki, limit=settings.limit, category=settings.category, title_filter=settings.title_filter
            )
            listing = http.lane_stats(MEDIAWIKI).responses - 1
            if settings.window != (None, None):
                window = await _count_window(wiki, [pid for pid, _ in pages], settings.window, site)
                window = replace(window, log_requests=http.lane_stats(MEDIAWIKI).responses - 1 - listing)
        except (FetchError, MediaWikiError) as exc:
            raise SettingsError(f"dry run: cannot count the articles: {exc}") from None
    return ArticleCount(len(pages), listing, window)


async def _count_window(
    wiki: MediaWiki, pageids: list[int], window: tuple[str | None, str | None], site: dict
) -> WindowCount:
    if not reads_the_log(len(pageids), creation_log_requests(site)):
        return WindowCount(len(pageids), 0, len(pageids), 0)
    logged = await wiki.creations(0)
    inside = sum(1 for pid in pageids if pid in logged and in_window(logged[pid], *window))
    unlogged = sum(1 for pid in pageids if pid not in logged)
    if pageids and not inside and not unlogged:  # as the build would stop: no article in the window
        raise empty_window(window, len(pageids), [logged[pid] for pid in pageids])
    return WindowCount(len(pageids), inside, unlogged, 0)


def dry_run(settings: BuildSettings) -> Estimate:
    counted = asyncio.run(count_articles(settings))
    return estimate(
        counted.articles, settings, listing_requests=counted.listing_requests, window=counted.window
    )
