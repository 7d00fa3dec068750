"""Phase 3 of the collector: each fetched snapshot, read back from the state store, through the parse stage.

The further pages of a paginated article are fetched here (the parse stage only reads them): the parse
stage's own joining is run against the store, noting which pages it asks for and does not find; those are
fetched (each from the capture closest to the first page's) and the joining runs again, until it asks for
nothing new.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from wikihowqa.collect.captures import CaptureFinder
from wikihowqa.collect.pool import run_pool
from wikihowqa.collect.progress import Reporter
from wikihowqa.collect.references import FETCHED, fetch_capture
from wikihowqa.collect.store import StateStore, StoredSnapshots
from wikihowqa.parse import ParsedPage, ParseSettings
from wikihowqa.parse.stage import RawSnapshot, complete_pagination, parse_snapshots
from wikihowqa.runtime.executor import worker_count

#: Pages from which the build parses in a pool of processes (fewer: in this process).
PARSE_PARALLEL_FROM = 49


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


class StoredDocuments(Mapping[str, dict[str, Any]]):
    """The build's parsed documents (the ``document`` results, by archive URL), read from the state store
    when asked for: the build holds one document's text at a time, not the corpus's (tens of KB a
    document, gigabytes at the paper's scale)."""

    def __init__(self, store: StateStore, keys: list[str]) -> None:
        self.store, self.keys, self._known = store, keys, set(keys)

    def __getitem__(self, archive_url: str) -> dict[str, Any]:
        value = self.store.get_result("document", archive_url) if archive_url in self._known else None
        if value is None:
            raise KeyError(archive_url)
        return value  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys)

    def __len__(self) -> int:
        return len(self.keys)

    def verdict(self, archive_url: str) -> dict[str, Any] | None:
        """One document's ``rejection`` and ``detail``, picked out by the store without its text."""
        if archive_url not in self._known:
            return None
        return self.store.get_fields("document", archive_url, ("rejection", "detail"))


class StoredVerdicts(Mapping[str, dict[str, Any]]):
    """Each document's verdict (``rejection``, ``detail``), read from the state store when asked for: a
    hydration places each capture without holding one verdict per capture (memory flat in the release)."""

    def __init__(self, documents: StoredDocuments) -> None:
        self.documents = documents

    def __getitem__(self, archive_url: str) -> dict[str, Any]:
        verdict = self.documents.verdict(archive_url)
        if verdict is None:
            raise KeyError(archive_url)
        return verdict

    def __iter__(self) -> Iterator[str]:
        return iter(self.documents)

    def __len__(self) -> int:
        return len(self.documents)


async def make_documents(
    finder: CaptureFinder,
    store: StateStore,
    outcomes: Mapping[str, dict[str, Any]],
    settings: ParseSettings,
    workers: int,
    reporter: Reporter,
) -> StoredDocuments:
    """Each fetched snapshot parsed (the ``document`` result, by archive URL), read back from the state
    store; a paginated article's further pages are fetched (the captures closest to its first page's) and
    joined by the parse stage. The documents stay in the store (:class:`StoredDocuments`)."""
    wanted = sorted({o["archive_url"] for o in outcomes.values() if o["status"] == FETCHED})
    done = store.result_keys("document")
    todo = [a for a in wanted if a not in done]
    reporter.phase("documents parsed", len(wanted))
    reporter.advance("documents parsed", len(wanted) - len(todo))
    stored = StoredSnapshots(store)
    snapshots = (replace(snap, key=a) for a in todo if (snap := stored.get(a)) is not None)
    paginated: dict[str, ParsedPage] = {}
    # A pool of parser processes pays for its start-up only beyond a few dozen pages.
    pool = worker_count(None, items=len(todo), parallel_from=PARSE_PARALLEL_FROM)
    for archive_url, page in parse_snapshots(snapshots, settings, workers=pool):
        if settings.pagination == "join" and page.ok and page.pagination.paginated:
            paginated[archive_url] = page
            continue
        store.put_result("document", archive_url, _document(page))
        reporter.advance("documents parsed")
    if paginated:
        await fetch_continuations(finder, store, paginated, settings, workers, reporter)
        for archive_url, page in sorted(paginated.items()):
            joined = complete_pagination(page, stored, settings, archive_url)
            store.put_result("document", archive_url, _document(joined))
            reporter.advance("documents parsed")
    return StoredDocuments(store, wanted)


async def fetch_continuations(
    finder: CaptureFinder,
    store: StateStore,
    pages: dict[str, ParsedPage],
    settings: ParseSettings,
    workers: int,
    reporter: Reporter,
) -> None:
    """Fetch, round by round, the further pages the parse stage asks for when it joins each paginated
    article (``complete_pagination`` run against the store, noting what it misses): each page from the
    capture closest to the first page's, each at most once."""
    attempted = {tuple(k.split("|", 1)) for k in store.result_keys("continuation")}
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
            result = await fetch_capture(finder, store, url, near)
            store.put_result("continuation", f"{near}|{url}", {"url": url, **result})
            reporter.advance("further pages")

        await run_pool(missing, one, workers)
        attempted_pairs.update(missing)
