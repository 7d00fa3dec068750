"""The capture rule, and the ways of finding the capture it names with fewer requests.

**The rule** (for a cited URL and a reference time): the capture of status 200 closest to the time
(ties: the earlier); if the URL has none, its redirect capture closest to the time is followed inside
the archive — to its target URL's capture chosen by the same rule at the same time — a few hops at
most, each hop recorded; otherwise there is no snapshot. A capture is used only if its CDX row *and*
its playback say 200 and the playback carries ``Memento-Datetime``.

**The methods** (``lookup``):

* ``cdx`` — one CDX query per URL (``filter=statuscode:200&sort=closest&limit=1``), then the capture's
  playback: the reference method, two requests per kept reference, one of them at the CDX server's
  slow rate.
* ``playback`` — first the playback of the URL at the reference time (``/<ts>id_/<url>``), which the
  archive answers with its capture closest to that time, of any status. When that capture is a 200 of
  the same URL it *is* the rule's choice (the closest capture of all is a 200, so no 200 is closer), and
  no CDX request is made. When the archive says the URL was never archived (a 404 without
  ``Memento-Datetime``, once the endpoint has shown it serves captures) there is no capture at all, so
  no snapshot either. Anything else — the closest capture is a redirect, an error page, or a fuzzy
  match of another URL — cannot tell, and the ``cdx`` method decides.
* ``memento`` — the TimeGate's choice (closest of any status, as above), then, when it is not a 200, the
  TimeMap's mementos played back in order of closeness until a 200 (at most :data:`MAX_PROBES`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import surt as _surt

from wikihowqa.collect.http import FetchError
from wikihowqa.collect.memento import MementoClient, MementoError
from wikihowqa.collect.wayback import CdxError, Played, Wayback, closeness, plain_memento, raw_memento

LOOKUPS = ("cdx", "playback", "memento")
MAX_REDIRECTS = 3
MAX_PROBES = 10


def same_page(a: str, b: str) -> bool:
    """Whether two URLs name one page as an archive indexes it (the same SURT key)."""
    try:
        return _surt.surt(a) == _surt.surt(b)
    except Exception:
        return a == b


@dataclass
class Lookup:
    """What the rule found for one URL: a verified capture, none, or a failure, and the hops taken."""

    status: str  # found | none | failed
    played: Played | None = None
    archive_url: str | None = None
    timestamp: str | None = None
    original: str | None = None
    failed_at: str | None = None
    detail: str | None = None
    endpoint: str | None = None  # the endpoint that answered like a misconfigured one
    stale: list[str] = field(default_factory=list)  # stored answers to forget on --retry-failed
    hops: list[dict[str, Any]] = field(default_factory=list)

    def outcome(self) -> dict[str, Any]:
        """The lookup as the ``reference`` result stores it (statuses in funnel terms)."""
        out: dict[str, Any] = {}
        if self.hops:
            out["redirects"] = self.hops
        if self.status == "none":
            out["status"] = "no_snapshot"
            if self.detail:
                out["detail"] = self.detail
            return out
        if self.timestamp and self.original and self.archive_url:
            out.update(timestamp=self.timestamp, original=self.original, archive_url=self.archive_url)
        if self.status == "found":
            return {**out, "status": "fetched"}
        out.update(status="fetch_failed", failed_at=self.failed_at, detail=self.detail)
        if self.endpoint:
            out["endpoint"] = self.endpoint
        if self.stale:
            out["stale"] = self.stale
        return out


def _misconfigured(exc: FetchError) -> bool:
    return exc.reason.startswith("connection error")


class CaptureFinder:
    """Applies the capture rule by one method; shared by every reference of a build."""

    def __init__(self, wayback: Wayback, lookup: str = "cdx", memento: MementoClient | None = None) -> None:
        if lookup not in LOOKUPS:
            raise ValueError(f"lookup must be one of {', '.join(LOOKUPS)}")
        self.wayback = wayback
        self.lookup = lookup
        self.memento = memento
        self.playback_serves_captures = False  # seen a Memento-Datetime from the playback endpoint
        self.timegate_answers_memento = False  # seen Memento headers from the TimeGate

    async def find(self, url: str, timestamp: str) -> Lookup:
        return await self._find(url, timestamp, [], {_key(url)})

    # ------------------------------------------------------------------ the methods

    async def _find(self, url: str, ts: str, hops: list[dict[str, Any]], seen: set[str]) -> Lookup:
        if self.lookup == "memento":
            found = await self._by_memento(url, ts, hops, seen)
        elif self.lookup == "playback":
            found = await self._by_playback(url, ts, hops, seen)
        else:
            found = await self._by_cdx(url, ts, hops, seen)
        found.hops = hops
        return found

    async def _by_playback(self, url: str, ts: str, hops: list[dict[str, Any]], seen: set[str]) -> Lookup:
        try:
            played = await self.wayback.play(ts, url)
        except FetchError:
            return await self._by_cdx(url, ts, hops, seen)  # it decides, and reports its own failure
        if played.kind == "capture":
            self.playback_serves_captures = True
            if played.status == 200 and same_page(played.original or "", url):
                return self._found(played)
        elif played.kind == "not_archived" and self.playback_serves_captures:
            return Lookup("none")
        return await self._by_cdx(url, ts, hops, seen)

    async def _by_cdx(self, url: str, ts: str, hops: list[dict[str, Any]], seen: set[str]) -> Lookup:
        wayback = self.wayback
        try:
            capture = await wayback.closest(url, ts, "200")
            redirect = None if capture is not None else await wayback.closest(url, ts, "3..")
        except FetchError as exc:
            endpoint = wayback.cdx_url if _misconfigured(exc) else None
            return Lookup("failed", failed_at="cdx", detail=exc.reason, endpoint=endpoint)
        except CdxError as exc:
            stale = [wayback.cdx_key(url, ts, "200"), wayback.cdx_key(url, ts, "3..")]
            endpoint = wayback.cdx_url if exc.misconfigured else None
            return Lookup("failed", failed_at="cdx", detail=str(exc), endpoint=endpoint, stale=stale)
        chosen = capture or redirect
        if chosen is None:
            return Lookup("none")
        try:
            played = await wayback.play(chosen.timestamp, chosen.original or url)
        except FetchError as exc:
            endpoint = wayback.playback_url if _misconfigured(exc) else None
            return self._failed(
                None, exc.reason, endpoint=endpoint, archive=(chosen.timestamp, chosen.original)
            )
        if played.kind == "capture":
            self.playback_serves_captures = True
        if played.kind != "capture" and played.status not in (200, 404) and not 300 <= played.status < 400:
            return self._failed(played, f"HTTP {played.status}")  # a refusal (403, 501): no capture here
        if capture is not None:
            if played.kind != "capture":
                # What a wrong playback prefix answers: a page that is no capture, or a 404.
                return self._failed(played, played.detail, endpoint=wayback.playback_url)
            if played.status != 200:
                return self._failed(played, f"HTTP {played.status}")
            if played.timestamp != capture.timestamp:
                return self._failed(
                    played, f"playback served the capture of {played.timestamp}, not {capture.timestamp}"
                )
            return self._found(played)
        if played.kind != "capture" or not 300 <= played.status < 400 or not played.target:
            detail = played.detail or f"HTTP {played.status} for a {redirect.statuscode} capture"
            return self._failed(played, detail)
        return await self._follow(url, ts, played, hops, seen)

    async def _by_memento(self, url: str, ts: str, hops: list[dict[str, Any]], seen: set[str]) -> Lookup:
        assert self.memento is not None, "the memento lookup needs a TimeGate or a TimeMap"
        endpoints = self.wayback.endpoints
        try:
            gate = await self.memento.timegate(url, ts)
        except FetchError as exc:
            endpoint = endpoints.timegate_url if _misconfigured(exc) else None
            return Lookup("failed", failed_at="memento", detail=exc.reason, endpoint=endpoint)
        except MementoError as exc:
            return Lookup("failed", failed_at="memento", detail=str(exc), endpoint=endpoints.timegate_url)
        if gate.memento_headers:
            self.timegate_answers_memento = True
        elif self.timegate_answers_memento:
            return Lookup("none")  # the TimeGate's own "never archived", now that it has shown it is one
        elif not endpoints.timemap_url:
            detail = "HTTP 404 without Memento headers (is it a TimeGate?)"
            return Lookup("failed", failed_at="memento", detail=detail, endpoint=endpoints.timegate_url)
        if gate.memento is None and gate.memento_headers:
            return Lookup("none")  # a TimeGate that chooses no memento has none of the URL
        if gate.memento is not None:
            first = await self._probe(gate.memento.uri, url)
            if isinstance(first, Lookup) or (first is not None and first.status == 200):
                return first if isinstance(first, Lookup) else self._found(first, gate.memento.uri)
        # The TimeGate's choice is not a 200: the TimeMap's mementos, closest first, say which is.
        try:
            mementos = await self.memento.timemap(url, gate.timemap)
        except FetchError as exc:
            endpoint = endpoints.timemap_url if _misconfigured(exc) else None
            return Lookup("failed", failed_at="memento", detail=exc.reason, endpoint=endpoint)
        except MementoError as exc:
            return Lookup("failed", failed_at="memento", detail=str(exc), endpoint=endpoints.timemap_url)
        if not mementos and gate.memento is not None:
            return Lookup("none", detail="the TimeGate's memento is no 200 capture and there is no TimeMap")
        redirect: Played | None = None
        ordered = [
            m for m in sorted(mementos, key=lambda m: closeness(m.timestamp, ts)) if endpoints.allows(m.uri)
        ]
        for memento in ordered[:MAX_PROBES]:
            played = await self._probe(memento.uri, url)
            if isinstance(played, Lookup):
                return played
            if played is None:
                continue
            if played.status == 200:
                return self._found(played, memento.uri)
            if played.target and redirect is None and 300 <= played.status < 400:
                redirect = played
        if redirect is not None:
            return await self._follow(url, ts, redirect, hops, seen)
        if len(ordered) > MAX_PROBES:
            return Lookup("none", detail=f"none of the {MAX_PROBES} closest mementos is a 200 capture")
        return Lookup("none")

    async def _probe(self, uri: str, url: str) -> Played | Lookup | None:
        """Play one memento raw (a second ask is answered by the response cache): the capture,
        ``None`` for an answer that is no capture of ``url``, or a :class:`Lookup` failure."""
        try:
            played = await self.wayback.play_uri(raw_memento(uri), url)
        except FetchError as exc:
            return Lookup("failed", failed_at="playback", detail=exc.reason)
        if played.kind != "capture" or not same_page(played.original or url, url):
            return None
        self.playback_serves_captures = True
        return played

    # ------------------------------------------------------------------ outcomes

    async def _follow(
        self, url: str, ts: str, played: Played, hops: list[dict[str, Any]], seen: set[str]
    ) -> Lookup:
        """Follow a redirect capture inside the archive: its target's capture by the same rule."""
        target = played.target or ""
        hop = {"from": url, "timestamp": played.timestamp, "status": played.status, "to": target}
        if len(hops) >= MAX_REDIRECTS:
            return Lookup("none", detail=f"more than {MAX_REDIRECTS} redirect captures", hops=hops)
        if _key(target) in seen:
            return Lookup("none", detail=f"redirect captures loop back to {target}", hops=hops)
        hops.append(hop)
        seen.add(_key(target))
        return await self._find(target, ts, hops, seen)

    def _found(self, played: Played, uri: str | None = None) -> Lookup:
        original = played.original or ""
        if uri is not None:
            plain = plain_memento(uri)
            prefix = plain.rsplit(f"/{_ts_of(plain)}/", 1)[0] if _ts_of(plain) else None
            archive_url = f"{prefix}/{played.timestamp}/{original}" if prefix else plain
        else:
            archive_url = self.wayback.archive_url(played.timestamp or "", original)
        return Lookup(
            "found", played=played, archive_url=archive_url, timestamp=played.timestamp, original=original
        )

    def _failed(
        self,
        played: Played | None,
        detail: str,
        *,
        endpoint: str | None = None,
        archive: tuple[str, str] | None = None,
    ) -> Lookup:
        if played is not None and played.timestamp:
            stamp, original = played.timestamp, played.original
        else:
            stamp, original = archive or (None, None)
        lookup = Lookup("failed", played=played, failed_at="playback", detail=detail, endpoint=endpoint)
        if stamp and original:
            lookup.timestamp, lookup.original = stamp, original
            lookup.archive_url = self.wayback.archive_url(stamp, original)
        if played is not None:
            lookup.stale = [played.key]
        return lookup


def _ts_of(uri: str) -> str | None:
    m = re.search(r"/(\d{14})/", uri)
    return m.group(1) if m else None


def _key(url: str) -> str:
    try:
        return _surt.surt(url)
    except Exception:
        return url
