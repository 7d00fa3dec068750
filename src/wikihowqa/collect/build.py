"""The collect stage: a MediaWiki how-to site and a Wayback archive → a dataset folder (paper, §3.1).

Phases, each resumable from ``build.sqlite``:

1. **articles** — enumerate content articles (``list=allpages``, or a category's members), read them
   50 at a time with their ``Summary:`` pages; keep those with a Quick Summary, then those citing at least
   one reference; for those, the creation timestamp and the top-level category.
2. **references** — every distinct cited URL once: the CDX capture with status 200 closest to the
   reference time of the first article (by id) that cites it, then its raw bytes.
3. **documents** — each snapshot read back from the state store and parsed (``wikihowqa.parse``); the
   further pages of a paginated article are fetched (closest to its first page's capture) and joined.
4. **dataset** — ``qa.jsonl``, ``documents.jsonl``, ``manifest.json`` (settings, sources, dates and the
   whole funnel) and ``rejections.jsonl`` (each rejected article and reference with its reason).
"""

from __future__ import annotations

import asyncio
import math
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from wikihowqa import __version__
from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, FetchError, HttpClient, HttpSettings, request_key
from wikihowqa.collect.mediawiki import BATCH, MediaWiki, MediaWikiError
from wikihowqa.collect.store import STATE_FILE, StateStore, StoredSnapshots
from wikihowqa.collect.wayback import CdxError, Wayback, wayback_timestamp
from wikihowqa.collect.wikitext import ancestors_needed, quick_summary, references, top_category
from wikihowqa.errors import SettingsError
from wikihowqa.io import MANIFEST_FILE, DatasetFolder, write_dataset_folder, write_jsonl
from wikihowqa.parse import ParsedPage, ParseSettings
from wikihowqa.parse.stage import RawSnapshot, complete_pagination, parse_snapshots
from wikihowqa.records import Document, Example

DEFAULT_API_URL = "https://www.wikihow.com/api.php"
DEFAULT_WAYBACK_URL = "https://web.archive.org"
REFERENCE_TIMES = ("created", "modified")
REJECTIONS_FILE = "rejections.jsonl"
_OWN_FILES = {
    STATE_FILE,
    f"{STATE_FILE}-wal",
    f"{STATE_FILE}-shm",
    "qa.jsonl",
    "documents.jsonl",
    MANIFEST_FILE,
    REJECTIONS_FILE,
}

# Reference outcomes, in funnel order.
NO_SNAPSHOT, FETCH_FAILED = "no_snapshot", "fetch_failed"
EMPTY_BODY, NON_HTML, EMPTY_TEXT = "empty_body", "non_html", "empty_text"
FETCHED, KEPT = "fetched", "kept"

T = TypeVar("T")


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class BuildSettings:
    """What to collect and from where; ``http`` says how politely."""

    api_url: str = DEFAULT_API_URL
    wayback_url: str = DEFAULT_WAYBACK_URL
    limit: int | None = None
    category: str | None = None
    title_filter: str | None = None
    reference_time: str = "modified"
    maxlag: int = 5
    retry_failed: bool = False
    http: HttpSettings = field(default_factory=HttpSettings)
    parse: ParseSettings = field(default_factory=ParseSettings)

    def __post_init__(self) -> None:
        for name in ("api_url", "wayback_url"):
            value = getattr(self, name)
            if not re.match(r"^https?://[^/\s]+", value or ""):
                raise SettingsError(f"{name.replace('_', '-')} must be an http(s) URL, got {value!r}")
        if self.reference_time not in REFERENCE_TIMES:
            raise SettingsError(
                f"reference time must be one of {', '.join(REFERENCE_TIMES)}, got {self.reference_time!r}"
            )
        if self.limit is not None and self.limit < 1:
            raise SettingsError(f"limit must be at least 1, got {self.limit}")
        if self.title_filter is not None:
            try:
                re.compile(self.title_filter)
            except re.error as exc:
                raise SettingsError(
                    f"title filter {self.title_filter!r} is not a regular expression: {exc}"
                ) from None
        if self.maxlag < 0:
            raise SettingsError(f"maxlag must be >= 0 seconds, got {self.maxlag}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "api_url": self.api_url,
            "wayback_url": self.wayback_url,
            "limit": self.limit,
            "category": self.category,
            "title_filter": self.title_filter,
            "reference_time": self.reference_time,
            "maxlag": self.maxlag,
            "parse": self.parse.as_dict(),
            "http": self.http.as_dict(),
        }


# --------------------------------------------------------------------------- progress


class Reporter(Protocol):
    """Where the stage reports progress: a rich display in the CLI, nothing in the library."""

    def phase(self, name: str, total: int | None) -> None: ...

    def advance(self, name: str, n: int = 1) -> None: ...

    def event(self, message: str) -> None: ...


class QuietReporter:
    def phase(self, name: str, total: int | None) -> None:
        pass

    def advance(self, name: str, n: int = 1) -> None:
        pass

    def event(self, message: str) -> None:
        pass


# --------------------------------------------------------------------------- records of the stage


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


@dataclass(frozen=True)
class BuildResult:
    folder: DatasetFolder
    manifest: dict[str, Any]


# --------------------------------------------------------------------------- helpers


async def run_pool(items: Sequence[T], worker: Callable[[T], Awaitable[None]], size: int) -> None:
    """Run ``worker`` over ``items`` with at most ``size`` running at once; the first error propagates."""
    queue: asyncio.Queue[T] = asyncio.Queue()
    for item in items:
        queue.put_nowait(item)

    async def loop() -> None:
        while True:
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await worker(item)

    tasks = [asyncio.create_task(loop()) for _ in range(max(1, min(size, len(items))))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()


def _chunks(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# --------------------------------------------------------------------------- the output folder


def parked_state(out: Path) -> Path:
    """Where the state file waits while the dataset folder is being replaced."""
    return out.parent / f".{out.name}.{STATE_FILE}"


def prepare_out(out: Path) -> Path:
    """Make ``out`` ready to hold a build: restore a parked state file, refuse a folder of other files."""
    out = Path(out)
    parked = parked_state(out)
    if out.exists() and not out.is_dir():
        raise SettingsError(f"{out}: exists and is not a folder")
    if parked.exists() and not (out / STATE_FILE).exists():
        out.mkdir(parents=True, exist_ok=True)
        os.replace(parked, out / STATE_FILE)
    if out.is_dir():
        foreign = sorted(p.name for p in out.iterdir() if p.name not in _OWN_FILES)
        if foreign:
            shown = ", ".join(foreign[:5]) + (" …" if len(foreign) > 5 else "")
            raise SettingsError(
                f"{out}: holds files a build did not write ({shown}); choose an empty or new folder"
            )
    out.mkdir(parents=True, exist_ok=True)
    return out / STATE_FILE


def publish(
    out: Path,
    store: StateStore,
    examples: list[Example],
    documents: list[Document],
    manifest: dict[str, Any],
    rejections: list[dict[str, Any]],
) -> DatasetFolder:
    """Write the dataset folder atomically, keeping the state file: it is parked beside the folder while
    the folder is swapped, and a run killed meanwhile finds it there (:func:`prepare_out`)."""
    store.close()
    parked = parked_state(out)
    os.replace(out / STATE_FILE, parked)
    folder = write_dataset_folder(out, examples, documents, manifest, overwrite=True)
    write_jsonl(out / REJECTIONS_FILE, rejections)
    os.replace(parked, out / STATE_FILE)
    return folder


# --------------------------------------------------------------------------- phase 1: articles


async def enumerate_articles(wiki: MediaWiki, settings: BuildSettings) -> list[tuple[int, str]]:
    """``(pageid, title)`` of the content articles to read, filtered and limited as asked."""
    pattern = re.compile(settings.title_filter, re.I) if settings.title_filter else None
    chosen: list[tuple[int, str]] = []

    def take(pageid: int, title: str) -> bool:
        if pattern is None or pattern.search(title):
            chosen.append((pageid, title))
        return settings.limit is not None and len(chosen) >= settings.limit

    if settings.category:
        for pageid, title in await wiki.category_members(settings.category):
            if take(pageid, title):
                break
    else:
        async for pageid, title in wiki.allpages(0):
            if take(pageid, title):
                break
    return chosen


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

    await run_pool(_chunks(todo, BATCH), batch, concurrency)
    results = store.results("article")
    return [ArticleRecord.from_dict(results[str(pid)]) for pid, _ in pages if results.get(str(pid))]


async def complete_articles(
    wiki: MediaWiki, store: StateStore, articles: list[ArticleRecord], concurrency: int, reporter: Reporter
) -> tuple[dict[int, str | None], dict[str, list[str]]]:
    """Creation timestamps of the kept articles and the category parents above their categories."""
    created = {int(k): v for k, v in store.results("created").items()}
    todo = [a.article_id for a in articles if a.article_id not in created]
    reporter.phase("article details", len(articles))
    reporter.advance("article details", len(articles) - len(todo))

    async def one(pageid: int) -> None:
        created[pageid] = store.put_result("created", str(pageid), await wiki.created(pageid))
        reporter.advance("article details")

    await run_pool(todo, one, concurrency)

    parents: dict[str, list[str]] = store.results("category")
    while True:
        missing = sorted(ancestors_needed({c for a in articles for c in a.categories}, parents))
        if not missing:
            break

        async def level(names: Sequence[str]) -> None:
            found = await wiki.category_parents(names)
            store.put_results("category", list(found.items()))
            parents.update(found)

        await run_pool(_chunks(missing, BATCH), level, concurrency)
    return created, parents


# --------------------------------------------------------------------------- phase 2: references


@dataclass(frozen=True, slots=True)
class ReferenceTask:
    url: str
    timestamp: str  # 14 digits: the reference time of the first article citing it

    @property
    def key(self) -> str:
        return f"{self.timestamp}|{self.url}"


def plan_references(
    articles: Iterable[ArticleRecord], created: dict[int, str | None], reference_time: str
) -> list[ReferenceTask]:
    """Distinct cited URLs in order of first citation (articles by id), each with the reference time of
    the first article that cites it: a URL shared by articles is fetched once."""
    tasks: dict[str, ReferenceTask] = {}
    for article in sorted(articles, key=lambda a: a.article_id):
        moment = created.get(article.article_id) if reference_time == "created" else article.modified
        moment = moment or article.modified or created.get(article.article_id)
        if moment is None:
            continue
        for url in article.references:
            if url not in tasks:
                tasks[url] = ReferenceTask(url, wayback_timestamp(moment))
    return list(tasks.values())


async def fetch_references(
    wayback: Wayback,
    store: StateStore,
    tasks: list[ReferenceTask],
    workers: int,
    reporter: Reporter,
) -> dict[str, dict[str, Any]]:
    """Each reference's outcome (the ``reference`` result), keyed by cited URL."""
    done = store.results("reference")
    reporter.phase("snapshots (CDX)", len(tasks))
    reporter.phase("snapshots fetched", len(tasks))
    already = sum(1 for t in tasks if t.key in done)
    reporter.advance("snapshots (CDX)", already)
    reporter.advance("snapshots fetched", already)

    async def one(task: ReferenceTask) -> None:
        result = await _reference(wayback, store, task, reporter)
        done[task.key] = store.put_result("reference", task.key, result)
        reporter.advance("snapshots fetched")

    await run_pool([t for t in tasks if t.key not in done], one, workers)
    return {t.url: done[t.key] for t in tasks}


async def fetch_capture(wayback: Wayback, store: StateStore, url: str, timestamp: str) -> dict[str, Any]:
    """The status-200 capture of ``url`` closest to ``timestamp``, its raw bytes stored: the outcome says
    ``fetched`` (with ``archive_url``), ``no_snapshot`` or ``fetch_failed`` (with where and why)."""
    try:
        capture = await wayback.closest(url, timestamp)
    except (FetchError, CdxError) as exc:
        return {"status": FETCH_FAILED, "failed_at": "cdx", "detail": str(getattr(exc, "reason", exc))}
    if capture is None:
        return {"status": NO_SNAPSHOT}
    result: dict[str, Any] = {
        "timestamp": capture.timestamp,
        "original": capture.original,
        "archive_url": wayback.archive_url(capture),
    }
    try:
        response = await wayback.fetch(capture)
    except FetchError as exc:
        return {**result, "status": FETCH_FAILED, "failed_at": "playback", "detail": exc.reason}
    if response.status != 200:
        return {
            **result,
            "status": FETCH_FAILED,
            "failed_at": "playback",
            "detail": f"HTTP {response.status}",
        }
    store.put_snapshot(
        result["archive_url"], capture.original, capture.timestamp, request_key(wayback.raw_url(capture))
    )
    return {**result, "status": FETCHED}


async def _reference(wayback: Wayback, store: StateStore, task: ReferenceTask, reporter: Reporter) -> dict:
    result = await fetch_capture(wayback, store, task.url, task.timestamp)
    reporter.advance("snapshots (CDX)")
    return {"url": task.url, "reference_time": task.timestamp, **result}


# --------------------------------------------------------------------------- phase 3: documents


def _document(page: ParsedPage) -> dict[str, Any]:
    if not page.ok:
        return {"rejection": page.rejection, "detail": page.detail}
    return {
        "rejection": None,
        "text": page.text,
        "markdown": page.markdown,
        "title": page.title,
        "passages": list(page.passages),
        "info": page.info(),
    }


class _RecordingSource:
    """The stored snapshots, but a continuation page never asked for is noted as wanted instead."""

    def __init__(self, stored: StoredSnapshots, attempted: set[tuple[str, str]]) -> None:
        self.stored, self.attempted = stored, attempted
        self.wanted: set[tuple[str, str]] = set()

    def get(self, archive_url: str) -> RawSnapshot | None:
        return self.stored.get(archive_url)

    def find(self, url: str, near: str | None = None) -> RawSnapshot | None:
        if (near or "", url) not in self.attempted:
            self.wanted.add((near or "", url))
            return None
        return self.stored.find(url, near)


async def make_documents(
    wayback: Wayback,
    store: StateStore,
    outcomes: dict[str, dict[str, Any]],
    settings: ParseSettings,
    workers: int,
    reporter: Reporter,
) -> dict[str, dict[str, Any]]:
    """Each fetched snapshot parsed (the ``document`` result, by archive URL), read back from the state
    store; a paginated article's further pages are fetched (the captures closest to its first page's) and
    joined by the parse stage."""
    wanted = sorted({o["archive_url"] for o in outcomes.values() if o["status"] == FETCHED})
    done = store.results("document")
    todo = [a for a in wanted if a not in done]
    reporter.phase("documents parsed", len(wanted))
    reporter.advance("documents parsed", len(wanted) - len(todo))
    stored = StoredSnapshots(store)
    snapshots = (replace(snap, key=a) for a in todo if (snap := stored.get(a)) is not None)
    paginated: dict[str, ParsedPage] = {}
    # A pool of parser processes pays for its start-up only beyond a few dozen pages.
    for archive_url, page in parse_snapshots(snapshots, settings, workers=None if len(todo) > 48 else 1):
        if settings.pagination == "join" and page.ok and page.pagination.paginated:
            paginated[archive_url] = page
            continue
        done[archive_url] = store.put_result("document", archive_url, _document(page))
        reporter.advance("documents parsed")
    if paginated:
        await fetch_continuations(wayback, store, paginated, settings, workers, reporter)
        for archive_url, page in sorted(paginated.items()):
            joined = complete_pagination(page, stored, settings, archive_url)
            done[archive_url] = store.put_result("document", archive_url, _document(joined))
            reporter.advance("documents parsed")
    return {a: done[a] for a in wanted}


async def fetch_continuations(
    wayback: Wayback,
    store: StateStore,
    pages: dict[str, ParsedPage],
    settings: ParseSettings,
    workers: int,
    reporter: Reporter,
) -> None:
    """Fetch, round by round, the further pages the parse stage asks for when it joins each paginated
    article (``complete_pagination`` run against the store, noting what it misses): each page from the
    capture closest to the first page's, each at most once."""
    attempted = {tuple(k.split("|", 1)) for k in store.results("continuation")}
    attempted_pairs: set[tuple[str, str]] = {(a, b) for a, b in attempted}
    stored = StoredSnapshots(store)
    reporter.phase("further pages", 0)
    for _ in range(settings.max_pages + 1):
        source = _RecordingSource(stored, attempted_pairs)
        for archive_url, page in pages.items():
            complete_pagination(page, source, settings, archive_url)
        missing = sorted(source.wanted - attempted_pairs)
        if not missing:
            return
        reporter.phase("further pages", len(attempted_pairs) + len(missing))

        async def one(item: tuple[str, str]) -> None:
            near, url = item
            result = await fetch_capture(wayback, store, url, near)
            store.put_result("continuation", f"{near}|{url}", {"url": url, **result})
            reporter.advance("further pages")

        await run_pool(missing, one, workers)
        attempted_pairs.update(missing)


# --------------------------------------------------------------------------- phase 4: assembling


def final_status(outcome: dict[str, Any], parsed: dict[str, dict[str, Any]]) -> str:
    """A reference's place in the funnel; a page the parser gives up on (too large, too deep, a crash,
    a timeout) yields no text, so it counts as ``empty_text`` (its detail names the parser's reason)."""
    if outcome["status"] != FETCHED:
        return outcome["status"]
    doc = parsed.get(outcome["archive_url"]) or {}
    reason = doc.get("rejection")
    if reason is None:
        return KEPT
    return reason if reason in (EMPTY_BODY, NON_HTML) else EMPTY_TEXT


def assemble(
    seen: list[ArticleRecord],
    created: dict[int, str | None],
    parents: dict[str, list[str]],
    outcomes: dict[str, dict[str, Any]],
    parsed: dict[str, dict[str, Any]],
) -> tuple[list[Example], list[Document], dict[str, Any], list[dict[str, Any]]]:
    """Examples, documents, the funnel and the rejection records, all in a deterministic order."""
    seen = sorted(seen, key=lambda a: a.article_id)
    with_summary = [a for a in seen if a.answer]
    with_refs = [a for a in with_summary if a.references]
    status = {url: final_status(o, parsed) for url, o in outcomes.items()}
    rejections: list[dict[str, Any]] = []
    for a in seen:
        if not a.answer:
            rejections.append(
                {"kind": "article", "article_id": a.article_id, "title": a.title, "reason": "no_summary"}
            )
        elif not a.references:
            rejections.append(
                {"kind": "article", "article_id": a.article_id, "title": a.title, "reason": "no_references"}
            )
    examples: list[Example] = []
    documents: list[Document] = []
    cited_by: dict[str, list[int]] = {}
    for a in with_refs:
        for url in a.references:
            cited_by.setdefault(url, []).append(a.article_id)
        docs = []
        for url in a.references:
            if status.get(url) != KEPT:
                continue
            o, d = outcomes[url], parsed[outcomes[url]["archive_url"]]
            docs.append(
                Document(
                    article_id=a.article_id,
                    original_url=url,
                    archive_url=o["archive_url"],
                    parsed_text=d["text"],
                    parsed_md=d["markdown"],
                    title=d["title"],
                    passages=tuple(d["passages"]),
                    extra={"parse": d["info"]},
                )
            )
        if not docs:
            rejections.append(
                {
                    "kind": "article",
                    "article_id": a.article_id,
                    "title": a.title,
                    "reason": "no_usable_document",
                }
            )
            continue
        documents.extend(docs)
        examples.append(
            Example(
                article_id=a.article_id,
                question=a.title,
                answer=a.answer or "",
                related_document_urls_wayback_snapshots=tuple(dict.fromkeys(d.archive_url for d in docs)),
                category=top_category(a.categories, parents),
                extra={
                    "categories": list(a.categories),
                    "created": created.get(a.article_id),
                    "modified": a.modified,
                },
            )
        )
    for url, o in outcomes.items():
        if status[url] == KEPT:
            continue
        row = {"kind": "reference", "url": url, "reason": status[url], "cited_by": cited_by.get(url, [])}
        detail = o.get("detail")
        if o["status"] == FETCHED:
            doc = parsed.get(o["archive_url"]) or {}
            reason = doc.get("rejection")
            detail = doc.get("detail") if reason == status[url] else f"{reason}: {doc.get('detail')}"
        for key, value in (
            ("detail", detail),
            ("archive_url", o.get("archive_url")),
            ("failed_at", o.get("failed_at")),
        ):
            if value is not None:
                row[key] = value
        rejections.append(row)
    values = list(status.values())
    failed_cdx = sum(
        1 for o in outcomes.values() if o["status"] == FETCH_FAILED and o.get("failed_at") == "cdx"
    )
    found = len(values) - values.count(NO_SNAPSHOT) - failed_cdx
    fetched = found - (values.count(FETCH_FAILED) - failed_cdx)
    non_empty = fetched - values.count(EMPTY_BODY)
    html = non_empty - values.count(NON_HTML)
    kept = values.count(KEPT)
    funnel = {
        "articles": {
            "seen": len(seen),
            "with_summary": len(with_summary),
            "with_references": len(with_refs),
            "with_usable_document": len(examples),
        },
        "references": {
            "citations": sum(len(a.references) for a in with_refs),
            "unique_urls": len(outcomes),
            "snapshot_found": found,
            "fetched": fetched,
            "non_empty": non_empty,
            "html": html,
            "kept": kept,
        },
        "rejections": {
            "article_no_summary": len(seen) - len(with_summary),
            "article_no_references": len(with_summary) - len(with_refs),
            "article_no_usable_document": len(with_refs) - len(examples),
            "reference_no_snapshot": values.count(NO_SNAPSHOT),
            "reference_fetch_failed": values.count(FETCH_FAILED),
            "reference_empty_body": values.count(EMPTY_BODY),
            "reference_non_html": values.count(NON_HTML),
            "reference_empty_text": values.count(EMPTY_TEXT),
        },
    }
    return examples, documents, funnel, rejections


# --------------------------------------------------------------------------- the stage


async def _collect(
    settings: BuildSettings, store: StateStore, reporter: Reporter
) -> tuple[list[Example], list[Document], dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    workers = settings.http.concurrency
    async with HttpClient(settings.http, cache=store, on_event=reporter.event) as http:
        wiki = MediaWiki(http, settings.api_url, maxlag=settings.maxlag)
        wayback = Wayback(http, settings.wayback_url)
        site = await wiki.siteinfo()
        pages = await enumerate_articles(wiki, settings)
        seen = await read_articles(wiki, store, pages, workers, reporter)
        candidates = [a for a in seen if a.answer and a.references]
        created, parents = await complete_articles(wiki, store, candidates, workers, reporter)
        tasks = plan_references(candidates, created, settings.reference_time)
        if settings.retry_failed:
            failed = [k for k, v in store.results("reference").items() if v and v["status"] == FETCH_FAILED]
            store.delete_results("reference", failed)
        # Twice as many workers as connection slots: some wait for the slow CDX lane while others fetch.
        outcomes = await fetch_references(wayback, store, tasks, 2 * workers, reporter)
        parsed = await make_documents(wayback, store, outcomes, settings.parse, 2 * workers, reporter)
        http_stats = http.stats_dict()
        events = list(http.events)
    examples, documents, funnel, rejections = assemble(seen, created, parents, outcomes, parsed)
    general = site.get("general") or {}
    sources = {
        "mediawiki": {
            "api_url": settings.api_url,
            "sitename": general.get("sitename"),
            "generator": general.get("generator"),
            "server": general.get("server"),
        },
        "wayback": {"base_url": settings.wayback_url},
    }
    run = {"http": http_stats, "events": events, "sources": sources}
    return examples, documents, funnel, rejections, run


def build(out: Path, settings: BuildSettings, *, reporter: Reporter | None = None) -> BuildResult:
    """Collect a benchmark into ``out``; rerunning after an interruption resumes where it stopped."""
    reporter = reporter or QuietReporter()
    out = Path(out)
    state = prepare_out(out)
    store = StateStore(state)
    try:
        started = store.get_meta("started")
        if started is None:
            started = _now()
            store.set_meta("started", started)
        runs = int(store.get_meta("runs") or 0) + 1
        store.set_meta("runs", str(runs))
        examples, documents, funnel, rejections, run = asyncio.run(_collect(settings, store, reporter))
    except BaseException:
        store.close()
        raise
    manifest = {
        "stage": "build",
        "tool": {"name": "wikihowqa", "version": __version__},
        "sources": run.pop("sources"),
        "settings": settings.as_dict(),
        "funnel": {"articles": funnel["articles"], "references": funnel["references"]},
        "rejections": funnel["rejections"],
        "counts": {"questions": len(examples), "documents": len(documents)},
        "files": {"rejections": REJECTIONS_FILE, "state": STATE_FILE},
        "dates": {"started": started, "finished": _now()},
        "run": {**run, "runs": runs},
    }
    folder = publish(out, store, examples, documents, manifest, rejections)
    return BuildResult(folder, manifest)


# --------------------------------------------------------------------------- dry run

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
