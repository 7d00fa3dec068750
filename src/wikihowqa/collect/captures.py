"""The capture rule, and the ways of finding the capture it names with fewer requests.

**The rule** (for a cited URL and a reference time): the capture of status 200 closest to the time
(ties: the earlier); if the URL has none, its redirect capture closest to the time is followed inside
the archive — to its target URL's capture chosen by the same rule at the same time — a few hops at
most, each hop recorded; otherwise there is no snapshot. A capture is used only if its CDX row *and*
its playback say 200 and the playback carries ``Memento-Datetime``. Each way of failing has its own
reason (:mod:`wikihowqa.collect.outcomes`): never archived, archived but never as a 200, a redirect
chain that ends nowhere or runs too long, a playback of another status, one that is no capture, and
one that redirects out of the archive.

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

from wikihowqa.collect.archive_queries import (
    Capture,
    CdxError,
    Played,
    Wayback,
    closeness,
    plain_memento,
    raw_memento,
)
from wikihowqa.collect.http import BodyTooLarge, Deferred, FetchError
from wikihowqa.collect.memento import MementoClient, MementoError
from wikihowqa.collect.outcomes import (
    CAPTURE_NOT_200,
    CAPTURE_UNVERIFIED,
    DEFERRED,
    FETCH_FAILED,
    FETCHED,
    NO_200_CAPTURE,
    NO_SNAPSHOT,
    REDIRECT_LIMIT,
    REDIRECT_OUTSIDE_ARCHIVE,
    REDIRECT_UNRESOLVED,
    TOO_LARGE,
)

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
    """What the rule found for one URL: a verified capture, none, or a failure, and the hops taken.

    ``reason`` names a ``none`` or a ``failed`` in funnel terms (:mod:`wikihowqa.collect.outcomes`)."""

    status: str  # found | none | failed
    reason: str = FETCHED
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
            out["status"] = self.reason
            if self.detail:
                out["detail"] = self.detail
            return out
        if self.timestamp and self.original and self.archive_url:
            out.update(timestamp=self.timestamp, original=self.original, archive_url=self.archive_url)
        if self.status == "found":
            return {**out, "status": FETCHED}
        out.update(status=self.reason, failed_at=self.failed_at, detail=self.detail)
        if self.endpoint:
            out["endpoint"] = self.endpoint
        if self.stale:
            out["stale"] = self.stale
        return out


def _none(reason: str = NO_SNAPSHOT, detail: str | None = None) -> Lookup:
    return Lookup("none", reason, detail=detail)


def _error(
    failed_at: str,
    detail: str,
    endpoint: str | None = None,
    stale: list[str] | None = None,
    reason: str = FETCH_FAILED,
) -> Lookup:
    """A lookup request that failed (the lookup itself, before any capture was chosen)."""
    return Lookup("failed", reason, failed_at=failed_at, detail=detail, endpoint=endpoint, stale=stale or [])


def _reason(exc: FetchError) -> str:
    """The funnel's name for a request that brought no answer: deferred to a later run (the server asked
    for a longer wait than the client's cap), stopped at the size cap, or failed."""
    if isinstance(exc, Deferred):
        return DEFERRED
    return TOO_LARGE if isinstance(exc, BodyTooLarge) else FETCH_FAILED


def _statuses(captures: list[Capture]) -> str:
    return ", ".join(sorted({c.statuscode or "?" for c in captures}))


def _misconfigured(exc: FetchError) -> bool:
    return exc.reason.startswith("connection error")


def _not_a_capture(played: Played, url: str) -> str:
    if played.kind == "capture":
        return f"the memento is a capture of {played.original}, not of {url}"
    return played.detail or f"HTTP {played.status} without Memento-Datetime"


def _unconfirmed(played: Played) -> str:
    """The reason a playback answer that is no capture gets."""
    return REDIRECT_OUTSIDE_ARCHIVE if played.kind == "outside" else CAPTURE_UNVERIFIED


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
        hops: list[dict[str, Any]] = []
        found = await self._find(url, timestamp, hops, {_key(url)})
        if found.status == "none" and hops and found.reason in (NO_SNAPSHOT, NO_200_CAPTURE):
            # The chain was followed inside the archive to its end, where nothing usable was.
            why = "never archived" if found.reason == NO_SNAPSHOT else (found.detail or "no 200 capture")
            found.reason = REDIRECT_UNRESOLVED
            found.detail = f"redirect captures lead to {hops[-1]['to']}: {why}"
        return found

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
        except (Deferred, BodyTooLarge) as exc:
            # An answer on its own (come back later; a body too large): asking the CDX server changes neither.
            return Lookup("failed", _reason(exc), failed_at="playback", detail=exc.reason)
        except FetchError:
            return await self._by_cdx(url, ts, hops, seen)  # it decides, and reports its own failure
        if played.kind == "capture":
            self.playback_serves_captures = True
            if played.status == 200 and same_page(played.original or "", url):
                return self._found(played)
        elif played.kind == "not_archived" and self.playback_serves_captures:
            return _none()
        return await self._by_cdx(url, ts, hops, seen)

    async def _by_cdx(self, url: str, ts: str, hops: list[dict[str, Any]], seen: set[str]) -> Lookup:
        wayback = self.wayback
        rows: list[Capture] = []
        try:
            capture = await wayback.closest(url, ts, "200")
            if capture is None:
                rows = await wayback.nearest(url, ts)
        except FetchError as exc:
            return _error(
                "cdx", exc.reason, wayback.cdx_url if _misconfigured(exc) else None, reason=_reason(exc)
            )
        except CdxError as exc:
            stale = [wayback.cdx_key(url, ts, "200"), wayback.cdx_key(url, ts, "3..")]
            return _error("cdx", str(exc), wayback.cdx_url if exc.misconfigured else None, stale)
        redirect = next((r for r in rows if r.statuscode.startswith("3")), None)
        chosen = capture or redirect
        if chosen is None:
            if rows:
                return _none(NO_200_CAPTURE, f"archived only with status {_statuses(rows)}")
            return _none()
        where = (chosen.timestamp, chosen.original or url)
        try:
            played = await wayback.play(*where)
        except FetchError as exc:
            endpoint = wayback.playback_url if _misconfigured(exc) else None
            return self._failed(_reason(exc), None, exc.reason, endpoint=endpoint, archive=where)
        if played.kind == "capture":
            self.playback_serves_captures = True
        if played.kind != "capture" and played.status not in (200, 404) and not 300 <= played.status < 400:
            # A refusal (403, 501) of this capture, not a verdict on it: asked again on --retry-failed.
            return self._failed(FETCH_FAILED, played, f"HTTP {played.status}", archive=where)
        if capture is not None:
            if played.kind != "capture":
                # What a wrong playback prefix answers: a page that is no capture, or a 404.
                reason, endpoint = _unconfirmed(played), wayback.playback_url
                return self._failed(reason, played, played.detail, endpoint=endpoint, archive=where)
            if played.status != 200:
                detail = f"the CDX row says 200, the playback HTTP {played.status}"
                return self._failed(CAPTURE_NOT_200, played, detail, archive=where)
            if played.timestamp != capture.timestamp:
                detail = f"playback served the capture of {played.timestamp}, not {capture.timestamp}"
                return self._failed(CAPTURE_UNVERIFIED, played, detail, archive=where)
            return self._found(played)
        if played.kind != "capture" or not 300 <= played.status < 400 or not played.target:
            detail = played.detail or f"HTTP {played.status} for a {chosen.statuscode} capture"
            return self._failed(_unconfirmed(played), played, detail, archive=where)
        return await self._follow(url, ts, played, hops, seen)

    async def _by_memento(self, url: str, ts: str, hops: list[dict[str, Any]], seen: set[str]) -> Lookup:
        assert self.memento is not None, "the memento lookup needs a TimeGate or a TimeMap"
        endpoints = self.wayback.endpoints
        try:
            gate = await self.memento.timegate(url, ts)
        except FetchError as exc:
            endpoint = endpoints.timegate_url if _misconfigured(exc) else None
            return _error("memento", exc.reason, endpoint, reason=_reason(exc))
        except MementoError as exc:
            return _error("memento", str(exc), endpoints.timegate_url)
        if gate.memento_headers:
            self.timegate_answers_memento = True
        elif self.timegate_answers_memento:
            return _none()  # the TimeGate's own "never archived", now that it has shown it is one
        elif not endpoints.timemap_url:
            detail = "HTTP 404 without Memento headers (is it a TimeGate?)"
            return _error("memento", detail, endpoints.timegate_url)
        if gate.memento is None and gate.memento_headers:
            return _none()  # a TimeGate that chooses no memento has none of the URL
        odd: tuple[Played, str, str] | None = None  # the first memento that was no capture of the URL
        captured = False  # whether any memento played back as a capture of the URL (of any status)
        if gate.memento is not None:
            first = await self._probe(gate.memento.uri, url)
            if isinstance(first, Lookup):
                return first
            if first.kind == "capture" and same_page(first.original or url, url):
                if first.status == 200:
                    return self._found(first, gate.memento.uri)
                captured = True
            else:
                odd = (first, gate.memento.uri, _not_a_capture(first, url))
        # The TimeGate's choice is not a 200: the TimeMap's mementos, closest first, say which is.
        try:
            mementos = await self.memento.timemap(url, gate.timemap)
        except FetchError as exc:
            endpoint = endpoints.timemap_url if _misconfigured(exc) else None
            return _error("memento", exc.reason, endpoint, reason=_reason(exc))
        except MementoError as exc:
            return _error("memento", str(exc), endpoints.timemap_url)
        if not mementos and gate.memento is not None and odd is None:
            return _none(NO_200_CAPTURE, "the TimeGate's memento is no 200 capture and there is no TimeMap")
        redirect: Played | None = None
        ordered = [
            m for m in sorted(mementos, key=lambda m: closeness(m.timestamp, ts)) if endpoints.allows(m.uri)
        ]
        for memento in ordered[:MAX_PROBES]:
            played = await self._probe(memento.uri, url)
            if isinstance(played, Lookup):
                return played
            if played.kind != "capture" or not same_page(played.original or url, url):
                odd = odd or (played, memento.uri, _not_a_capture(played, url))
                continue
            captured = True
            if played.status == 200:
                return self._found(played, memento.uri)
            if played.target and redirect is None and 300 <= played.status < 400:
                redirect = played
        if redirect is not None:
            return await self._follow(url, ts, redirect, hops, seen)
        if len(ordered) > MAX_PROBES:
            return _none(NO_200_CAPTURE, f"none of the {MAX_PROBES} closest mementos is a 200 capture")
        if captured:
            return _none(NO_200_CAPTURE, "no memento of status 200")
        if odd is not None:
            played, uri, detail = odd
            where = (_ts_of(plain_memento(uri)) or "", url)
            return self._failed(_unconfirmed(played), played, detail, archive=where, uri=uri)
        return _none()

    async def _probe(self, uri: str, url: str) -> Played | Lookup:
        """Play one memento raw (a second ask is answered by the response cache): what it answered, or
        a :class:`Lookup` failure."""
        try:
            played = await self.wayback.play_uri(raw_memento(uri), url)
        except FetchError as exc:
            return Lookup("failed", _reason(exc), failed_at="playback", detail=exc.reason)
        if played.kind == "capture":
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
            return _none(REDIRECT_LIMIT, f"more than {MAX_REDIRECTS} redirect captures in a row")
        if _key(target) in seen:
            return _none(REDIRECT_LIMIT, f"redirect captures loop back to {target}")
        hops.append(hop)
        seen.add(_key(target))
        return await self._find(target, ts, hops, seen)

    def _archive_url(self, timestamp: str, original: str, uri: str | None = None) -> str:
        """The capture's address for people: under the memento's own prefix when it came from a
        TimeMap or TimeGate (``uri``), else under the playback prefix."""
        if uri is not None:
            plain = plain_memento(uri)
            prefix = plain.rsplit(f"/{_ts_of(plain)}/", 1)[0] if _ts_of(plain) else None
            return f"{prefix}/{timestamp}/{original}" if prefix else plain
        return self.wayback.archive_url(timestamp, original)

    def _found(self, played: Played, uri: str | None = None) -> Lookup:
        original = played.original or ""
        archive_url = self._archive_url(played.timestamp or "", original, uri)
        return Lookup(
            "found", played=played, archive_url=archive_url, timestamp=played.timestamp, original=original
        )

    def _failed(
        self,
        reason: str,
        played: Played | None,
        detail: str,
        *,
        endpoint: str | None = None,
        archive: tuple[str, str] | None = None,
        uri: str | None = None,
    ) -> Lookup:
        """A chosen capture (``archive``: its timestamp and URL; ``uri``: its memento) whose playback
        failed (``fetch_failed``) or does not confirm it."""
        if played is not None and played.timestamp:
            stamp, original = played.timestamp, played.original
        else:
            stamp, original = archive or (None, None)
        lookup = Lookup(
            "failed", reason, played=played, failed_at="playback", detail=detail, endpoint=endpoint
        )
        if stamp and original:
            lookup.timestamp, lookup.original = stamp, original
            lookup.archive_url = self._archive_url(stamp, original, uri)
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
