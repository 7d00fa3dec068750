"""Memento (RFC 7089) as a second way to find captures: a TimeGate, a TimeMap, or both.

For archives without a CDX API, and for aggregators that answer for many archives. A TimeGate
(``<timegate><url>`` with ``Accept-Datetime``) names the memento nearest a time, either by redirecting
to it (the Internet Archive, aggregators) or by serving it with a ``Link: <…>; rel="memento"`` (pywb);
a TimeMap (link format, RFC 6690) lists every memento of a URL with its datetime. Mementos are fetched
raw (``id_``) when their URI has the Wayback shape, and only from the archive's own hosts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from urllib.parse import urljoin

from wikihowqa.collect.archive_queries import ArchiveEndpoints, http_date_timestamp, link_values
from wikihowqa.collect.http import CDX, PLAYBACK, HttpClient, request_key

_MEMENTO_HEADERS = ("memento-datetime", "vary", "link")


class MementoError(Exception):
    """A TimeGate or TimeMap answered something that is not Memento."""


@dataclass(frozen=True)
class Memento:
    uri: str
    timestamp: str  # 14 digits


@dataclass(frozen=True)
class TimeGateAnswer:
    memento: Memento | None  # the memento the TimeGate chose (``None``: not archived)
    timemap: str | None  # the TimeMap the answer links to, if any
    key: str
    memento_headers: bool = True  # False: a bare 404, which pywb answers for a URL it never archived


def accept_datetime(timestamp: str) -> str:
    moment = datetime.strptime(timestamp.ljust(14, "0")[:14], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    return format_datetime(moment, usegmt=True)


def _is_memento_answer(headers: dict[str, str]) -> bool:
    if "memento-datetime" in headers:
        return True
    if "accept-datetime" in headers.get("vary", "").lower():
        return True
    rels = {r for _, p in link_values(headers.get("link")) for r in p.get("rel", "").split()}
    return bool(rels & {"original", "timegate", "timemap", "memento"})


def parse_timemap(text: str) -> list[Memento]:
    """The mementos of a link-format TimeMap (any entry whose ``rel`` names ``memento``)."""
    out = []
    for uri, params in link_values(text):
        if "memento" not in params.get("rel", "").split():
            continue
        stamp = http_date_timestamp(params.get("datetime"))
        if stamp is not None:
            out.append(Memento(uri, stamp))
    return out


class MementoClient:
    """TimeGate and TimeMap requests through the collector's HTTP client."""

    def __init__(self, http: HttpClient, endpoints: ArchiveEndpoints) -> None:
        self.http = http
        self.endpoints = endpoints

    def timemap_uri(self, url: str, hint: str | None = None) -> str | None:
        if self.endpoints.timemap_url:
            return self.endpoints.timemap_url.replace("{url}", url)
        return hint if hint and self.endpoints.allows(hint) else None

    async def timegate(self, url: str, timestamp: str) -> TimeGateAnswer:
        """The memento the TimeGate chooses for ``url`` at ``timestamp``."""
        gate = self.endpoints.timegate_url
        if gate is None:  # a TimeMap alone: it decides (no TimeGate has spoken)
            return TimeGateAnswer(None, None, "", memento_headers=False)
        uri = gate + url
        headers = {"Accept-Datetime": accept_datetime(timestamp)}
        response = await self.http.get(uri, lane=PLAYBACK, follow_redirects=False, headers=headers)
        key = request_key(uri)
        if response.status == 404 and not _is_memento_answer(dict(response.headers)):
            return TimeGateAnswer(None, None, key, memento_headers=False)
        if not _is_memento_answer(dict(response.headers)):
            start = " ".join(response.content.decode("utf-8", "replace").split())[:60]
            raise MementoError(
                f"{gate} answered HTTP {response.status} without Memento headers: {start!r}"
                " (is it a TimeGate?)"
            )
        links = link_values(response.header("link"))
        timemap = next((u for u, p in links if "timemap" in p.get("rel", "").split()), None)
        if 300 <= response.status < 400 and response.header("location"):
            target = urljoin(uri, response.header("location") or "")
            stamp = http_date_timestamp(
                next((p.get("datetime") for u, p in links if u == target and "datetime" in p), None)
            )
            return TimeGateAnswer(Memento(target, stamp or ""), timemap, key)
        if 200 <= response.status < 300:
            chosen = next(((u, p) for u, p in links if "memento" in p.get("rel", "").split()), None)
            where = response.header("content-location")
            stamp = http_date_timestamp(response.header("memento-datetime"))
            if chosen is not None:
                where = where or chosen[0]
                stamp = stamp or http_date_timestamp(chosen[1].get("datetime"))
            if where:
                return TimeGateAnswer(Memento(urljoin(uri, where), stamp or ""), timemap, key)
        return TimeGateAnswer(None, timemap, key)

    async def timemap(self, url: str, hint: str | None = None) -> list[Memento]:
        """Every memento of ``url`` the TimeMap lists (none when there is no TimeMap to ask)."""
        uri = self.timemap_uri(url, hint)
        if uri is None:
            return []
        response = await self.http.get(uri, lane=CDX)
        if response.status == 404:
            return []
        if response.status != 200:
            raise MementoError(f"{uri.split(url)[0]} answered HTTP {response.status} for a TimeMap")
        text = response.content.decode("utf-8", "replace")
        mementos = parse_timemap(text)
        if not mementos and text.strip() and "rel=" not in text:
            start = " ".join(text.split())[:60]
            raise MementoError(f"{uri.split(url)[0]} answered something that is not a TimeMap: {start!r}")
        return mementos
