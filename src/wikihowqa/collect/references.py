"""Phase 2 of the collector: every distinct cited URL once, its closest archived capture, its raw bytes.

A URL cited by several articles is looked up at the reference time of the first of them (by article id):
the capture with status 200 closest to when that article was last modified (or created, as set).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from wikihowqa.collect.articles import ArticleRecord
from wikihowqa.collect.http import FetchError
from wikihowqa.collect.pool import run_pool
from wikihowqa.collect.progress import Reporter
from wikihowqa.collect.store import StateStore
from wikihowqa.collect.wayback import Capture, CdxError, Wayback, wayback_timestamp

# Outcomes of a reference, in funnel order.
NO_SNAPSHOT, FETCH_FAILED, FETCHED = "no_snapshot", "fetch_failed", "fetched"
EMPTY_BODY, NON_HTML, EMPTY_TEXT, KEPT = "empty_body", "non_html", "empty_text", "kept"


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


def forget_failed(wayback: Wayback, store: StateStore) -> list[str]:
    """Forget the references an earlier run gave up on (``--retry-failed``), so they are asked again.

    Their outcome goes, and so does the stored answer that failed: a non-retried error (a CDX or playback
    501, the 403 the Wayback Machine sends for a blocked capture) was kept in the response cache and
    would otherwise be read back instead of asked for. The CDX answer of a capture whose playback failed
    stays: it was a good answer, and a CDX request costs seconds at the real server's rate. Returns the
    keys of the references forgotten."""
    failed = {k: v for k, v in store.results("reference").items() if v and v["status"] == FETCH_FAILED}
    stale = []
    for outcome in failed.values():
        if outcome.get("failed_at") == "cdx":
            stale.append(wayback.cdx_key(outcome["url"], outcome["reference_time"]))
        elif "timestamp" in outcome and "original" in outcome:
            stale.append(wayback.raw_key(Capture(outcome["timestamp"], outcome["original"], "", "")))
    store.delete_responses(stale)
    store.delete_results("reference", failed)
    return list(failed)


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
    store.put_snapshot(result["archive_url"], capture.original, capture.timestamp, wayback.raw_key(capture))
    return {**result, "status": FETCHED}


async def _reference(wayback: Wayback, store: StateStore, task: ReferenceTask, reporter: Reporter) -> dict:
    result = await fetch_capture(wayback, store, task.url, task.timestamp)
    reporter.advance("snapshots (CDX)")
    return {"url": task.url, "reference_time": task.timestamp, **result}
