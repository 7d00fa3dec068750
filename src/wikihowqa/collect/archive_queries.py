"""A web archive as the collector reads it: CDX lookups, raw playback, and what counts as a capture.

Endpoints are settings (:class:`ArchiveEndpoints`): the CDX endpoint itself (the Internet Archive's
``/cdx/search/cdx``, pywb's ``/<collection>/cdx``) and the playback prefix to which
``<timestamp>id_/<original url>`` is appended (``/web/`` at the Internet Archive and in pywb); the
``id_`` flag returns the archived bytes as captured, without a toolbar or rewritten links.

CDX answers are read in both dialects: the Internet Archive's ``output=json`` (an array of arrays, the
first naming the fields ``urlkey timestamp original mimetype statuscode digest length``) and pywb's
(one JSON object per line, fields ``url``, ``mime``, ``status``), and the classic space-separated text
lines; anything else is a :class:`CdxError` naming the URL and the start of the body. pywb answers a
query with no match under its filter with *fuzzy* rows of other statuses (marked ``is_fuzzy``), which
are never taken for a capture of the URL.

A playback answer counts as an archived capture only if it carries ``Memento-Datetime`` (RFC 7089),
which every Wayback implementation sends with a capture; its status is the capture's. Redirects are
never followed by the HTTP client: a redirect without ``Memento-Datetime`` that stays inside the
archive (the Internet Archive's hop from an inexact timestamp to the capture's own) is followed here,
and a redirect *capture* is handed back with its target, for the capture rule to look up inside the
archive (:mod:`wikihowqa.collect.captures`). No request ever goes to a host that is not the archive's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit

from wikihowqa.collect.http import CDX, PLAYBACK, FetchError, HttpClient, Response, request_key
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.retry_after import http_date

#: The Internet Archive's CDX field names, and what other servers call them.
_ALIASES = {"url": "original", "mime": "mimetype", "status": "statuscode"}
_CLASSIC = ("urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length")
_WAYBACK_PATH = re.compile(r"^(?P<prefix>.*?/)(?P<ts>\d{1,14})(?P<flag>[a-z]{2}_|\*)?/(?P<url>.+)$", re.S)
_MAX_NAVIGATION = 5


class CdxError(Exception):
    """The CDX server answered something that is not a CDX result; ``misconfigured``: the way a wrong
    endpoint answers (a 404, a body that is no CDX result), not a refusal of one query (a 403)."""

    def __init__(self, message: str, *, misconfigured: bool = True) -> None:
        super().__init__(message)
        self.misconfigured = misconfigured


@dataclass(frozen=True, slots=True)
class Capture:
    timestamp: str  # 14 digits
    original: str  # the URL as captured
    mimetype: str
    statuscode: str
    fuzzy: bool = False


@dataclass(frozen=True)
class ArchiveEndpoints:
    """Where an archive answers: CDX, playback, Memento; and which hosts the collector may ask."""

    cdx_url: str | None = None
    playback_url: str | None = None
    timegate_url: str | None = None
    timemap_url: str | None = None  # a template with ``{url}``
    extra_hosts: tuple[str, ...] = ()

    @classmethod
    def wayback(cls, base_url: str) -> ArchiveEndpoints:
        """The Internet Archive's layout under ``base_url``: ``/cdx/search/cdx`` and ``/web/``."""
        base = base_url.rstrip("/")
        return cls(cdx_url=f"{base}/cdx/search/cdx", playback_url=f"{base}/web/")

    def __post_init__(self) -> None:
        for name in ("cdx_url", "playback_url", "timegate_url", "timemap_url"):
            value = getattr(self, name)
            if value is not None and not re.match(r"^https?://[^/\s]+", value):
                raise SettingsError(f"{name.replace('_', '-')} must be an http(s) URL, got {value!r}")
        if self.timemap_url is not None and "{url}" not in self.timemap_url:
            raise SettingsError(f"memento-timemap must contain {{url}}, got {self.timemap_url!r}")
        if self.playback_url is not None and not self.playback_url.endswith("/"):
            object.__setattr__(self, "playback_url", self.playback_url + "/")

    @property
    def hosts(self) -> frozenset[str]:
        """The hosts (``host:port``) the archive answers on: the only ones a request may go to."""
        urls = (self.cdx_url, self.playback_url, self.timegate_url, self.timemap_url)
        found = {urlsplit(u).netloc.lower() for u in urls if u}
        return frozenset(found | {h.lower() for h in self.extra_hosts})

    def allows(self, url: str) -> bool:
        return urlsplit(url).netloc.lower() in self.hosts

    def options_for(self, endpoint: str | None) -> str:
        """The ``build`` options that set ``endpoint`` (for a message that says what to check)."""
        named = [
            (self.timemap_url, "--memento-timemap"),
            (self.timegate_url, "--memento-timegate"),
            (self.cdx_url, "--cdx-url or --wayback-url"),
            (self.playback_url, "--playback-url or --wayback-url"),
        ]
        found = [option for url, option in named if url is not None and url == endpoint]
        return found[0] if found else "--cdx-url, --playback-url or --wayback-url (or the Memento options)"

    def as_dict(self) -> dict[str, object]:
        return {
            "cdx_url": self.cdx_url,
            "playback_url": self.playback_url,
            "memento_timegate": self.timegate_url,
            "memento_timemap": self.timemap_url,
            "archive_hosts": sorted(self.hosts),
        }


def wayback_timestamp(iso: str) -> str:
    """``2019-08-11T09:30:00Z`` → ``20190811093000``."""
    moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return moment.strftime("%Y%m%d%H%M%S")


def http_date_timestamp(value: str | None) -> str | None:
    """``Sat, 02 Nov 2019 08:15:00 GMT`` (``Memento-Datetime``) → ``20191102081500``; ``None`` if unusable."""
    moment = http_date(value)
    return None if moment is None else moment.strftime("%Y%m%d%H%M%S")


def seconds(ts14: str) -> float:
    """Seconds since the epoch of a (padded) 14-digit timestamp; impossible dates are clamped."""
    ts = ts14.ljust(14, "0")[:14]
    y, mo, d = int(ts[0:4]), min(max(int(ts[4:6]), 1), 12), max(int(ts[6:8]), 1)
    h, mi, s = min(int(ts[8:10]), 23), min(int(ts[10:12]), 59), min(int(ts[12:14]), 59)
    while True:
        try:
            return datetime(max(y, 1), mo, d, h, mi, s, tzinfo=UTC).timestamp()
        except ValueError:
            d -= 1


def closeness(timestamp: str, target: str) -> tuple[float, str]:
    """Sort key of the capture rule: distance in time to the target, ties to the earlier capture."""
    return (abs(seconds(timestamp) - seconds(target)), timestamp)


_LINK_PARAM = re.compile(r'\s*;\s*([^=;,\s]+)\s*(?:=\s*("(?:[^"\\]|\\.)*"|[^;,]*))?')


def link_values(header: str | None) -> list[tuple[str, dict[str, str]]]:
    """An RFC 8288 ``Link`` header (or a link-format TimeMap) as ``(uri, params)`` pairs; quoted values
    may hold commas (``datetime="Sat, 02 Nov 2019 08:15:00 GMT"``)."""
    out: list[tuple[str, dict[str, str]]] = []
    if not header:
        return out
    i = 0
    while True:
        start = header.find("<", i)
        end = header.find(">", start + 1) if start >= 0 else -1
        if end < 0:
            return out
        params: dict[str, str] = {}
        i = end + 1
        while (m := _LINK_PARAM.match(header, i)) is not None:
            params[m.group(1).lower()] = (m.group(2) or "").strip().strip('"')
            i = m.end()
        out.append((header[start + 1 : end], params))


def original_from_link(response: Response) -> str | None:
    for uri, params in link_values(response.header("link")):
        if "original" in params.get("rel", "").split():
            return uri
    return None


# --------------------------------------------------------------------------- CDX


def _rows(text: str) -> Iterable[dict[str, str]]:
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("["):
        table = json.loads(stripped)
        if not isinstance(table, list) or not all(isinstance(r, list) for r in table):
            raise ValueError("not an array of rows")
        if not table:
            return []
        header = [str(h) for h in table[0]]
        if any(len(r) != len(header) for r in table[1:]):
            raise ValueError("rows of an unexpected shape")
        return [dict(zip(header, (str(v) for v in r), strict=True)) for r in table[1:]]
    if stripped.startswith("{"):
        rows = []
        for line in stripped.splitlines():
            if line.strip():
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError("not a JSON object per line")
                rows.append({str(k): str(v) for k, v in obj.items()})
        return rows
    rows = []
    for line in stripped.splitlines():
        parts = line.split()
        if len(parts) < 5 or not re.fullmatch(r"\d{14}", parts[1]):
            raise ValueError("not CDX lines")
        rows.append(dict(zip(_CLASSIC, parts, strict=False)))
    return rows


def parse_cdx(text: str, url: str) -> list[Capture]:
    """Captures in a CDX answer of either dialect; :class:`CdxError` names ``url`` and the body's start."""
    try:
        rows = list(_rows(text))
    except (ValueError, json.JSONDecodeError):
        start = " ".join(text.strip().split())[:80]
        raise CdxError(f"{url} answered something that is not a CDX result: {start!r}") from None
    captures = []
    for row in rows:
        row = {_ALIASES.get(k, k): v for k, v in row.items()}
        if not re.fullmatch(r"\d{14}", row.get("timestamp", "")):
            continue
        captures.append(
            Capture(
                timestamp=row["timestamp"],
                original=row.get("original", ""),
                mimetype=row.get("mimetype", ""),
                statuscode=row.get("statuscode", ""),
                fuzzy=row.get("is_fuzzy") in ("1", "true", "True"),
            )
        )
    return captures


#: Rows the redirect query reads: the URL's captures closest first, any status (none of them a 200).
REDIRECT_ROWS = 50


def cdx_params(url: str, timestamp: str, status: str = "200") -> dict[str, str]:
    """The CDX query for the capture of ``url`` nearest to ``timestamp`` with status ``200``, or (for
    ``status="3.."``) the nearest captures of any status, among which the redirect is picked here:
    servers read ``filter`` differently (a full regular expression at the Internet Archive, a substring
    in pywb, where ``~`` marks a regular expression), but ``statuscode:200`` means the same in both.
    No ``fl``: servers name fields differently."""
    params = {"url": url, "output": "json"}
    if status == "200":
        params["filter"] = "statuscode:200"
    params.update(sort="closest", closest=timestamp, limit="1" if status == "200" else str(REDIRECT_ROWS))
    return params


# --------------------------------------------------------------------------- playback


@dataclass(frozen=True)
class Played:
    """What a playback request found.

    ``kind``: ``capture`` (an archived capture, of any status), ``not_archived`` (the archive's own
    not-found answer, without ``Memento-Datetime``), ``outside`` (a redirect that is no capture and
    points out of the archive: not followed) or ``unverified`` (any other answer without
    ``Memento-Datetime``)."""

    kind: str
    response: Response
    key: str
    timestamp: str | None = None
    original: str | None = None
    target: str | None = None  # a redirect capture's target URL (never fetched as such)
    detail: str = ""

    @property
    def status(self) -> int:
        return self.response.status


def unwrap(location: str, base: str, endpoints: ArchiveEndpoints) -> str:
    """The URL a redirect capture points at: the original URL inside an archive's rewritten
    ``…/<ts>[flag]/<url>`` location (on one of the archive's hosts), else the location itself resolved
    against the captured URL."""
    absolute = urljoin(base, location)
    m = _WAYBACK_PATH.match(absolute)
    if m and "://" in m.group("prefix") and endpoints.allows(absolute):
        return m.group("url")
    return absolute


def raw_memento(uri: str) -> str:
    """A Wayback-style memento URI in its raw (``id_``) form; other URIs as they are."""
    m = _WAYBACK_PATH.match(uri)
    if not m or "://" not in m.group("prefix"):
        return uri
    return f"{m.group('prefix')}{m.group('ts')}id_/{m.group('url')}"


def plain_memento(uri: str) -> str:
    """A memento URI without its replay flag, as people open it (``…/<ts>/<url>``)."""
    m = _WAYBACK_PATH.match(uri)
    if not m or "://" not in m.group("prefix"):
        return uri
    return f"{m.group('prefix')}{m.group('ts')}/{m.group('url')}"


class Wayback:
    """CDX lookups and raw playback against one archive's endpoints, through the collector's client."""

    def __init__(self, http: HttpClient, endpoints: ArchiveEndpoints | str) -> None:
        self.http = http
        self.endpoints = (
            endpoints if isinstance(endpoints, ArchiveEndpoints) else ArchiveEndpoints.wayback(endpoints)
        )

    @property
    def cdx_url(self) -> str | None:
        return self.endpoints.cdx_url

    @property
    def playback_url(self) -> str | None:
        return self.endpoints.playback_url

    def raw_url(self, timestamp: str, original: str) -> str:
        return f"{self.playback_url}{timestamp}id_/{original}"

    def archive_url(self, timestamp: str, original: str) -> str:
        """The capture's address for people (with the archive's page around it), as the release writes it."""
        return f"{self.playback_url}{timestamp}/{original}"

    def cdx_key(self, url: str, timestamp: str, status: str = "200") -> str:
        """The response-cache key of :meth:`closest`'s request."""
        return request_key(self.cdx_url or "", cdx_params(url, timestamp, status))

    async def closest(self, url: str, timestamp: str, status: str = "200") -> Capture | None:
        """The capture of ``url`` nearest to ``timestamp`` (14 digits) whose status matches ``status``,
        or ``None``. A CDX endpoint that answers 404 or not a CDX result is a :class:`CdxError`."""
        pattern = re.compile(status)
        rows = await self._rows(url, timestamp, status)
        return next((c for c in rows if pattern.fullmatch(c.statuscode)), None)

    async def nearest(self, url: str, timestamp: str) -> list[Capture]:
        """The captures of ``url`` nearest to ``timestamp``, of any status, closest first (at most
        :data:`REDIRECT_ROWS`): where the capture rule looks for a redirect once there is no 200."""
        return await self._rows(url, timestamp, "3..")

    async def _rows(self, url: str, timestamp: str, status: str) -> list[Capture]:
        if self.cdx_url is None:
            raise CdxError("no CDX endpoint configured")
        response = await self.http.get(self.cdx_url, cdx_params(url, timestamp, status), lane=CDX)
        if response.status == 404:
            start = " ".join(response.content.decode("utf-8", "replace").split())[:60]
            raise CdxError(f"{self.cdx_url} answered HTTP 404" + (f": {start!r}" if start else ""))
        if response.status != 200:
            raise CdxError(f"CDX answered HTTP {response.status}", misconfigured=False)
        captures = parse_cdx(response.content.decode("utf-8", "replace"), self.cdx_url)
        # pywb's fuzzy fallback ignores the filter and the URL: those rows are no capture of the URL.
        return [c for c in captures if not c.fuzzy]

    async def play(self, timestamp: str, url: str) -> Played:
        """Play back ``url`` as archived nearest ``timestamp``, raw, without leaving the archive."""
        return await self.play_uri(self.raw_url(timestamp, url), url)

    async def play_uri(self, uri: str, url: str, *, headers: dict[str, str] | None = None) -> Played:
        """Fetch a playback (or memento) URI; in-archive navigation redirects are followed here."""
        for _ in range(_MAX_NAVIGATION + 1):
            key = request_key(uri)
            response = await self.http.get(uri, lane=PLAYBACK, follow_redirects=False, headers=headers)
            moment = http_date_timestamp(response.header("memento-datetime"))
            location = response.header("location")
            if moment is not None:
                original = original_from_link(response) or url
                target = None
                if 300 <= response.status < 400 and location:
                    target = unwrap(location, original, self.endpoints)
                return Played("capture", response, key, moment, original, target)
            if 300 <= response.status < 400 and location:
                nxt = urljoin(uri, location)
                if not self.endpoints.allows(nxt):
                    return Played(
                        "outside",
                        response,
                        key,
                        detail=f"redirect out of the archive to {nxt} (not followed)",
                    )
                uri = nxt
                continue
            if response.status == 404:
                return Played("not_archived", response, key, detail="HTTP 404 without Memento-Datetime")
            return Played(
                "unverified", response, key, detail=f"HTTP {response.status} without Memento-Datetime"
            )
        return Played("unverified", response, key, detail="too many redirects inside the archive")


__all__ = [
    "ArchiveEndpoints",
    "Capture",
    "CdxError",
    "FetchError",
    "Played",
    "Wayback",
    "closeness",
    "http_date_timestamp",
    "parse_cdx",
    "plain_memento",
    "raw_memento",
    "wayback_timestamp",
]
