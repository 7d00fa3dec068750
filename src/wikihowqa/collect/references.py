"""Phase 2 of the collector: every distinct cited URL once, its archived capture, its raw bytes.

A URL cited by several articles is looked up at the reference time of the first of them (by article id):
the capture the rule of :mod:`wikihowqa.collect.captures` chooses for when that article was last
modified (or created, as set) — the closest verified 200 capture, redirect captures followed inside the
archive.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from wikihowqa.collect.archive_queries import wayback_timestamp
from wikihowqa.collect.articles import ArticleRecord
from wikihowqa.collect.captures import CaptureFinder
from wikihowqa.collect.outcomes import DEFERRED, FETCHED, NO_SNAPSHOT, RETRIED
from wikihowqa.collect.pool import run_pool
from wikihowqa.collect.progress import Reporter
from wikihowqa.collect.store import StateStore, StoredResults
from wikihowqa.core.errors import WikihowqaError

# FETCHED is re-exported: the documents phase reads it from here.
__all__ = [
    "FETCHED",
    "ArchiveError",
    "ReferenceTask",
    "fetch_capture",
    "fetch_references",
    "fetch_tasks",
    "plan_references",
]


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


#: How many lookups, one at a time, may fail like a misconfigured endpoint before the build stops.
PROBES = 3


class ArchiveError(WikihowqaError):
    """The archive's endpoints answer like wrong settings: the build stops instead of rejecting all."""


async def fetch_tasks(
    finder: CaptureFinder,
    store: StateStore,
    tasks: list[ReferenceTask],
    workers: int,
    reporter: Reporter,
) -> Mapping[str, dict[str, Any]]:
    """Each task's outcome (the ``reference`` result), keyed by :attr:`ReferenceTask.key`: ``build``'s
    references and ``hydrate``'s named captures alike; each read from the store when asked for, so
    no run holds every outcome at once.

    The first lookups run one at a time: while each fails the way a wrong endpoint does (connection
    refused, a CDX 404 or an answer that is no CDX result, a playback without ``Memento-Datetime``),
    nothing is stored, and after :data:`PROBES` of them the build stops with one line naming the endpoint
    and its answer, rather than writing an empty dataset. Lookups an earlier run deferred (the archive
    asked it to come back later) are asked again."""
    forget_deferred(store)
    done = store.result_keys("reference")
    reporter.phase("snapshots (CDX)", len(tasks))
    reporter.phase("snapshots fetched", len(tasks))
    already = sum(1 for t in tasks if t.key in done)
    reporter.advance("snapshots (CDX)", already)
    reporter.advance("snapshots fetched", already)
    todo = [t for t in tasks if t.key not in done]

    def keep(task: ReferenceTask, result: dict[str, Any]) -> None:
        store.put_result("reference", task.key, result)
        done.add(task.key)
        reporter.advance("snapshots (CDX)")
        reporter.advance("snapshots fetched")

    held: list[tuple[ReferenceTask, dict[str, Any]]] = []
    while todo and len(held) < PROBES:
        task = todo.pop(0)
        result = await _reference(finder, store, task)
        held.append((task, result))
        if not result.get("endpoint"):
            break
    if held and all(r.get("endpoint") for _, r in held) and (len(held) == PROBES or not todo):
        first = held[0][1]
        endpoint, detail = first["endpoint"], str(first.get("detail"))
        detail = detail.removeprefix(f"{endpoint} ").removeprefix("answered ")
        raise ArchiveError(
            f"{endpoint}: the first {len(held)} lookup{'s' * (len(held) != 1)} failed ({detail}); "
            f"check {finder.wayback.endpoints.options_for(endpoint)}"
        )
    for task, result in held:
        keep(task, result)

    async def one(task: ReferenceTask) -> None:
        keep(task, await _reference(finder, store, task))

    await run_pool(todo, one, workers)
    # Read from the store one at a time when asked for (a release of any size: flat memory).
    outcomes = StoredResults(store, "reference", (t.key for t in tasks))
    if len(outcomes) >= PROBES and all(o["status"] == NO_SNAPSHOT for o in outcomes.values()):
        # An archive that knows none of the cited pages is far likelier a wrong setting (pywb answers
        # an empty CDX result for a collection it does not have) than a true answer: no empty dataset.
        where, options = _lookup_endpoints(finder)
        raise ArchiveError(
            f"{where}: none of the {len(outcomes)} cited pages has a capture there; check {options} "
            "(the archive's collection) and run again"
        )
    return outcomes


async def fetch_references(
    finder: CaptureFinder,
    store: StateStore,
    tasks: list[ReferenceTask],
    workers: int,
    reporter: Reporter,
) -> dict[str, dict[str, Any]]:
    """Each reference's outcome (the ``reference`` result), keyed by cited URL (:func:`fetch_tasks`)."""
    outcomes = await fetch_tasks(finder, store, tasks, workers, reporter)
    return {t.url: outcomes[t.key] for t in tasks}


def _lookup_endpoints(finder: CaptureFinder) -> tuple[str, str]:
    """The endpoints the lookup asked for captures, and the options that set them."""
    endpoints = finder.wayback.endpoints
    if finder.lookup == "memento":
        asked = [u for u in (endpoints.timegate_url, endpoints.timemap_url) if u]
        return " and ".join(asked), " or ".join(endpoints.options_for(u) for u in asked)
    return str(endpoints.cdx_url), "--cdx-url, --playback-url or --wayback-url"


def forget_failed(store: StateStore) -> list[str]:
    """Forget the references an earlier run gave up on (``--retry-failed``), so they are asked again:
    failed lookups and playbacks (``fetch_failed``) and captures whose playback did not confirm them
    (:data:`~wikihowqa.collect.outcomes.RETRIED`), which a recovered archive may answer otherwise.

    Their outcome goes, and so do the stored answers that failed (``stale``): a non-retried error (a
    CDX or playback 501, the 403 the Wayback Machine sends for a blocked capture) was kept in the
    response cache and would otherwise be read back instead of asked for. A good CDX answer of a
    capture whose playback failed stays: a CDX request costs seconds at the real server's rate.
    Returns the keys of the references forgotten."""
    failed = {k: v for k, v in store.iter_results("reference") if v and v["status"] in RETRIED}
    stale = [key for outcome in failed.values() for key in outcome.get("stale", [])]
    store.delete_responses(stale)
    store.delete_results("reference", failed)
    return list(failed)


def forget_deferred(store: StateStore) -> list[str]:
    """Forget the references an earlier run deferred (the archive asked for a longer ``Retry-After``
    than the client waits), so that this run asks for them again; returns their keys."""
    deferred = [k for k, v in store.iter_results("reference") if v and v.get("status") == DEFERRED]
    store.delete_results("reference", deferred)
    return deferred


async def fetch_capture(finder: CaptureFinder, store: StateStore, url: str, timestamp: str) -> dict[str, Any]:
    """The capture the rule chooses for ``url`` at ``timestamp``, its raw bytes stored: the outcome says
    ``fetched`` (with ``archive_url``) or why not (:mod:`wikihowqa.collect.outcomes`; with where and
    why for a failure)."""
    lookup = await finder.find(url, timestamp)
    result = lookup.outcome()
    if lookup.status == "found" and lookup.played is not None:
        store.put_snapshot(
            lookup.archive_url or "", lookup.original or url, lookup.timestamp or "", lookup.played.key
        )
    return result


async def _reference(finder: CaptureFinder, store: StateStore, task: ReferenceTask) -> dict:
    result = await fetch_capture(finder, store, task.url, task.timestamp)
    return {"url": task.url, "reference_time": task.timestamp, **result}
