"""A hydration kept as WARC files (``warcio``), and rebuilt from them without the network.

For each capture the release names, in plan order: the captures met on the way (the archive's answer at
the named time when it was a 404 or a redirect capture, each redirect capture followed), then the capture
served, each as a ``response`` record a Wayback tool can replay (``WARC-Target-URI`` the original URL,
``WARC-Date`` the capture's time, the archived bytes with their HTTP status and headers,
``WARC-Source-URI`` where in the archive they were fetched); then a ``metadata`` record
(``application/json``, ``WARC-Concurrent-To`` the served capture's record) holding what the capture rule
found (the outcome, with its redirects, or why there was no capture) and the headers exactly as received.
``hydrate --from-warc`` loads the served captures and the outcomes into the state store, as the network
run stored them, and the same parse and assembly then give the same output, byte for byte. A file that
cannot be read to its end (cut short, 0 bytes, not a WARC, a corrupted gzip member, a record shorter than
its ``Content-Length`` or failing its digest) stops the rebuild with one line naming the file and the byte
offset of the damaged record or gzip member, never a partial output that reads as whole.
"""

from __future__ import annotations

import contextlib
import http
import io
import json
import zlib
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wikihowqa import __version__
from wikihowqa.collect.archive_queries import http_date_timestamp
from wikihowqa.collect.http import Response
from wikihowqa.collect.outcomes import FETCHED
from wikihowqa.collect.progress import Reporter
from wikihowqa.collect.store import StateStore
from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import atomic_write
from wikihowqa.dataset.snapshots import StoredResponse

if TYPE_CHECKING:
    from wikihowqa.release.plan import Plan

WARC_FILE = "wikihowqa-hydration.warc.gz"
#: Headers that describe the transfer, not the capture: the stored body is already decoded and whole.
_TRANSFER = {"content-length", "transfer-encoding", "content-encoding"}


def warc_date(timestamp: str) -> str:
    """``20190811093000`` → ``2019-08-11T09:30:00Z``."""
    moment = datetime.strptime(timestamp[:14].ljust(14, "0"), "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _status_line(status: int) -> str:
    try:
        return f"{status} {http.HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status} Unknown"


def _played_on_the_way(
    store: StateStore, playback_url: str | None, named: tuple[str, str], outcome: dict[str, Any]
) -> list[tuple[str, str, StoredResponse]]:
    """The other captures the rule played for a named one, found in the response cache under the raw
    playback requests that fetched them: the capture the archive chose at the named time (a 404, a
    redirect) and each redirect capture followed. ``(original url, timestamp, response)``, in order."""
    if playback_url is None:
        return []
    asked = [named]
    for hop in outcome.get("redirects") or []:
        asked += [(hop["timestamp"], hop["from"]), (named[0], hop["to"])]
    found: dict[str, tuple[str, str, StoredResponse]] = {}
    for timestamp, url in asked:
        stored = store.stored_response(f"{playback_url}{timestamp}id_/{url}")
        moment = http_date_timestamp(stored.headers.get("memento-datetime")) if stored else None
        if stored is not None and moment is not None:
            found.setdefault(f"{moment}|{url}", (url, moment, stored))
    return list(found.values())


def _response_record(writer: Any, url: str, timestamp: str, stored: StoredResponse) -> Any:
    from warcio.statusandheaders import StatusAndHeaders

    headers = [(k, v) for k, v in stored.headers.items() if k.lower() not in _TRANSFER]
    headers.append(("Content-Length", str(len(stored.content))))
    return writer.create_warc_record(
        url,
        "response",
        payload=io.BytesIO(stored.content),
        http_headers=StatusAndHeaders(_status_line(stored.status), headers, protocol="HTTP/1.1"),
        warc_headers_dict={"WARC-Date": warc_date(timestamp), "WARC-Source-URI": stored.url},
    )


def write_warc(
    store: StateStore,
    the_plan: Plan,
    outcomes: Mapping[str, dict[str, Any]],
    folder: Path,
    playback_url: str | None = None,
) -> Path:
    """Every named capture's outcome, and every capture fetched for it — the one served, and (given the
    archive's ``playback_url``) the redirect and error captures met on the way, so that Wayback software
    replaying the file meets what the archive answered — into ``folder/`` :data:`WARC_FILE`."""
    from warcio.warcwriter import WARCWriter

    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise DatasetError(f"{folder}: exists and is not a folder (--warc takes a folder)")
    path = folder / WARC_FILE
    seen: set[str] = set()
    with atomic_write(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        info = {"software": f"wikihowqa/{__version__} hydrate", "format": "WARC File Format 1.1"}
        writer.write_record(writer.create_warcinfo_record(WARC_FILE, info))
        for capture in the_plan.named:
            key = capture.task.key
            if key in seen:
                continue
            seen.add(key)
            outcome = outcomes[key]
            entry: dict[str, Any] = {"key": key, "named": capture.archive_url, "outcome": outcome}
            warc_headers: dict[str, str] = {}
            found = store.snapshot(outcome["archive_url"]) if outcome["status"] == FETCHED else None
            stored = store.stored_response(found[2]) if found is not None else None
            named = (capture.timestamp, capture.url)
            for url, timestamp, other in _played_on_the_way(store, playback_url, named, outcome):
                if stored is None or other.url != stored.url:
                    writer.write_record(_response_record(writer, url, timestamp, other))
            if found is not None and stored is not None:
                record = _response_record(writer, outcome["original"], outcome["timestamp"], stored)
                writer.write_record(record)
                warc_headers["WARC-Concurrent-To"] = record.rec_headers.get_header("WARC-Record-ID")
                entry["response"] = {
                    "key": found[2],
                    "url": stored.url,
                    "status": stored.status,
                    "headers": stored.headers,
                }
            body = json.dumps(entry, ensure_ascii=False, sort_keys=True).encode("utf-8")
            writer.write_record(
                writer.create_warc_record(
                    capture.archive_url,
                    "metadata",
                    payload=io.BytesIO(body),
                    warc_content_type="application/json",
                    warc_headers_dict=warc_headers,
                )
            )
    return path


def warc_paths(folder: Path) -> list[Path]:
    """The WARC files of a folder (``*.warc.gz``, ``*.warc``), in name order; none is an error."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DatasetError(f"{folder}: no such folder (--from-warc takes the folder --warc wrote)")
    paths = sorted(p for p in folder.iterdir() if p.name.endswith((".warc.gz", ".warc")))
    if not paths:
        raise DatasetError(f"{folder}: holds no .warc or .warc.gz file")
    return paths


def _printable(text: str, limit: int = 160) -> str:
    """A message safe for a terminal: control characters and raw bytes escaped, a long one cut."""
    shown = " ".join(ascii(text)[1:-1].split())
    return shown if len(shown) <= limit else shown[:limit] + "..."


def _damaged(path: Path, offset: int, why: str) -> DatasetError:
    return DatasetError(
        f"{path}: damaged at byte {offset:,} ({_printable(why)}); the WARC file cannot be read to its end"
    )


def _check_gzip(path: Path, block: int = 1 << 20) -> None:
    """Every gzip member of ``path`` whole, in one streaming pass (output discarded, ``block`` bytes at a
    time at most): a corrupted member or a file cut inside one is named with the member's offset before
    anything of the file is loaded."""
    start = consumed = 0  # where the current member began; bytes of the file inflated so far
    inflater: Any = None
    with path.open("rb") as fh:
        while chunk := fh.read(block):
            while chunk:
                if inflater is None:
                    inflater, start = zlib.decompressobj(16 + zlib.MAX_WBITS), consumed
                try:
                    inflater.decompress(chunk, block)
                    while inflater.unconsumed_tail and not inflater.eof:
                        inflater.decompress(inflater.unconsumed_tail, block)
                except zlib.error as exc:
                    if "header" not in str(exc):
                        why = f"a corrupted gzip member: {exc}"
                    elif start == 0:
                        why = "not gzip data, though the name ends in .gz"
                    else:
                        why = "bytes after the last gzip member that are not one"
                    raise _damaged(path, start, why) from None
                rest = inflater.unused_data if inflater.eof else b""
                consumed += len(chunk) - len(rest)
                chunk = rest
                if inflater.eof:
                    inflater = None
    if inflater is not None:
        raise _damaged(path, start, "the file ends inside a gzip member: cut short")


def _records(path: Path) -> Iterator[tuple[int, Any, bytes]]:
    """``(offset, record, content)`` for each record of one WARC file, each read whole and checked: its
    length against its ``Content-Length``; its bytes by the gzip members' CRC-32 (``.warc.gz``, before
    any record is read) or else by its block and payload digests. warcio's own warnings (which quote the
    damaged bytes) are caught, not printed, and name the record instead."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    if path.stat().st_size == 0:
        raise DatasetError(f"{path}: an empty file (0 bytes), not a WARC file")
    compressed = path.name.endswith(".gz")
    if compressed:
        _check_gzip(path)  # each member's CRC-32 checked: the records' digests would check the same bytes
    read = 0
    with path.open("rb") as fh:
        iterator = ArchiveIterator(fh, check_digests=False if compressed else "raise")
        records = iter(iterator)
        while True:
            noise = io.StringIO()
            try:
                with contextlib.redirect_stderr(noise):
                    record = next(records, None)
                    offset = iterator.offset
                    if record is not None:
                        content = record.content_stream().read()
                        while record.raw_stream.read(1 << 16):  # what the content did not need
                            pass
            except (ArchiveLoadFailed, zlib.error, EOFError, ValueError) as exc:
                raise _damaged(path, iterator.offset, str(exc) or type(exc).__name__) from None
            if noise.getvalue():  # warcio met bytes where a record should start
                raise _damaged(path, offset, "a record longer or shorter than its Content-Length")
            if record is None:
                break
            if getattr(record.raw_stream, "limit", None) != 0:
                raise _damaged(path, offset, f"a {record.rec_type} record cut short")
            read += 1
            yield offset, record, content
    if not read:
        raise DatasetError(f"{path}: holds no WARC record")


def load_warc(store: StateStore, paths: list[Path], reporter: Reporter) -> int:
    """Load what :func:`write_warc` wrote into ``store``, as a network run stores it; returns how many
    named captures were read. A response waits only until its metadata record (the next one) arrives."""
    count = 0
    reporter.phase("captures read (WARC)", None)
    for path in paths:
        pending: dict[str, bytes] = {}
        for offset, record, content in _records(path):
            record_id = record.rec_headers.get_header("WARC-Record-ID")
            if record.rec_type == "response":
                pending[record_id] = content
                continue
            if record.rec_type != "metadata" or "json" not in (
                record.rec_headers.get_header("Content-Type") or ""
            ):
                continue
            try:
                entry = json.loads(content)
                key, outcome = entry["key"], entry["outcome"]
            except (ValueError, KeyError, TypeError):
                raise DatasetError(
                    f"{path}: a metadata record that hydrate did not write (at byte {offset:,})"
                ) from None
            response = entry.get("response")
            if response is not None:
                body = pending.pop(record.rec_headers.get_header("WARC-Concurrent-To") or "", None)
                if body is None:
                    raise DatasetError(
                        f"{path}: the capture of {entry['named']} is missing its response record"
                    )
                stored = Response(response["url"], response["status"], response["headers"], body)
                store.put_response(response["key"], stored)
                store.put_snapshot(
                    outcome["archive_url"], outcome["original"], outcome["timestamp"], response["key"]
                )
            store.put_result("reference", key, outcome)
            pending.clear()  # the captures met on the way: for Wayback software, not for the rebuild
            count += 1
            reporter.advance("captures read (WARC)")
        if pending:  # hydrate writes each capture's metadata record after its responses
            raise DatasetError(
                f"{path}: ends with a response record and no metadata record after it; the WARC file was "
                "cut short"
            )
    return count
