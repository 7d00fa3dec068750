"""The Wayback Machine's CDX server (``/cdx/search/cdx``) and raw playback (``/web/<ts>id_/<url>``).

Follows the Internet Archive's wayback-cdx-server README: fields ``urlkey timestamp original mimetype
statuscode digest length``; ``url`` with ``matchType`` exact/prefix/host/domain (or a ``*`` wildcard);
``output=json`` (first row = field names; no match = ``[]``) or plain text; ``fl``; any number of
``filter=[!]field:regex`` (Java-style full match; a name that is not a field filters the whole line);
``collapse=field[:N]``; ``from``/``to`` (1–14 digits, inclusive); ``sort=closest&closest=<ts>``
(nearest first, ties to the earlier capture) and ``sort=reverse``; ``offset``; ``limit`` (negative =
the last N). URLs match by SURT key, computed with the Internet Archive's own ``surt`` package, so
``http://`` vs ``https://``, ``www.``, a trailing slash or query-parameter order do not matter.

Playback picks the capture of that SURT key nearest the requested timestamp (any status, ties to the
earlier), and answers its raw bytes with its recorded status, its ``Content-Type`` exactly as recorded
(else its CDX mimetype), the other recorded headers as ``X-Archive-Orig-*``, ``Memento-Datetime`` and
``Link: <original>; rel="original"``. A 3xx capture answers its status with ``Location`` rewritten to
``/web/<ts>id_/<target>``. Without the ``id_``-style flag, an inexact timestamp redirects (302) to the
capture's own timestamp, as web.archive.org does; an exact one serves the same raw bytes. A percent-encoded
original URL (``https%3A//host/path%3Fq%3D1``, what ``urllib.parse.quote`` makes) is decoded first.
A capture may say how playback disagrees with the index (:class:`~wikihowqa.replay.corpus.Playback`:
another status, no ``Memento-Datetime``, a plain redirect elsewhere), as real archives sometimes do.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from email.utils import format_datetime
from urllib.parse import unquote, urljoin

from wikihowqa.core.retry_after import http_date
from wikihowqa.replay.corpus import Capture, surt_key
from wikihowqa.replay.reply import Reply

FIELDS = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")
_PLAYBACK = re.compile(r"^/web/(\d{1,14})([a-z]{2}_)?/(.*)$", re.S)
_ENCODED_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*%3A(?:/|%2F)", re.I)


class CdxError(ValueError):
    """A bad CDX query: the server answers 400 with this text."""


def _text(status: int, message: str) -> Reply:
    return Reply(status, {"Content-Type": "text/plain; charset=utf-8"}, (message + "\n").encode())


def pad_low(ts: str, name: str) -> str:
    """A 1–14 digit timestamp as its earliest full timestamp (``2017`` → ``20170101000000``)."""
    if not ts.isdigit() or not 1 <= len(ts) <= 14:
        raise CdxError(f"Invalid {name} timestamp {ts!r}: expected 1 to 14 digits")
    if len(ts) < 4:
        ts = ts.ljust(4, "0")
    full = ts + "0101000000"[len(ts) - 4 :] if len(ts) < 14 else ts
    return full


def pad_high(ts: str, name: str) -> str:
    if not ts.isdigit() or not 1 <= len(ts) <= 14:
        raise CdxError(f"Invalid {name} timestamp {ts!r}: expected 1 to 14 digits")
    return ts.ljust(14, "9")


def seconds(ts14: str) -> float:
    """Seconds since the epoch of a 14-digit timestamp, clamping impossible dates (month 00, …)."""
    y, mo, d = int(ts14[0:4]), int(ts14[4:6]), int(ts14[6:8])
    h, mi, s = int(ts14[8:10]), int(ts14[10:12]), int(ts14[12:14])
    mo = min(max(mo, 1), 12)
    d = max(d, 1)
    while True:
        try:
            return datetime(max(y, 1), mo, d, min(h, 23), min(mi, 59), min(s, 59), tzinfo=UTC).timestamp()
        except ValueError:
            d -= 1


#: How the archive answers: as the Internet Archive does, or as pywb does (see :class:`Archive`).
STYLES = ("ia", "pywb")
_PYWB_NAMES = {"original": "url", "mimetype": "mime", "statuscode": "status"}


class Archive:
    """The captures of a corpus, sorted as a CDX index is (by SURT key, then timestamp).

    ``style="pywb"`` answers as pywb 2.10 does where it differs from the Internet Archive (checked
    against the real one): CDX ``output=json`` as one JSON object per line with pywb's field names
    (``url``, ``mime``, ``status``); a query whose filters match nothing answered with the URL's other
    captures all the same, marked ``"is_fuzzy": "1"`` (pywb's fuzzy fallback ignores ``filter``); and a
    redirect capture played back with its ``Location`` as captured, pointing at the live web."""

    def __init__(
        self, captures: Sequence[Capture], snapshots: Mapping[str, bytes], *, style: str = "ia"
    ) -> None:
        if style not in STYLES:
            raise ValueError(f"archive style must be one of {', '.join(STYLES)}, got {style!r}")
        self.style = style
        self.captures = sorted(captures, key=lambda c: (c.urlkey, c.timestamp, c.url))
        self.snapshots = snapshots
        self.by_key: dict[str, list[Capture]] = defaultdict(list)
        for c in self.captures:
            self.by_key[c.urlkey].append(c)

    def body(self, capture: Capture) -> bytes:
        return self.snapshots.get(capture.file, b"") if capture.file else b""

    # ------------------------------------------------------------------ CDX

    def cdx(self, params: Mapping[str, str | list[str]]) -> Reply:
        fuzzy = False
        try:
            rows, fields = self._query(params)
            if not rows and self.style == "pywb" and _many(params, "filter"):
                rows, fields = self._query({k: v for k, v in params.items() if k != "filter"})
                fuzzy = bool(rows)
        except CdxError as exc:
            return _text(400, f"Bad Request: {exc}")
        if self.style == "pywb" and _one(params, "output") == "json":
            names = [_PYWB_NAMES.get(f, f) for f in fields]
            lines = []
            for r in rows:
                obj = dict(zip(names, r, strict=True))
                if fuzzy:
                    obj["is_fuzzy"] = "1"
                lines.append(json.dumps(obj) + "\n")
            return Reply(200, {"Content-Type": "text/x-ndjson"}, "".join(lines).encode())
        if _one(params, "output") == "json":
            table = [list(fields), *rows] if rows else []
            body = "[" + ",\n".join(json.dumps(r) for r in table) + "]"
            return Reply(200, {"Content-Type": "application/json"}, (body + "\n").encode())
        text = "".join(" ".join(r) + "\n" for r in rows)
        return Reply(200, {"Content-Type": "text/plain; charset=utf-8"}, text.encode())

    def _query(self, params: Mapping[str, str | list[str]]) -> tuple[list[list[str]], tuple[str, ...]]:
        url = _one(params, "url")
        if not url:
            raise CdxError("missing required parameter 'url'")
        match_type = _one(params, "matchType") or "exact"
        if url.endswith("*") and not url.startswith("*."):
            url, match_type = url.rstrip("*"), "prefix"
        elif url.startswith("*."):
            url, match_type = url[2:], "domain"
        if match_type not in ("exact", "prefix", "host", "domain"):
            raise CdxError(f"unknown matchType {match_type!r}")
        key = surt_key(url)
        host = key.split(")", 1)[0]

        def matches(c: Capture) -> bool:
            if match_type == "exact":
                return c.urlkey == key
            if match_type == "prefix":
                return c.urlkey.startswith(key)
            chost = c.urlkey.split(")", 1)[0]
            return chost == host or (match_type == "domain" and chost.startswith(host + ","))

        candidates = (
            self.by_key.get(key, []) if match_type == "exact" else [c for c in self.captures if matches(c)]
        )
        fl = _one(params, "fl")
        fields = tuple(f.strip() for f in fl.split(",") if f.strip()) if fl else FIELDS
        for f in fields:
            if f not in FIELDS:
                raise CdxError(f"unknown field {f!r} in fl (available: {', '.join(FIELDS)})")
        lo = pad_low(_one(params, "from"), "from") if _one(params, "from") else None
        hi = pad_high(_one(params, "to"), "to") if _one(params, "to") else None
        filters = [_compile_filter(f) for f in _many(params, "filter")]
        rows = []
        for c in candidates:
            if (lo and c.timestamp < lo) or (hi and c.timestamp > hi):
                continue
            row = _row(c)
            if all(f(row) for f in filters):
                rows.append((c, row))
        for spec in _many(params, "collapse"):
            rows = _collapse(rows, spec)
        sort = _one(params, "sort")
        if sort == "closest":
            closest = _one(params, "closest")
            if not closest:
                raise CdxError("sort=closest needs a closest=<timestamp> parameter")
            target = seconds(pad_low(closest, "closest"))
            rows.sort(key=lambda cr: (abs(seconds(cr[0].timestamp) - target), cr[0].timestamp))
        elif sort == "reverse":
            rows.reverse()
        elif sort not in (None, "", "regular"):
            raise CdxError(f"unknown sort {sort!r} (use closest or reverse)")
        offset = _int(params, "offset") or 0
        rows = rows[offset:] if offset > 0 else rows
        limit = _int(params, "limit")
        if limit is not None:
            rows = rows[:limit] if limit >= 0 else rows[limit:]
        return [[r[FIELDS.index(f)] for f in fields] for _, r in rows], fields

    # ------------------------------------------------------------------ playback

    def closest(self, url: str, ts: str) -> Capture | None:
        captures = self.by_key.get(surt_key(url))
        if not captures:
            return None
        target = seconds(pad_low(ts, "playback"))
        return min(captures, key=lambda c: (abs(seconds(c.timestamp) - target), c.timestamp))

    def playback(self, raw_path: str, server: str) -> Reply:
        m = _PLAYBACK.match(raw_path)
        if not m:
            return _text(400, "Bad Request: expected /web/<timestamp>[id_]/<url>")
        ts, flag, url = m.group(1), m.group(2) or "", m.group(3)
        if _ENCODED_SCHEME.match(url):  # ``quote(url)``, as cdx_toolkit sends it: web.archive.org decodes it
            url = unquote(url)
        url = re.sub(r"^([a-zA-Z][a-zA-Z0-9+.-]*):/(?!/)", r"\1://", url)  # clients may merge "//"
        if "://" not in url.split("?", 1)[0]:
            url = "http://" + url
        capture = self.closest(url, ts)
        if capture is None:
            page = (
                f"<!DOCTYPE html><title>Wayback Machine</title><p>Wayback Machine has not archived {url}.</p>"
            )
            return Reply(404, {"Content-Type": "text/html; charset=utf-8"}, page.encode())
        if not flag and ts != capture.timestamp:
            return Reply(302, {"Location": f"{server}/web/{capture.timestamp}/{capture.url}"}, b"")
        content_type = next((v for k, v in capture.headers if k.lower() == "content-type"), None)
        out = {"Content-Type": content_type or capture.mimetype}
        for k, v in capture.headers:
            if k.lower() != "content-type":
                out[f"X-Archive-Orig-{k}"] = v
        moment = datetime.strptime(capture.timestamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        out["Memento-Datetime"] = format_datetime(moment, usegmt=True)
        out["Link"] = f'<{capture.url}>; rel="original"'
        status = int(capture.statuscode) if capture.statuscode.isdigit() else 200
        if 300 <= status < 400 and capture.location:
            target = urljoin(capture.url, capture.location)
            if self.style == "pywb":
                out["Location"] = target  # as captured: the live web
            else:
                out["Location"] = f"{server}/web/{capture.timestamp}{flag or 'id_'}/{target}"
        quirk = capture.playback
        if quirk is not None:
            if quirk.location is not None:  # a plain redirect (no capture), e.g. to an access notice
                return Reply(302, {"Location": quirk.location, "Content-Type": "text/html"}, b"")
            if not quirk.memento:  # an error or notice page that is no capture
                out = {"Content-Type": out["Content-Type"]}
            status = quirk.status or status
        return Reply(status, out, self.body(capture))

    # ------------------------------------------------------------------ Memento (RFC 7089)

    @staticmethod
    def _target(raw: str) -> str:
        url = unquote(raw) if _ENCODED_SCHEME.match(raw) else raw
        url = re.sub(r"^([a-zA-Z][a-zA-Z0-9+.-]*):/(?!/)", r"\1://", url)
        return url if "://" in url.split("?", 1)[0] else "http://" + url

    def timegate(self, raw_url: str, accept_datetime: str | None, server: str) -> Reply:
        """``/web/<url>``: a redirect to the memento closest to ``Accept-Datetime`` (default: the
        latest), as the Internet Archive's TimeGate answers."""
        url = self._target(raw_url)
        links = f'<{url}>; rel="original", <{server}/web/timemap/link/{url}>; rel="timemap"'
        headers = {"Vary": "accept-datetime", "Link": links}
        moment = http_date_ts(accept_datetime) if accept_datetime else "99991231235959"
        if moment is None:
            return _text(400, f"Bad Request: unreadable Accept-Datetime {accept_datetime!r}")
        capture = self.closest(url, moment)
        if capture is None:
            return Reply(404, {**headers, "Content-Type": "text/plain; charset=utf-8"}, b"Not archived\n")
        return Reply(302, {**headers, "Location": f"{server}/web/{capture.timestamp}/{capture.url}"}, b"")

    def timemap(self, raw_url: str, server: str) -> Reply:
        """``/web/timemap/link/<url>``: every memento of the URL, in link format (RFC 6690)."""
        url = self._target(raw_url)
        captures = self.by_key.get(surt_key(url), [])
        if not captures:
            return Reply(404, {"Content-Type": "application/link-format"}, b"")
        lines = [
            f'<{server}/web/timemap/link/{url}>; rel="self"; type="application/link-format"',
            f'<{url}>; rel="original"',
            f'<{server}/web/{url}>; rel="timegate"',
        ]
        for c in captures:
            moment = datetime.strptime(c.timestamp, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
            when = format_datetime(moment, usegmt=True)
            lines.append(f'<{server}/web/{c.timestamp}/{c.url}>; rel="memento"; datetime="{when}"')
        return Reply(200, {"Content-Type": "application/link-format"}, (",\n".join(lines) + "\n").encode())


# --------------------------------------------------------------------------- helpers


def http_date_ts(value: str) -> str | None:
    """An HTTP date (``Accept-Datetime``) as 14 digits."""
    moment = http_date(value)
    return None if moment is None else moment.strftime("%Y%m%d%H%M%S")


def _one(params: Mapping[str, str | list[str]], name: str) -> str | None:
    value = params.get(name)
    if isinstance(value, list):
        return value[-1] if value else None
    return value


def _many(params: Mapping[str, str | list[str]], name: str) -> list[str]:
    value = params.get(name)
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _int(params: Mapping[str, str | list[str]], name: str) -> int | None:
    raw = _one(params, name)
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise CdxError(f"{name} must be an integer, got {raw!r}") from None


def _row(c: Capture) -> list[str]:
    return [c.urlkey, c.timestamp, c.url, c.mimetype, c.statuscode, c.digest, str(c.length)]


def _compile_filter(spec: str):
    negate = spec.startswith("!")
    body = spec[1:] if negate else spec
    name, sep, pattern = body.partition(":")
    index = FIELDS.index(name) if sep and name in FIELDS else None
    if index is None:
        pattern = body
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise CdxError(f"invalid filter regex {pattern!r}: {exc}") from None

    def check(row: list[str]) -> bool:
        value = row[index] if index is not None else " ".join(row)
        return (regex.fullmatch(value) is not None) != negate

    return check


def _collapse(rows: list[tuple[Capture, list[str]]], spec: str) -> list[tuple[Capture, list[str]]]:
    name, _, n = spec.partition(":")
    if name not in FIELDS:
        raise CdxError(f"unknown collapse field {name!r}")
    width = int(n) if n.isdigit() else None
    index = FIELDS.index(name)
    out: list[tuple[Capture, list[str]]] = []
    last = None
    for c, row in rows:
        value = row[index][:width] if width else row[index]
        if value != last:
            out.append((c, row))
        last = value
    return out
