"""Phase 1 of the collector: the wiki's content articles, each with its summary, references and categories.

Articles are read 50 at a time together with their Quick Summary pages (namespace 30, whatever the wiki
names it); the kept ones (a Quick Summary and at least one reference) get their creation timestamp —
from the page-creation log, hundreds a request, or a request each — and the category graph above them
is read level by level to find each one's top-level category, tracking categories left out. With a
creation-time window the listed pages' creation times are found first, and only the pages created in
the window are read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from wikihowqa.collect.categories import category_parents
from wikihowqa.collect.pool import chunks, run_pool
from wikihowqa.collect.progress import Reporter
from wikihowqa.collect.store import StateStore
from wikihowqa.collect.wiki_queries import BATCH, CATEGORY_PREFIX, MediaWiki, category_name
from wikihowqa.collect.wikitext_reading import quick_summary, references
from wikihowqa.core.errors import SettingsError


@dataclass(frozen=True, slots=True)
class ArticleRecord:
    """An article as read from the wiki (the ``article`` result in the state store)."""

    article_id: int
    title: str
    modified: str | None
    categories: tuple[str, ...]
    references: tuple[str, ...]
    answer: str | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "article_id": self.article_id,
            "title": self.title,
            "modified": self.modified,
            "categories": list(self.categories),
            "references": list(self.references),
            "answer": self.answer,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ArticleRecord:
        return cls(
            d["article_id"],
            d["title"],
            d["modified"],
            tuple(d["categories"]),
            tuple(d["references"]),
            d["answer"],
        )


async def enumerate_articles(
    wiki: MediaWiki, *, limit: int | None = None, category: str | None = None, title_filter: str | None = None
) -> list[tuple[int, str]]:
    """``(pageid, title)`` of the content articles to read: all (``list=allpages``) or a category's,
    those whose title matches ``title_filter`` (a regular expression, case-insensitive), at most ``limit``.
    A selection that yields no article is a :class:`SettingsError` naming the setting that emptied it (a
    misspelt category, a title filter matching no title, a wiki without articles): it would otherwise
    build an empty dataset without a word."""
    pattern = re.compile(title_filter, re.I) if title_filter else None
    chosen: list[tuple[int, str]] = []
    listed = 0

    def take(pageid: int, title: str) -> bool:
        nonlocal listed
        listed += 1
        if pattern is None or pattern.search(title):
            chosen.append((pageid, title))
        return limit is not None and len(chosen) >= limit

    if category:
        name = category_name(category)
        members = await wiki.category_members(name)
        if not members:
            raise await _empty_category(wiki, name)
        for pageid, title in members:
            if take(pageid, title):
                break
    else:
        async for pageid, title in wiki.allpages(0):
            if take(pageid, title):
                break
    if not chosen:
        where = f"category {category_name(category)!r}" if category else wiki.api_url
        if listed:
            raise SettingsError(
                f"--title-filter {title_filter!r}: matches none of the {listed} article titles of {where}"
            )
        raise SettingsError(f"--api-url {wiki.api_url}: the wiki lists no articles (namespace 0)")
    return chosen


async def _empty_category(wiki: MediaWiki, name: str) -> SettingsError:
    """Why a category gave no articles, in one line: it does not exist (a typo, most likely) or is empty."""
    if not await wiki.exists(CATEGORY_PREFIX + name):
        return SettingsError(
            f"--category {name!r}: {wiki.api_url} has no such category (give its name as the site "
            f"writes it, without '{CATEGORY_PREFIX}', e.g. 'Pets and Animals')"
        )
    return SettingsError(f"--category {name!r}: the category and its subcategories hold no articles")


async def read_articles(
    wiki: MediaWiki, store: StateStore, pages: list[tuple[int, str]], concurrency: int, reporter: Reporter
) -> list[ArticleRecord]:
    """Each article's record: read 50 at a time with their Summary pages, stored as each batch finishes."""
    done = store.results("article")
    reporter.phase("articles", len(pages))
    reporter.advance("articles", sum(1 for pid, _ in pages if str(pid) in done))
    todo = [pid for pid, _ in pages if str(pid) not in done]

    async def batch(ids: Sequence[int]) -> None:
        wiki_pages = await wiki.pages(ids)
        content = [p for p in (wiki_pages.get(i) for i in ids) if p is not None and p.ns == 0]
        summaries = await wiki.summaries([p.title for p in content])
        records = []
        for page in content:
            summary = quick_summary(summaries[page.title]) if page.title in summaries else None
            records.append(
                ArticleRecord(
                    article_id=page.pageid,
                    title=page.title,
                    modified=page.modified,
                    categories=page.categories,
                    references=references(page.wikitext or ""),
                    answer=summary.answer if summary else None,
                )
            )
        gone = [i for i in ids if i not in {r.article_id for r in records}]
        store.put_results(
            "article",
            [(str(r.article_id), r.as_dict()) for r in records] + [(str(i), None) for i in gone],
        )
        reporter.advance("articles", len(ids))

    await run_pool(chunks(todo, BATCH), batch, concurrency)
    results = store.results("article")
    return [ArticleRecord.from_dict(results[str(pid)]) for pid, _ in pages if results.get(str(pid))]


def creation_log_requests(siteinfo: dict[str, Any]) -> int:
    """What reading the whole page-creation log costs: about a request per 500 pages of the wiki (its
    ``statistics.pages``, every namespace: an upper bound)."""
    return 1 + int((siteinfo.get("statistics") or {}).get("pages") or 10**9) // 500


def reads_the_log(pages: int, log_requests: int | None) -> bool:
    """Whether asking the page-creation log (``log_requests`` requests, an estimate) for ``pages``
    creation times costs fewer requests than asking page by page."""
    return pages > 0 and log_requests is not None and pages > log_requests


async def creation_times(
    wiki: MediaWiki,
    store: StateStore,
    pageids: Sequence[int],
    concurrency: int,
    reporter: Reporter,
    *,
    log_requests: int | None = None,
    phase: str = "article details",
) -> dict[int, str | None]:
    """When each page was created (the ``created`` result). The page-creation log answers for 500 pages
    a request, so it is read whole when that costs fewer requests (``log_requests``, an estimate) than
    asking page by page; pages it does not list (created before the wiki logged creations, or
    imported) are asked for their first revision one by one."""
    created = {int(k): v for k, v in store.results("created").items()}
    todo = [pid for pid in pageids if pid not in created]
    reporter.phase(phase, len(pageids))
    reporter.advance(phase, len(pageids) - len(todo))
    if reads_the_log(len(todo), log_requests):
        logged = await wiki.creations(0)
        found = [(str(pid), logged[pid]) for pid in todo if pid in logged]
        store.put_results("created", found)
        created.update((int(k), v) for k, v in found)
        reporter.advance(phase, len(found))
        todo = [pid for pid in todo if pid not in logged]

    async def one(pageid: int) -> None:
        created[pageid] = store.put_result("created", str(pageid), await wiki.created(pageid))
        reporter.advance(phase)

    await run_pool(todo, one, concurrency)
    return {pid: created.get(pid) for pid in pageids}


async def select_by_creation(
    wiki: MediaWiki,
    store: StateStore,
    pages: list[tuple[int, str]],
    window: tuple[str | None, str | None],
    concurrency: int,
    reporter: Reporter,
    *,
    log_requests: int | None = None,
) -> tuple[list[tuple[int, str]], int]:
    """The listed pages created in ``window`` (``[after, before)``), and how many fell outside it.

    Done before any article is read, so a time slice of a large wiki reads the content of only its own
    articles: the creation times come from the page-creation log where it lists a page (hundreds a
    request), else from the page's first revision (a request each)."""
    if window == (None, None):
        return pages, 0
    when = await creation_times(
        wiki,
        store,
        [pid for pid, _ in pages],
        concurrency,
        reporter,
        log_requests=log_requests,
        phase="creation times",
    )
    inside = [(pid, title) for pid, title in pages if in_window(when[pid], *window)]
    if pages and not inside:
        raise empty_window(window, len(pages), [when[pid] for pid, _ in pages])
    return inside, len(pages) - len(inside)


def empty_window(
    window: tuple[str | None, str | None], listed: int, times: Sequence[str | None]
) -> SettingsError:
    """The one line for a creation window no listed article was created in, naming the options that set
    it and when the articles were created (a typo such as 2999 for 2024 shows at once)."""
    after, before = window
    options = " and ".join(
        f"--created-{name} {value}" for name, value in (("after", after), ("before", before)) if value
    )
    known = sorted(t for t in times if t)
    span = f"they were created from {known[0]} to {known[-1]}" if known else "none has a known creation time"
    return SettingsError(f"{options}: none of the {listed} selected articles was created in it ({span})")


async def complete_articles(
    wiki: MediaWiki,
    store: StateStore,
    articles: list[ArticleRecord],
    concurrency: int,
    reporter: Reporter,
    *,
    log_requests: int | None = None,
) -> tuple[dict[int, str | None], dict[str, list[str]]]:
    """Creation timestamps of the kept articles and the category parents above their categories."""
    ids = [a.article_id for a in articles]
    created = await creation_times(wiki, store, ids, concurrency, reporter, log_requests=log_requests)
    categories = {c for a in articles for c in a.categories}
    return created, await category_parents(wiki, store, categories, concurrency)


def without_tracking(articles: list[ArticleRecord], tracking: frozenset[str]) -> list[ArticleRecord]:
    """The articles with the wiki's tracking categories taken out of their categories."""
    if not tracking:
        return articles
    return [replace(a, categories=tuple(c for c in a.categories if c not in tracking)) for a in articles]


def in_window(created: str | None, after: str | None, before: str | None) -> bool:
    """Whether a creation time (ISO 8601) falls in ``[after, before)``; unknown times fall outside."""
    if after is None and before is None:
        return True
    if created is None:
        return False
    return (after is None or created >= after) and (before is None or created < before)
