"""The MediaWiki Action API as the collector uses it: enumerate articles, read them 50 at a time.

Every request names ``maxlag`` (a lagging wiki answers an error with ``Retry-After``, which the HTTP
layer waits out and retries), asks for ``formatversion=2`` but reads version 1 shapes too, and follows
``continue`` exactly as returned (API:Continue), merging page data split across continuation batches.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wikihowqa.collect.http import MEDIAWIKI, FetchError, HttpClient, Response
from wikihowqa.core.errors import SettingsError, WikihowqaError

#: Most titles or page ids one query may name (MediaWiki's limit for clients without ``apihighlimits``).
BATCH = 50
#: wikiHow keeps each article's Quick Summary in namespace 30, under the article's title.
SUMMARY_NAMESPACE = 30
SUMMARY_PREFIX = "Summary:"
CATEGORY_PREFIX = "Category:"


class MediaWikiError(WikihowqaError):
    """The API answered with an error, or the URL is not a MediaWiki API at all."""


@dataclass(frozen=True, slots=True)
class CategoryInfo:
    """A category's direct members by kind, and whether it is hidden (``prop=categoryinfo``)."""

    pages: int = 0
    subcats: int = 0
    files: int = 0
    hidden: bool = False


#: At most this many requests for the wiki's uncategorized categories (500 each); beyond, the list is
#: taken as incomplete and the category root is judged from the articles' category graph instead.
UNCATEGORIZED_REQUESTS = 10


@dataclass(frozen=True, slots=True)
class WikiPage:
    """What one query tells about a page: its latest wikitext and its visible categories."""

    pageid: int
    title: str
    ns: int
    wikitext: str | None
    modified: str | None  # timestamp of the latest revision
    categories: tuple[str, ...]


def _is_lagged(response: Response) -> bool:
    """A ``maxlag`` error: the wiki asks to come back later (HTTP 200 with an error body)."""
    if response.header("mediawiki-api-error") == "maxlag":
        return True
    return b'"maxlag"' in response.content[:400] and b'"error"' in response.content[:400]


def _pages(query: Mapping[str, Any]) -> list[dict[str, Any]]:
    pages = query.get("pages") or []
    return list(pages.values()) if isinstance(pages, Mapping) else list(pages)


def _content(revision: Mapping[str, Any]) -> str | None:
    slots = revision.get("slots")
    if isinstance(slots, Mapping) and isinstance(slots.get("main"), Mapping):
        revision = slots["main"]
    for key in ("content", "*"):
        if isinstance(revision.get(key), str):
            return revision[key]
    return None


def _missing(page: Mapping[str, Any]) -> bool:
    return "missing" in page or "invalid" in page or page.get("pageid") in (None, 0)


def _normalise(title: str) -> str:
    """A category name as MediaWiki stores it: single spaces, trimmed, first letter upper case."""
    text = re.sub(r"[ _]+", " ", title).strip()
    return text[:1].upper() + text[1:]


def _category_info(page: Mapping[str, Any]) -> CategoryInfo:
    info = page.get("categoryinfo") or {}
    hidden = info.get("hidden", False)
    return CategoryInfo(
        pages=int(info.get("pages", 0)),
        subcats=int(info.get("subcats", 0)),
        files=int(info.get("files", 0)),
        hidden=hidden is True or hidden == "",  # formatversion 1 writes a true flag as ""
    )


def category_name(name: str) -> str:
    """A category as the user names it, with or without its ``Category:`` prefix → its bare name."""
    return re.sub(r"^\s*category\s*:\s*", "", name, flags=re.I).strip()


def strip_namespace(title: str, prefix: str) -> str:
    return title[len(prefix) :] if title.startswith(prefix) else title.split(":", 1)[-1]


class MediaWiki:
    """Read-only access to one wiki's ``api.php`` through the collector's HTTP client."""

    def __init__(
        self,
        http: HttpClient,
        api_url: str,
        *,
        maxlag: int = 5,
        resumable: bool = True,
        summary_namespace: int = SUMMARY_NAMESPACE,
    ) -> None:
        """``resumable``: the caller keeps its work in a state store, so a failure can say that rerunning
        resumes (not so for a dry run). ``summary_namespace``: the number of the Quick Summary namespace;
        its name is read from the wiki (:meth:`siteinfo`)."""
        self.http = http
        self.api_url = api_url
        self.maxlag = maxlag
        self.resumable = resumable
        self.summary_namespace = summary_namespace
        self.summary_prefix = SUMMARY_PREFIX  # the namespace's name and a colon, read from the wiki
        self.tracking: frozenset[str] = frozenset()

    # ------------------------------------------------------------------ requests

    async def request(self, params: Mapping[str, Any]) -> dict[str, Any]:
        full = {**params, "format": "json", "formatversion": "2"}
        if self.maxlag is not None:
            full["maxlag"] = str(self.maxlag)
        try:
            response = await self.http.get(self.api_url, full, lane=MEDIAWIKI, retry_if=_is_lagged)
        except FetchError as exc:
            attempts = f"{exc.attempts} attempt{'s' * (exc.attempts != 1)}"
            hint = ""
            if self.resumable:
                hint = "; work done so far is saved, run the same command again to resume"
            raise MediaWikiError(f"{self.api_url}: {exc.reason} after {attempts}{hint}") from None
        if response.status != 200:
            raise MediaWikiError(f"{self.api_url}: HTTP {response.status} (is this a MediaWiki api.php?)")
        try:
            data = json.loads(response.content)
        except (json.JSONDecodeError, UnicodeDecodeError):
            kind = response.header("content-type") or "unknown content"
            raise MediaWikiError(f"{self.api_url}: not a MediaWiki API (answered {kind}, not JSON)") from None
        if not isinstance(data, dict):
            raise MediaWikiError(f"{self.api_url}: not a MediaWiki API (answered JSON that is not an object)")
        if "error" in data:
            err = data["error"]
            code = err.get("code", "?") if isinstance(err, Mapping) else "?"
            info = err.get("info", "") if isinstance(err, Mapping) else str(err)
            raise MediaWikiError(f"{self.api_url}: API error {code}: {info}")
        return data

    async def query_all(self, params: Mapping[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """Each batch of a query, following ``continue`` until the API says it is complete."""
        base = {"action": "query", **params}
        # An empty ``continue`` asks wikis older than MediaWiki 1.26 for the same continuation protocol.
        current: dict[str, Any] = {**base, "continue": ""}
        while True:
            data = await self.request(current)
            yield data
            cont = data.get("continue")
            if not isinstance(cont, Mapping):
                return
            current = {**base, **{k: str(v) for k, v in cont.items()}}

    async def _merged_pages(self, params: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, str]]:
        """All pages of a page-set query with continuation batches merged, and the title
        normalisations the API reported (input title → canonical title)."""
        merged: dict[Any, dict[str, Any]] = {}
        normalized: dict[str, str] = {}
        async for data in self.query_all(params):
            query = data.get("query") or {}
            for item in query.get("normalized") or []:
                normalized[item["from"]] = item["to"]
            for page in _pages(query):
                key = page.get("pageid") or ("title", page.get("title"))
                into = merged.setdefault(key, {})
                for name, value in page.items():
                    if isinstance(value, list) and isinstance(into.get(name), list):
                        into[name].extend(value)
                    else:
                        into[name] = value
        return list(merged.values()), normalized

    # ------------------------------------------------------------------ what the collector asks

    async def siteinfo(self) -> dict[str, Any]:
        """General information, statistics and namespaces; learns the Quick Summary namespace's name
        from its number (a wiki may call namespace 30 anything, or not have it)."""
        data = await self.request(
            {"action": "query", "meta": "siteinfo", "siprop": "general|statistics|namespaces"}
        )
        query = data.get("query")
        if not isinstance(query, Mapping) or not isinstance(query.get("general"), Mapping):
            raise MediaWikiError(f"{self.api_url}: not a MediaWiki API (no site information in its answer)")
        spaces = query.get("namespaces") or {}
        entries = spaces.values() if isinstance(spaces, Mapping) else spaces
        for entry in entries:
            if isinstance(entry, Mapping) and int(entry.get("id", -99)) == self.summary_namespace:
                name = entry.get("name", entry.get("*"))
                if isinstance(name, str):
                    # The main namespace (0) has no name: its pages' titles carry no prefix.
                    self.summary_prefix = f"{name}:" if name else ""
                break
        else:
            if spaces:
                raise SettingsError(
                    f"{self.api_url}: the wiki has no namespace {self.summary_namespace} for Quick Summaries "
                    "(pass --summary-namespace with the number of the namespace that holds them)"
                )
            if self.summary_namespace != SUMMARY_NAMESPACE:  # "Summary:" is known to be namespace 30 only
                raise SettingsError(
                    f"{self.api_url}: the wiki does not list its namespaces, so --summary-namespace "
                    f"{self.summary_namespace} cannot be read by its number"
                )
        return dict(query)

    async def tracking_categories(self) -> frozenset[str]:
        """Names of the wiki's tracking categories ("Pages with broken file links", …), which MediaWiki
        adds to pages by itself and which are no topic: each is a system message ``…-category`` that
        has a ``…-category-desc`` message beside it (how Special:TrackingCategories lists them)."""
        try:
            data = await self.request(
                {"action": "query", "meta": "allmessages", "amfilter": "category", "amenableparser": "1"}
            )
        except MediaWikiError:
            return frozenset()  # a wiki without allmessages: nothing known to exclude
        messages = (data.get("query") or {}).get("allmessages") or []
        names = {str(m.get("name")) for m in messages if isinstance(m, Mapping)}
        found = set()
        for m in messages:
            if not isinstance(m, Mapping):
                continue
            name = str(m.get("name", ""))
            text = m.get("content", m.get("*"))
            if (
                name.endswith("category")
                and f"{name}-desc" in names
                and isinstance(text, str)
                and text.strip()
            ):
                found.add(_normalise(text))
        self.tracking = frozenset(found)
        return self.tracking

    async def creations(self, namespace: int = 0) -> dict[int, str]:
        """When each page of a namespace was created, from the page-creation log (``list=logevents``,
        500 entries a request): page id → timestamp. Pages created before the wiki logged creations,
        or imported, are not in it."""
        params = {
            "list": "logevents",
            "letype": "create",
            "lenamespace": str(namespace),
            "leprop": "ids|title|timestamp|type",
            "lelimit": "max",
        }
        out: dict[int, str] = {}
        async for data in self.query_all(params):
            for item in (data.get("query") or {}).get("logevents") or []:
                pageid, stamp = item.get("pageid"), item.get("timestamp")
                if item.get("action", "create") != "create" or not pageid or not isinstance(stamp, str):
                    continue
                if int(pageid) not in out or stamp < out[int(pageid)]:
                    out[int(pageid)] = stamp
        return out

    async def allpages(self, namespace: int = 0) -> AsyncIterator[tuple[int, str]]:
        """``(pageid, title)`` of every page of a namespace that is not a redirect, in title order."""
        params = {
            "list": "allpages",
            "apnamespace": str(namespace),
            "apfilterredir": "nonredirects",
            "aplimit": "max",
        }
        async for data in self.query_all(params):
            for item in (data.get("query") or {}).get("allpages") or []:
                yield int(item["pageid"]), str(item["title"])

    async def category_members(self, category: str) -> list[tuple[int, str]]:
        """``(pageid, title)`` of the articles in a category and, recursively, its subcategories."""
        found: dict[int, str] = {}
        seen: set[str] = set()
        todo = [category]
        while todo:
            name = todo.pop(0)
            if name in seen:
                continue
            seen.add(name)
            params = {
                "list": "categorymembers",
                "cmtitle": CATEGORY_PREFIX + name,
                "cmnamespace": "0|14",
                "cmtype": "page|subcat",
                "cmlimit": "max",
            }
            async for data in self.query_all(params):
                for item in (data.get("query") or {}).get("categorymembers") or []:
                    if int(item.get("ns", 0)) == 14:
                        todo.append(strip_namespace(str(item["title"]), CATEGORY_PREFIX))
                    elif int(item.get("ns", 0)) == 0:
                        found.setdefault(int(item["pageid"]), str(item["title"]))
        return sorted(found.items(), key=lambda kv: kv[1])

    async def exists(self, title: str) -> bool:
        """Whether the wiki has a page of this title (of any namespace, ``Category:`` included)."""
        pages, _ = await self._merged_pages({"titles": title, "prop": "info"})
        return any(not _missing(p) for p in pages)

    async def pages(self, pageids: Sequence[int]) -> dict[int, WikiPage]:
        """Latest wikitext, its timestamp and the visible categories of up to 50 pages."""
        if len(pageids) > BATCH:
            raise ValueError(f"at most {BATCH} page ids per query")
        params = {
            "pageids": "|".join(str(p) for p in pageids),
            "prop": "revisions|categories",
            "rvprop": "ids|timestamp|content",
            "rvslots": "main",
            "clshow": "!hidden",
            "cllimit": "max",
        }
        pages, _ = await self._merged_pages(params)
        out: dict[int, WikiPage] = {}
        for page in pages:
            if _missing(page):
                continue
            revisions = page.get("revisions") or []
            latest = revisions[-1] if revisions else {}
            out[int(page["pageid"])] = WikiPage(
                pageid=int(page["pageid"]),
                title=str(page.get("title", "")),
                ns=int(page.get("ns", 0)),
                wikitext=_content(latest) if latest else None,
                modified=latest.get("timestamp"),
                categories=tuple(
                    dict.fromkeys(
                        strip_namespace(str(c["title"]), CATEGORY_PREFIX)
                        for c in page.get("categories") or []
                    )
                ),
            )
        return out

    async def wikitexts(self, titles: Sequence[str]) -> dict[str, str]:
        """Latest wikitext of up to 50 pages by title; missing pages are left out. Keys are the titles
        as given."""
        if len(titles) > BATCH:
            raise ValueError(f"at most {BATCH} titles per query")
        params = {
            "titles": "|".join(titles),
            "prop": "revisions",
            "rvprop": "content",
            "rvslots": "main",
        }
        pages, normalized = await self._merged_pages(params)
        by_title = {
            str(p.get("title")): _content((p.get("revisions") or [{}])[-1]) for p in pages if not _missing(p)
        }
        out: dict[str, str] = {}
        for title in titles:
            text = by_title.get(normalized.get(title, title))
            if text is not None:
                out[title] = text
        return out

    @property
    def summary_namespace_name(self) -> str:
        """The name of the namespace the Quick Summaries are read from ("": the main namespace)."""
        return self.summary_prefix.removesuffix(":")

    async def summaries(self, article_titles: Sequence[str]) -> dict[str, str]:
        """Wikitext of the Quick Summary pages (namespace 30, ``Summary:`` on wikiHow) of up to 50
        articles, by article title: the page of the article's title in that namespace."""
        prefix = self.summary_prefix
        found = await self.wikitexts([prefix + t for t in article_titles])
        return {t: found[prefix + t] for t in article_titles if prefix + t in found}

    async def created(self, pageid: int) -> str | None:
        """Timestamp of a page's first revision (when the article was created)."""
        data = await self.request(
            {
                "action": "query",
                "pageids": str(pageid),
                "prop": "revisions",
                "rvprop": "ids|timestamp",
                "rvlimit": "1",
                "rvdir": "newer",
            }
        )
        for page in _pages(data.get("query") or {}):
            revisions = page.get("revisions") or []
            if revisions:
                return revisions[0].get("timestamp")
        return None

    async def uncategorized_categories(self) -> dict[str, CategoryInfo] | None:
        """The wiki's category pages that are in no category (``Special:UncategorizedCategories``,
        ``generator=querypage``), each with its member counts: the candidates for the category root and
        the top-level categories. ``None`` when the wiki does not answer it (the module or the page
        disabled, a cached list left empty, more than :data:`UNCATEGORIZED_REQUESTS` requests' worth)."""
        params = {
            "generator": "querypage",
            "gqppage": "Uncategorizedcategories",
            "gqplimit": "max",
            "prop": "categoryinfo",
        }
        found: dict[str, CategoryInfo] = {}
        requests = 0
        try:
            async for data in self.query_all(params):
                requests += 1
                for page in _pages(data.get("query") or {}):
                    if int(page.get("ns", -1)) != 14 or _missing(page):
                        continue
                    found[strip_namespace(str(page["title"]), CATEGORY_PREFIX)] = _category_info(page)
                if requests >= UNCATEGORIZED_REQUESTS and isinstance(data.get("continue"), Mapping):
                    return None
        except MediaWikiError:
            return None
        return found or None

    async def category_info(self, names: Sequence[str]) -> dict[str, CategoryInfo]:
        """Member counts of up to 50 category pages (categories without a page are left out: they are
        in no category tree)."""
        if len(names) > BATCH:
            raise ValueError(f"at most {BATCH} categories per query")
        titles = [CATEGORY_PREFIX + n for n in names]
        pages, normalized = await self._merged_pages({"titles": "|".join(titles), "prop": "categoryinfo"})
        by_title = {str(p.get("title")): _category_info(p) for p in pages if not _missing(p)}
        return {
            name: by_title[normalized.get(title, title)]
            for name, title in zip(names, titles, strict=True)
            if normalized.get(title, title) in by_title
        }

    async def category_parents(self, names: Iterable[str]) -> dict[str, list[str]]:
        """Visible parent categories of up to 50 categories; a category without a page has none."""
        names = list(names)
        if len(names) > BATCH:
            raise ValueError(f"at most {BATCH} categories per query")
        titles = [CATEGORY_PREFIX + n for n in names]
        params = {"titles": "|".join(titles), "prop": "categories", "clshow": "!hidden", "cllimit": "max"}
        pages, normalized = await self._merged_pages(params)
        by_title = {
            str(p.get("title")): [
                strip_namespace(str(c["title"]), CATEGORY_PREFIX) for c in p.get("categories") or []
            ]
            for p in pages
        }
        return {
            name: list(dict.fromkeys(by_title.get(normalized.get(title, title), [])))
            for name, title in zip(names, titles, strict=True)
        }
