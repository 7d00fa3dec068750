"""The parse stage over many raw snapshots: parallel over cores, each page under a time limit.

The collector stores raw snapshots (in ``build.sqlite``, read through ``wikihowqa.dataset.snapshots``: parse
does not
import the collector); anything that yields :class:`RawSnapshot` records can be parsed here, and a
:class:`SnapshotSource` (``get`` by archive URL, ``find`` by original URL for the continuation pages of a
paginated article) lets the stage re-parse a dataset folder. :class:`FolderSnapshots`
is such a source over a folder of files, for use before (or without) a crawl.
"""

from __future__ import annotations

import gzip
import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import islice
from pathlib import Path
from typing import BinaryIO

from pebble import ProcessExpired, ProcessFuture

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import write_json
from wikihowqa.core.progress import QUIET, Progress
from wikihowqa.core.records import Document
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import iter_documents
from wikihowqa.dataset.snapshots import STATE_FILE, RawSnapshot, SnapshotSource, snapshot_source
from wikihowqa.dataset.writers import write_documents
from wikihowqa.parse.page import (
    PARSE_ERROR,
    TIMEOUT,
    TOO_LARGE,
    ParsedPage,
    ParseSettings,
    parse_html,
    rejected,
)
from wikihowqa.parse.paginated import collect_pages
from wikihowqa.runtime.executor import Executor, LocalExecutor, WorkerLost, worker_count
from wikihowqa.runtime.workers import limited_pool

#: The stage's progress phase (``wikihowqa.core.progress``): pages parsed.
PAGES = "pages"

__all__ = ["FolderSnapshots", "RawSnapshot", "SnapshotSource", "parse_snapshots", "reparse_folder"]

_WAYBACK = re.compile(r"/web/(\d{4,14})[a-z]{0,3}_?/(.+)$")


def wayback_parts(archive_url: str) -> tuple[str, str] | None:
    """``(timestamp, original_url)`` of a Wayback playback URL, else ``None``."""
    match = _WAYBACK.search(archive_url)
    return (match.group(1), match.group(2)) if match else None


def _canonical(url: str) -> str:
    url = re.sub(r"^https?://(www\.)?", "", url.strip(), flags=re.I)
    return url.rstrip("/").lower()


class FolderSnapshots:
    """Raw snapshots in a folder: an index (``index.jsonl`` or a CDX-style ``cdx.jsonl``) naming each file.

    Index rows: ``{"file": "a.html", "url": "https://…", "archive_url": "…", "headers": {…}}``; instead of
    ``archive_url`` a row may give ``timestamp`` (as CDX rows do). Files are looked up beside the index or in
    its ``snapshots/`` folder and may be gzipped (``.gz``).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        index = next(
            (self.folder / n for n in ("index.jsonl", "cdx.jsonl") if (self.folder / n).is_file()), None
        )
        if index is None:
            raise DatasetError(f"{self.folder}: no index.jsonl or cdx.jsonl naming the raw snapshot files")
        self._by_archive: dict[tuple[str, str], dict] = {}
        self._by_url: dict[str, list[dict]] = {}
        with index.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DatasetError(f"{index}:{lineno}: invalid JSON ({exc.msg})") from None
                if not isinstance(row, dict) or not row.get("url") or not row.get("file"):
                    continue  # redirects and misses carry no file
                if str(row.get("statuscode", "200")) != "200":
                    continue
                parts = wayback_parts(row["archive_url"]) if row.get("archive_url") else None
                timestamp = parts[0] if parts else str(row.get("timestamp", ""))
                self._by_archive[(timestamp, _canonical(row["url"]))] = row
                row.setdefault("timestamp", timestamp)
                self._by_url.setdefault(_canonical(row["url"]), []).append(row)

    def __len__(self) -> int:
        return len(self._by_archive)

    def _load(self, row: dict, archive_url: str) -> RawSnapshot | None:
        for candidate in (self.folder / row["file"], self.folder / "snapshots" / row["file"]):
            if candidate.is_file():
                body = candidate.read_bytes()
                if candidate.suffix == ".gz":
                    body = gzip.decompress(body)
                return RawSnapshot(archive_url, row["url"], archive_url, body, dict(row.get("headers") or {}))
        return None

    def _closest(self, url: str, near: str | None) -> dict | None:
        rows = self._by_url.get(_canonical(url))
        if not rows:
            return None
        if near is None:
            return rows[0]
        target = int(near.ljust(14, "0")[:14])
        return min(rows, key=lambda r: abs(int(str(r.get("timestamp") or "0").ljust(14, "0")[:14]) - target))

    def get(self, archive_url: str) -> RawSnapshot | None:
        parts = wayback_parts(archive_url)
        if parts is None:
            row = self._closest(archive_url, None)
        else:
            row = self._by_archive.get((parts[0], _canonical(parts[1]))) or self._closest(parts[1], parts[0])
        return None if row is None else self._load(row, archive_url)

    def find(self, url: str, near: str | None = None) -> RawSnapshot | None:
        """The capture of ``url`` closest in time to ``near`` (a Wayback timestamp), or ``None``."""
        row = self._closest(url, near)
        if row is None:
            return None
        archive_url = row.get("archive_url") or f"/web/{row.get('timestamp', '')}id_/{row['url']}"
        return self._load(row, archive_url)

    def __iter__(self) -> Iterator[RawSnapshot]:
        for (timestamp, _), row in self._by_archive.items():
            snap = self._load(row, row.get("archive_url") or f"/web/{timestamp}id_/{row['url']}")
            if snap is not None:
                yield snap


def parse_one(snapshot: RawSnapshot, settings: ParseSettings) -> ParsedPage:
    """Parse one snapshot in a worker process of its own, under the stage's limits (``settings.timeout_s``,
    ``settings.max_memory_mb``): this is where the limits live, ``parse_html`` itself applies none."""
    return next(_bounded([snapshot], settings, 1))[1]


def _parse_page(snapshot: RawSnapshot, settings: ParseSettings) -> ParsedPage:
    """One page, in a worker of the stage's pool."""
    try:
        return parse_html(snapshot.body, snapshot.url, snapshot.headers, settings)
    except MemoryError:  # outside parse_html's own catch (building the result): the page, not the worker
        return rejected(snapshot.url, TOO_LARGE, f"over the worker's {settings.max_memory_mb} MB")


def _outcome(item: RawSnapshot, future: ProcessFuture, settings: ParseSettings) -> ParsedPage:
    try:
        return future.result()
    except TimeoutError:  # pebble killed the worker (and started another)
        return rejected(item.url, TIMEOUT, f"over {settings.timeout_s:g} s")
    except ProcessExpired:  # the worker died: a crash inside a C library, or the OOM killer
        return rejected(item.url, PARSE_ERROR, "the parser process crashed on this page")


def _bounded(
    items: Iterable[RawSnapshot],
    settings: ParseSettings,
    workers: int,
    tick: Callable[[int], None] = lambda n: None,
    *,
    cap_memory: bool = True,
) -> Iterator[tuple[str, ParsedPage]]:
    """``(key, page)`` in input order, each page a task of a ``pebble`` pool of ``workers`` processes with
    its own time limit; ``cap_memory``: the workers' address space is capped at ``settings.max_memory_mb``
    (not on a cluster's workers, whose address space holds the cluster client's mappings). A bounded
    number of pages is in flight, so a huge input is never all in memory."""
    stream = iter(items)
    pending: deque[tuple[RawSnapshot, ProcessFuture]] = deque()
    pool = limited_pool(workers, memory_mb=settings.max_memory_mb if cap_memory else None)

    def submit(n: int) -> None:
        for item in islice(stream, n):
            pending.append((item, pool.schedule(_parse_page, (item, settings), timeout=settings.timeout_s)))

    finished = False
    try:
        submit(workers * 4)
        while pending:
            item, future = pending.popleft()
            page = _outcome(item, future, settings)
            submit(1)
            tick(1)
            yield item.key, page
        finished = True
    finally:
        if finished:
            pool.close()
        else:  # abandoned (the consumer stopped, or an error): pages still running are not waited for
            pool.stop()
        pool.join()


def _parse_chunk(chunk: list[RawSnapshot], settings: ParseSettings) -> list[ParsedPage]:
    """A chunk on a cluster's worker: each page in a child process of it, under the time limit."""
    return [page for _, page in _bounded(chunk, settings, 1, cap_memory=False)]


def _chunks(items: Iterable[RawSnapshot], size: int) -> Iterator[list[RawSnapshot]]:
    chunk: list[RawSnapshot] = []
    for item in items:
        chunk.append(item)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def parse_snapshots(
    items: Iterable[RawSnapshot],
    settings: ParseSettings | None = None,
    *,
    workers: int | None = None,
    chunk_size: int = 8,
    progress: Progress = QUIET,
    executor: Executor | None = None,
) -> Iterator[tuple[str, ParsedPage]]:
    """``(key, page)`` for every snapshot, in input order. Here (the default executor): each page is a task
    of a ``pebble`` pool of ``workers`` processes (default: all usable CPUs; 1: one worker process), killed
    past ``settings.timeout_s`` (``timeout``) and capped at ``settings.max_memory_mb`` (``too_large``); a
    worker that dies costs only its page (``parse_error``). On a cluster (a distributed ``executor``): chunks
    of ``chunk_size`` pages, each page in a child process of the cluster's worker under the same time
    limit; should the cluster lose a chunk for good, the rest is parsed here. ``progress`` advances phase
    ``pages`` as pages are done."""
    settings = settings or ParseSettings()
    executor = executor or LocalExecutor(workers)
    tick = partial(progress.advance, PAGES)
    if not executor.distributed:
        yield from _bounded(items, settings, executor.parallelism, tick)
        return
    stream = _chunks(items, chunk_size)
    sent: deque[list[RawSnapshot]] = deque()  # chunks handed to the executor, not yet back

    def feed() -> Iterator[list[RawSnapshot]]:
        for chunk in stream:
            sent.append(chunk)
            yield chunk

    try:
        for pages in executor.map(partial(_parse_chunk, settings=settings), feed()):
            chunk = sent.popleft()
            tick(len(chunk))
            yield from ((item.key, page) for item, page in zip(chunk, pages, strict=True))
    except WorkerLost:
        rest = (item for chunk in [*sent, *stream] for item in chunk)
        yield from _bounded(rest, settings, worker_count(None), tick)


def complete_pagination(
    page: ParsedPage, source: SnapshotSource | None, settings: ParseSettings, archive_url: str = ""
) -> ParsedPage:
    """Join a paginated article's continuation pages when ``source`` holds them (setting ``join``), taking
    for each the capture closest in time to the first page's (``archive_url``)."""
    if settings.pagination != "join" or source is None or not page.ok or not page.pagination.paginated:
        return page
    parts = wayback_parts(archive_url)
    near = parts[0] if parts else None

    def fetch(url: str) -> ParsedPage | None:
        snapshot = source.find(url, near)
        return None if snapshot is None else parse_one(replace(snapshot, url=url), settings)

    return collect_pages(page, fetch, settings.max_pages, settings.max_words)


# --------------------------------------------------------------------------- re-parsing a dataset folder

PROGRESS_FILE = ".parse-progress.jsonl"


@dataclass
class ReparseReport:
    """What ``wikihowqa parse`` did: documents re-parsed, kept as they were, and dropped (by reason)."""

    parsed: int = 0
    unchanged: int = 0  # no raw snapshot found for the document
    resumed: int = 0  # taken from an interrupted run's progress file
    rejected: dict[str, int] = field(default_factory=dict)
    joined: int = 0  # paginated articles whose further pages were joined
    flagged: int = 0  # paginated articles left as one page
    comments_removed: int = 0
    truncated: int = 0  # kept with the text they have, but the page was cut off (flag ``truncated``)


def _settings_key(settings: ParseSettings) -> str:
    return json.dumps(settings.as_dict(), sort_keys=True)


def open_build_cache(folder: Path) -> SnapshotSource:
    """The collector's raw-snapshot cache of a dataset folder (``build.sqlite``)."""
    db = Path(folder) / STATE_FILE
    if not db.is_file():
        raise DatasetError(f"{folder}: no {STATE_FILE} with raw snapshots (pass --raw DIR to parse files)")
    return snapshot_source(db)


def reparse_folder(
    folder: Path,
    source: SnapshotSource,
    settings: ParseSettings,
    *,
    workers: int | None = None,
    progress: Progress = QUIET,
    executor: Executor | None = None,
) -> ReparseReport:
    """Re-parse every document of a dataset folder from its raw snapshot and rewrite ``documents`` in place.

    Resumable: finished pages go to a progress file as they come, and a rerun with the same settings
    skips them; the documents file and manifest are replaced atomically at the end. Streaming: raw
    snapshots are read as the pool takes them, parsed rows stay in the progress file (only their offsets
    are held) and the documents are rewritten one at a time, so memory does not grow with the corpus.
    """
    dataset = DatasetFolder(Path(folder))
    target = dataset.documents_path
    progress_path = Path(folder) / PROGRESS_FILE
    key = _settings_key(settings)
    done = _finished_rows(progress_path, key)  # archive URL -> offset of its row in the progress file
    report = ReparseReport(resumed=len(done))
    wanted = dict.fromkeys(doc.archive_url for doc in iter_documents(target))
    pending = [archive_url for archive_url in wanted if archive_url not in done]
    progress.phase(PAGES, len(pending))

    def snapshots() -> Iterator[RawSnapshot]:
        for archive_url in pending:
            snapshot = source.get(archive_url)
            if snapshot is None:
                progress.advance(PAGES)  # kept as it was
            else:
                yield replace(snapshot, key=archive_url)

    with progress_path.open("ab") as log:
        if log.tell() and _last_byte(progress_path) != b"\n":
            log.write(b"\n")  # after the line a kill cut short
        for archive_url, page in parse_snapshots(
            snapshots(), settings, workers=workers, progress=progress, executor=executor
        ):
            page = complete_pagination(page, source, settings, archive_url)
            row = {"settings": key, "archive_url": archive_url, "rejection": page.rejection}
            if page.ok:
                row.update(
                    text=page.text,
                    markdown=page.markdown,
                    title=page.title,
                    passages=list(page.passages),
                    info=page.info(),
                )
            done[archive_url] = log.tell()
            log.write((json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8"))
            log.flush()
    with progress_path.open("rb") as rows:
        write_documents(target, _reparsed(iter_documents(target), done, rows, report))
    manifest = dataset.manifest()
    manifest["parse"] = {"settings": settings.as_dict(), "report": report.__dict__}
    write_json(Path(folder) / "manifest.json", manifest)
    progress_path.unlink(missing_ok=True)
    return report


def _finished_rows(path: Path, key: str) -> dict[str, int]:
    """Offsets of the rows an earlier run of these settings finished (a torn last line is skipped)."""
    done: dict[str, int] = {}
    if not path.is_file():
        return done
    offset = 0
    with path.open("rb") as fh:
        for line in fh:
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                row = None  # the line a kill cut short
            if isinstance(row, dict) and row.get("settings") == key:
                done[row["archive_url"]] = offset
            offset += len(line)
    return done


def _last_byte(path: Path) -> bytes:
    with path.open("rb") as fh:
        fh.seek(-1, 2)
        return fh.read(1)


def _reparsed(
    documents: Iterator[Document], done: dict[str, int], rows: BinaryIO, report: ReparseReport
) -> Iterator[Document]:
    """Each document with its parsed row (read back from the progress file), counted in ``report``."""
    for doc in documents:
        offset = done.get(doc.archive_url)
        if offset is None:
            report.unchanged += 1
            yield doc
            continue
        rows.seek(offset)
        row = json.loads(rows.readline())
        if row["rejection"]:
            report.rejected[row["rejection"]] = report.rejected.get(row["rejection"], 0) + 1
            continue
        info = row["info"]
        report.parsed += 1
        report.comments_removed += "comments_removed" in info["flags"]
        report.truncated += "truncated" in info["flags"]
        report.joined += "pages_joined" in info["flags"]
        report.flagged += "paginated" in info["flags"] and "pages_joined" not in info["flags"]
        yield replace(
            doc,
            parsed_text=row["text"],
            parsed_md=row["markdown"],
            title=row["title"] or doc.title,
            passages=tuple(row["passages"]),
            extra={**doc.extra, "parse": info},
        )


def parse_dataset(
    folder: Path,
    settings: ParseSettings | None = None,
    *,
    raw: Path | None = None,
    executor: Executor | None = None,
    progress: Progress = QUIET,
) -> ReparseReport:
    """Parse (again) a dataset folder's documents from the raw snapshots its build stored, or from a folder of
    raw snapshots (``raw``); the library form of ``wikihowqa parse`` (see :func:`reparse_folder`)."""
    source = FolderSnapshots(raw) if raw is not None else open_build_cache(folder)
    return reparse_folder(folder, source, settings or ParseSettings(), executor=executor, progress=progress)
