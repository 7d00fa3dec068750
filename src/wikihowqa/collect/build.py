"""The collect stage: a MediaWiki how-to site and a Wayback archive → a dataset folder (paper, §3.1).

Phases, each resumable from ``build.sqlite``:

1. **articles** — enumerate content articles (``list=allpages``, or a category's members), read them
   50 at a time with their ``Summary:`` pages; keep those with a Quick Summary, then those citing at least
   one reference; for those, the creation timestamp and the top-level category (under the site's
   category root, found from the wiki or given).
2. **references** — every distinct cited URL once: the CDX capture with status 200 closest to the
   reference time of the first article (by id) that cites it, then its raw bytes.
3. **documents** — each snapshot read back from the state store and parsed (``wikihowqa.parse``); the
   further pages of a paginated article are fetched (closest to its first page's capture) and joined.
4. **dataset** — ``qa.jsonl``, ``documents.jsonl``, ``manifest.json`` (settings, sources, dates and the
   whole funnel) and ``rejections.jsonl`` (each rejected article and reference with its reason).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa import __version__
from wikihowqa.collect.archive_queries import ArchiveEndpoints
from wikihowqa.collect.archive_settings import DEFAULT_WAYBACK_URL, ArchiveSettings
from wikihowqa.collect.articles import (
    complete_articles,
    creation_log_requests,
    enumerate_articles,
    read_articles,
    select_by_creation,
    without_tracking,
)
from wikihowqa.collect.categories import find_root
from wikihowqa.collect.documents import make_documents
from wikihowqa.collect.funnel import assemble, documents
from wikihowqa.collect.http import HttpClient, HttpSettings
from wikihowqa.collect.progress import QuietReporter, Reporter
from wikihowqa.collect.references import fetch_references, forget_failed, plan_references
from wikihowqa.collect.store import STATE_FILE, StateStore
from wikihowqa.collect.wiki_queries import SUMMARY_NAMESPACE, MediaWiki, category_name
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.codecs import document_to_dict
from wikihowqa.dataset.folder import MANIFEST_FILE, DatasetFolder, write_dataset_folder
from wikihowqa.dataset.readers import iter_documents
from wikihowqa.dataset.writers import write_jsonl
from wikihowqa.parse import ParseSettings

DEFAULT_API_URL = "https://www.wikihow.com/api.php"
REFERENCE_TIMES = ("created", "modified")
REJECTIONS_FILE = "rejections.jsonl"
#: The documents, read out of the state store before it is parked (a kill leaves it to be rewritten).
STAGED_DOCUMENTS = ".documents-staged.jsonl"
_OWN_FILES = {
    STAGED_DOCUMENTS,
    STATE_FILE,
    f"{STATE_FILE}-wal",
    f"{STATE_FILE}-shm",
    "qa.jsonl",
    "documents.jsonl",
    MANIFEST_FILE,
    REJECTIONS_FILE,
}


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class BuildSettings:
    """What to collect and from where; ``http`` says how politely."""

    api_url: str = DEFAULT_API_URL
    wayback_url: str = DEFAULT_WAYBACK_URL
    cdx_url: str | None = None  # overrides the wayback_url layout's CDX endpoint
    playback_url: str | None = None  # overrides its playback prefix
    memento_timegate: str | None = None
    memento_timemap: str | None = None  # a template with {url}
    archive_hosts: tuple[str, ...] = ()  # further hosts mementos may be fetched from (aggregators)
    lookup: str | None = None  # cdx | playback | memento (default: memento with a TimeGate/TimeMap, else cdx)
    limit: int | None = None
    category: str | None = None
    title_filter: str | None = None
    reference_time: str = "modified"
    created_after: str | None = None  # ISO 8601 date or time: only articles created at or after it
    created_before: str | None = None  # ... and before it
    summary_namespace: int = SUMMARY_NAMESPACE
    root_category: str | None = None
    maxlag: int = 5
    retry_failed: bool = False
    http: HttpSettings = field(default_factory=HttpSettings)
    parse: ParseSettings = field(default_factory=ParseSettings)

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^/\s]+", self.api_url or ""):
            raise SettingsError(f"api-url must be an http(s) URL, got {self.api_url!r}")
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
        if self.category is not None and not category_name(self.category):
            raise SettingsError(f"category must name a category, got {self.category!r}")
        if self.summary_namespace < 0:
            raise SettingsError(
                f"summary namespace must be a namespace of pages (0 or more), got {self.summary_namespace}: "
                "the virtual namespaces -1 (Special) and -2 (Media) hold none"
            )
        if self.maxlag < 0:
            raise SettingsError(f"maxlag must be >= 0 seconds, got {self.maxlag}")
        for name in ("created_after", "created_before"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, iso_moment(value, name.replace("_", "-")))
        if self.created_after and self.created_before and self.created_after >= self.created_before:
            raise SettingsError(
                f"created-after ({self.created_after}) must be before created-before ({self.created_before})"
            )
        if self.root_category is not None and not category_name(self.root_category):
            raise SettingsError(f"root category must name a category, got {self.root_category!r}")
        if self.root_category is not None:
            object.__setattr__(self, "root_category", category_name(self.root_category))
        self.archive  # noqa: B018 - checks the archive options

    @property
    def window(self) -> tuple[str | None, str | None]:
        """The creation-time window ``[created_after, created_before)``; ``(None, None)``: all."""
        return (self.created_after, self.created_before)

    @property
    def archive(self) -> ArchiveSettings:
        """The archive options, as ``hydrate`` shares them."""
        return ArchiveSettings(
            wayback_url=self.wayback_url,
            cdx_url=self.cdx_url,
            playback_url=self.playback_url,
            memento_timegate=self.memento_timegate,
            memento_timemap=self.memento_timemap,
            archive_hosts=tuple(self.archive_hosts),
            lookup=self.lookup,
        )

    @property
    def archive_lookup(self) -> str:
        return self.archive.archive_lookup

    @property
    def endpoints(self) -> ArchiveEndpoints:
        """Where the archive answers: the ``wayback_url`` layout, with the explicit endpoints over it."""
        return self.archive.endpoints

    def as_dict(self) -> dict[str, Any]:
        return {
            "api_url": self.api_url,
            "wayback_url": self.wayback_url,
            "archive": self.endpoints.as_dict(),
            "lookup": self.archive_lookup,
            "limit": self.limit,
            "category": self.category,
            "title_filter": self.title_filter,
            "reference_time": self.reference_time,
            "created_after": self.created_after,
            "created_before": self.created_before,
            "summary_namespace": self.summary_namespace,
            "root_category": self.root_category,
            "maxlag": self.maxlag,
            "parse": self.parse.as_dict(),
            "http": self.http.as_dict(),
        }


@dataclass(frozen=True)
class BuildResult:
    folder: DatasetFolder
    manifest: dict[str, Any]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_moment(value: str, name: str = "date") -> str:
    """A date (``2023-01-01``) or time (``2023-01-01T12:00:00Z``) as the API writes times, in UTC."""
    text = value.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SettingsError(
            f"{name} must be a date like 2023-01-01 (or an ISO 8601 time), got {value!r}"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
    documents: Iterable[Document],
    manifest: dict[str, Any],
    rejections: list[dict[str, Any]],
) -> DatasetFolder:
    """Write the dataset folder atomically, keeping the state file: it is parked beside the folder while
    the folder is swapped, and a run killed meanwhile finds it there (:func:`prepare_out`). ``documents``
    may read the store: they are written out, one at a time, to a staged file before the store closes."""
    staged = out / STAGED_DOCUMENTS
    count = 0
    with staged.open("w", encoding="utf-8") as fh:
        for doc in documents:
            fh.write(json.dumps(document_to_dict(doc), ensure_ascii=False) + "\n")
            count += 1
    store.close()
    parked = parked_state(out)
    os.replace(out / STATE_FILE, parked)
    docs = iter_documents(staged) if count else iter(())
    folder = write_dataset_folder(out, examples, docs, manifest, overwrite=True)
    write_jsonl(out / REJECTIONS_FILE, rejections)
    os.replace(parked, out / STATE_FILE)
    return folder


# --------------------------------------------------------------------------- the stage

#: Stage results that depend on which archive answered (responses are keyed by their full URL anyway).
ARCHIVE_STAGES = ("reference", "continuation", "document")


def forget_other_archive(store: StateStore, settings: BuildSettings | ArchiveSettings | str) -> None:
    """A rerun against other archive endpoints (a wrong setting corrected) must not read back what the
    earlier archive answered: its references, continuations and documents are forgotten. A string names
    a source that is no archive's endpoints (``hydrate --from-warc``'s files)."""
    if isinstance(settings, str):
        archive = settings
    else:
        endpoints = settings.endpoints.as_dict()
        archive = json.dumps({k: endpoints[k] for k in sorted(endpoints)}, sort_keys=True)
    before = store.get_meta("archive")
    if before is not None and before != archive:
        for stage in ARCHIVE_STAGES:
            store.delete_results(stage, list(store.results(stage)))
    store.set_meta("archive", archive)


def selection_options(settings: BuildSettings) -> str:
    """The options that chose the articles, as given (``--limit 2 --category 'Pets'``), or ""."""
    given = [
        ("--limit", settings.limit),
        ("--category", repr(settings.category) if settings.category else None),
        ("--title-filter", repr(settings.title_filter) if settings.title_filter else None),
        ("--created-after", settings.created_after),
        ("--created-before", settings.created_before),
    ]
    return " ".join(f"{option} {value}" for option, value in given if value is not None)


def no_summary(settings: BuildSettings, wiki: MediaWiki, read: int) -> SettingsError:
    """No article read has a Quick Summary in the namespace the build reads them from."""
    name = wiki.summary_namespace_name
    where = f"its pages {name + ':TITLE'!r}" if name else "the articles themselves (the main namespace)"
    chosen = selection_options(settings)
    selected = f" (selected by {chosen})" if chosen else ""
    return SettingsError(
        f"--summary-namespace {settings.summary_namespace}: none of the {read} articles read{selected} has "
        f"a Quick Summary there ({where}); wikiHow keeps them in namespace {SUMMARY_NAMESPACE}"
    )


def no_reference(settings: BuildSettings, with_summary: int) -> SettingsError:
    """No article of the selection that has a Quick Summary cites a reference: nothing to look up."""
    chosen = selection_options(settings)
    selected = f" selected by {chosen}" if chosen else ""
    return SettingsError(
        f"none of the {with_summary} articles{selected} with a Quick Summary cites a reference: "
        "there is nothing to build"
    )


def no_question(manifest: dict[str, Any]) -> str | None:
    """Why a finished build kept no question (its references gave no usable document), in one line;
    ``None`` when it kept some. The build records it (``rejections.jsonl``, resumable); the command fails."""
    if manifest["counts"]["questions"]:
        return None
    funnel = manifest["funnel"]
    reasons = sorted(
        (-n, k.removeprefix("reference_"))
        for k, n in manifest["rejections"].items()
        if k.startswith("reference_") and n
    )
    why = ", ".join(f"{-n} {reason}" for n, reason in reasons) or "none fetched"
    return (
        f"no question kept: none of the {funnel['articles']['with_references']} articles with a Quick "
        f"Summary and references has a usable document (of their {funnel['references']['unique_urls']} "
        f"cited pages: {why}); rejections.jsonl gives each one's reason, --retry-failed asks again for "
        "those that failed"
    )


async def _collect(
    settings: BuildSettings, store: StateStore, reporter: Reporter
) -> tuple[list[Example], Iterator[Document], int, dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    workers = settings.http.concurrency
    async with HttpClient(settings.http, cache=store, on_event=reporter.event) as http:
        wiki = MediaWiki(
            http, settings.api_url, maxlag=settings.maxlag, summary_namespace=settings.summary_namespace
        )
        finder = settings.archive.finder(http)
        site = await wiki.siteinfo()
        tracking = await wiki.tracking_categories()
        log_requests = creation_log_requests(site)
        pages = await enumerate_articles(
            wiki, limit=settings.limit, category=settings.category, title_filter=settings.title_filter
        )
        # A time slice: articles created outside it are not part of the benchmark, summary or not, and
        # are never read.
        pages, outside = await select_by_creation(
            wiki, store, pages, settings.window, workers, reporter, log_requests=log_requests
        )
        seen = without_tracking(await read_articles(wiki, store, pages, workers, reporter), tracking)
        if seen and not any(a.answer for a in seen):
            raise no_summary(settings, wiki, len(seen))
        candidates = [a for a in seen if a.answer and a.references]
        if seen and not candidates:
            raise no_reference(settings, sum(1 for a in seen if a.answer))
        created, parents = await complete_articles(
            wiki, store, candidates, workers, reporter, log_requests=log_requests
        )
        whole_wiki = not (
            settings.limit or settings.category or settings.title_filter or any(settings.window)
        )
        category_root = await find_root(
            wiki,
            [a.categories for a in candidates],
            parents,
            given=settings.root_category,
            whole_wiki=whole_wiki,
        )
        tasks = plan_references(candidates, created, settings.reference_time)
        if settings.retry_failed:
            forget_failed(store)
        # Twice as many workers as connection slots: some wait for the slow CDX lane while others fetch.
        outcomes = await fetch_references(finder, store, tasks, 2 * workers, reporter)
        parsed = await make_documents(finder, store, outcomes, settings.parse, 2 * workers, reporter)
        http_stats = http.stats_dict()
        events = list(http.events)
    examples, kept, funnel, rejections = assemble(
        seen, created, parents, outcomes, parsed, category_root=category_root
    )
    general = site.get("general") or {}
    sources = {
        "mediawiki": {
            "api_url": settings.api_url,
            "sitename": general.get("sitename"),
            "generator": general.get("generator"),
            "server": general.get("server"),
            "summary_namespace": {"id": settings.summary_namespace, "name": wiki.summary_namespace_name},
            "tracking_categories": sorted(tracking),
            "category_root": category_root.as_dict(),
        },
        "wayback": {"base_url": settings.wayback_url, **settings.endpoints.as_dict()},
    }
    selection = {
        "created_after": settings.created_after,
        "created_before": settings.created_before,
        "outside_window": outside,
    }
    run = {"http": http_stats, "events": events, "sources": sources, "selection": selection}
    return examples, documents(kept, parsed), len(kept), funnel, rejections, run


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
        forget_other_archive(store, settings)
        examples, docs, n_docs, funnel, rejections, run = asyncio.run(_collect(settings, store, reporter))
    except BaseException:
        store.close()
        raise
    manifest = {
        "stage": "build",
        "tool": {"name": "wikihowqa", "version": __version__},
        "sources": run.pop("sources"),
        "settings": settings.as_dict(),
        "selection": run.pop("selection"),
        "funnel": {"articles": funnel["articles"], "references": funnel["references"]},
        "rejections": funnel["rejections"],
        "counts": {"questions": len(examples), "documents": n_docs},
        "files": {"rejections": REJECTIONS_FILE, "state": STATE_FILE},
        "dates": {"started": started, "finished": _now()},
        "run": {**run, "runs": runs},
    }
    folder = publish(out, store, examples, docs, manifest, rejections)
    return BuildResult(folder, manifest)
