"""One polite asynchronous HTTP client for every request the collector makes.

The Wayback Machine blocks an address for an hour when it keeps sending requests after a 429, and
wikiHow's API asks clients to back off when its replicas lag; so every request goes through one place
that paces it (a token bucket per *lane*: MediaWiki API, Wayback CDX, Wayback playback), caps how many
are in flight, retries what is worth retrying with exponential backoff and full jitter, honours
``Retry-After`` (seconds or an HTTP date) by pausing the whole host that long, lowers a lane's rate on
429s and raises it again as answers come (AIMD, even for a lane configured unpaced), and pauses a host
for longer only when 429s keep coming at the lowest rate. Completed
responses can be cached (:class:`ResponseCache`) so a killed run never asks for them again.

The client is aiohttp's rather than httpx's: building 150 articles × 6 references from the replay site
(200 ms latency, 32 requests in flight, client and site in one process) cost 8.5 ms of CPU per request
with httpx 0.28 / httpcore 1.0.9, whose connection pool rescans every connection on each request, and
1.6 ms with aiohttp 3.14; the reference phase took 27.5 s instead of 11.6 s (the ideal is 10.3 s).
"""

from __future__ import annotations

import asyncio
import collections
import json
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import quote, urlencode, urlsplit

import aiohttp
from yarl import URL

from wikihowqa import __version__
from wikihowqa.collect.http_body import DEFAULT_MAX_BODY_BYTES, TOO_LARGE, read_capped
from wikihowqa.core.errors import SettingsError
from wikihowqa.core.retry_after import retry_after_s

MEDIAWIKI, CDX, PLAYBACK = "mediawiki", "cdx", "playback"
LANES = (MEDIAWIKI, CDX, PLAYBACK)

#: Requests per second the real services tolerate: the Wayback Machine's CDX server answers 429 above
#: about 0.4/s (15/min over a minute) and playback above about 8/s; wikiHow asks for a modest pace.
DEFAULT_RATES: Mapping[str, float] = {MEDIAWIKI: 2.0, CDX: 0.4, PLAYBACK: 8.0}

_FATAL = "too many redirects"
#: The longest ``Retry-After`` wait honoured (5 min); asked for more, the request is deferred to a later run.
DEFAULT_MAX_RETRY_AFTER_S = 300.0
RETRY_STATUS = frozenset({500, 502, 503, 504, 520, 521, 522, 523, 524})


def user_agent(contact: str | None) -> str:
    """A User-Agent that names the tool, its version and whom to contact (as Wikimedia's policy asks)."""
    who = contact.strip() if contact and contact.strip() else "contact unset: pass --contact"
    return f"wikihowqa/{__version__} ({who}) aiohttp/{aiohttp.__version__}"


@dataclass(frozen=True)
class HttpSettings:
    """How politely to fetch. ``rates`` maps lane → requests/s (``None`` or 0: no pacing)."""

    concurrency: int = 8
    rates: Mapping[str, float | None] = field(default_factory=lambda: dict(DEFAULT_RATES))
    burst: int = 1
    timeout_s: float = 30.0
    retries: int = 5
    throttle_retries: int = 10
    backoff_s: float = 1.0
    backoff_max_s: float = 120.0
    throttle_backoff_s: float = 10.0  # base backoff after a 429 without Retry-After
    throttle_burst: int = 3  # this many 429s from one host within throttle_window_s at the lowest rate ...
    throttle_window_s: float = 60.0
    throttle_pause_s: float = 120.0  # ... pause the whole host this long
    max_retry_after_s: float = DEFAULT_MAX_RETRY_AFTER_S
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    contact: str | None = None

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise SettingsError(f"concurrency must be at least 1, got {self.concurrency}")
        for lane, rate in self.rates.items():
            if rate is not None and rate < 0:
                raise SettingsError(f"rate of {lane} must be >= 0 requests/s, got {rate}")
        if self.burst < 1:
            raise SettingsError(f"burst must be at least 1, got {self.burst}")
        if self.timeout_s <= 0:
            raise SettingsError(f"timeout must be positive, got {self.timeout_s}")
        if self.retries < 0 or self.throttle_retries < 0:
            raise SettingsError("retries must be >= 0")
        if min(self.backoff_s, self.backoff_max_s, self.throttle_backoff_s, self.throttle_pause_s) < 0:
            raise SettingsError("backoff and pause durations must be >= 0")
        if self.throttle_burst < 1:
            raise SettingsError(f"throttle burst must be at least 1, got {self.throttle_burst}")
        if self.max_retry_after_s < 0:
            raise SettingsError(f"max-retry-after must be >= 0 seconds, got {self.max_retry_after_s}")
        if self.max_body_bytes < 1:
            raise SettingsError(f"the body size cap must be at least 1 byte, got {self.max_body_bytes}")

    @property
    def user_agent(self) -> str:
        return user_agent(self.contact)

    def rate(self, lane: str) -> float | None:
        rate = self.rates.get(lane)
        return rate if rate else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "concurrency": self.concurrency,
            "rates": {lane: self.rate(lane) for lane in sorted(set(self.rates) | set(LANES))},
            "burst": self.burst,
            "timeout_s": self.timeout_s,
            "retries": self.retries,
            "throttle_retries": self.throttle_retries,
            "backoff_s": self.backoff_s,
            "backoff_max_s": self.backoff_max_s,
            "throttle_backoff_s": self.throttle_backoff_s,
            "throttle_burst": self.throttle_burst,
            "throttle_window_s": self.throttle_window_s,
            "throttle_pause_s": self.throttle_pause_s,
            "max_retry_after_s": self.max_retry_after_s,
            "max_body_bytes": self.max_body_bytes,
            "user_agent": self.user_agent,
        }


@dataclass(frozen=True, slots=True)
class Response:
    """A complete response: the body was read in full (a short body is a retried error, never this)."""

    url: str
    status: int
    headers: Mapping[str, str]  # lower-case names
    content: bytes
    from_cache: bool = False

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def json(self) -> Any:
        return json.loads(self.content)


class FetchError(Exception):
    """A request that failed every attempt; ``reason`` is short and stable (it ends up in manifests)."""

    def __init__(self, url: str, reason: str, attempts: int) -> None:
        super().__init__(f"{url}: {reason} (after {attempts} attempt{'s' * (attempts != 1)})")
        self.url, self.reason, self.attempts = url, reason, attempts


class BodyTooLarge(FetchError):
    """A body past ``max_body_bytes`` once decompressed: stopped as it arrived, never retried."""


class Deferred(FetchError):
    """Asked to wait (``Retry-After``) past ``max_retry_after_s`` (``wait_s``): left for a later run."""

    def __init__(self, url: str, reason: str, attempts: int, wait_s: float) -> None:
        super().__init__(url, reason, attempts)
        self.wait_s = wait_s


class ResponseCache(Protocol):
    def get_response(self, key: str) -> Response | None: ...

    def put_response(self, key: str, response: Response) -> None: ...


def request_key(url: str, params: Mapping[str, Any] | None = None) -> str:
    """The cache key of a GET: the full URL with its query, parameters in the order given."""
    if not params:
        return url
    query = urlencode([(k, str(v)) for k, v in params.items()], quote_via=quote, safe="|:,")
    return f"{url}{'&' if '?' in url else '?'}{query}"


def _url(key: str) -> URL:
    """The URL to send: as built when it is plain ASCII (kept byte for byte), else quoted by yarl."""
    plain = key.isascii() and not any(c.isspace() for c in key)
    return URL(key, encoded=plain)


def backoff_delay(attempt: int, base_s: float, max_s: float, rng: random.Random) -> float:
    """Exponential backoff with full jitter (uniform in ``[0, min(max, base·2^attempt)]``): retries of
    many clients spread out instead of arriving together."""
    return rng.uniform(0.0, min(max_s, base_s * (2**attempt)))


class Pacer:
    """A token bucket as a schedule: each caller reserves the next free slot, so the achieved rate is the
    configured one even under any concurrency, and ``burst`` requests may go at once after idling.

    The rate adapts to 429s as TCP's congestion window adapts to loss (AIMD): a 429 halves it, once per
    window (only a request sent after the last decrease can lower it again), and each answered request
    adds back a twentieth of the rate it climbs to, the configured one. An unpaced lane learns its rate
    at the first 429 from how fast it was sending, paces itself from then on, and is unpaced again once
    it has climbed back to that rate. Against a server that throttles a share of requests whatever the
    pace, the rate settles well above its floor instead of falling to it."""

    #: The rate never falls below this share of the rate it climbs to.
    FLOOR = 0.125
    #: Each answered request adds this share of that rate back.
    STEP = 0.05

    def __init__(self, rate: float | None, burst: int = 1) -> None:
        self.configured = rate
        self.rate = rate
        self.burst = burst
        self.top = rate  # what the rate climbs back to (an unpaced lane: its rate at the first 429)
        self._next = 0.0
        self._decreased_at = -math.inf
        self._sends: collections.deque[float] = collections.deque(maxlen=32)

    def reserve(self, now: float) -> float:
        """Reserve a slot; returns how long to wait for it."""
        if not self.rate:
            return 0.0
        interval = 1.0 / self.rate
        slot = max(self._next, now - (self.burst - 1) * interval)
        self._next = slot + interval
        return max(0.0, slot - now)

    def measured(self) -> float | None:
        """Requests/s of the recent sends (``None`` before there are two)."""
        if len(self._sends) < 2:
            return None
        span = self._sends[-1] - self._sends[0]
        return (len(self._sends) - 1) / span if span > 0 else None

    @property
    def floor(self) -> float | None:
        return self.top * self.FLOOR if self.top else None

    @property
    def at_floor(self) -> bool:
        return bool(self.rate and self.floor and self.rate <= self.floor + 1e-12)

    def decrease(self, sent_at: float, now: float) -> bool:
        """Halve the rate after a 429 answering a request sent at ``sent_at``; ``False`` when an earlier
        429 of the same window has already halved it."""
        if sent_at <= self._decreased_at:
            return False
        if self.rate is None:
            # Unpaced until now: start from how fast it was really sending (1/s when unknown).
            self.top = self.measured() or 1.0
            self.rate = self.top
        floor = self.floor or 0.0
        self.rate = max(floor, self.rate * 0.5)
        self._decreased_at = now
        return True

    def increase(self) -> None:
        """Add back a step of the rate after an answered request; at the top, the configured pacing
        (none for a lane that was unpaced) takes over again."""
        if self.rate is None or not self.top or self.rate == self.configured:
            return
        self.rate += self.top * self.STEP
        if self.rate >= self.top:
            self.rate = self.configured

    def postpone(self, until: float) -> None:
        self._next = max(self._next, until)

    def sent(self, now: float) -> None:
        """Space the next slot from when a request really left (it may have waited for a free slot)."""
        self._sends.append(now)
        if self.rate:
            self._next = max(self._next, now + (1 - self.burst) / self.rate + 1.0 / self.rate)


@dataclass
class LaneStats:
    requests: int = 0  # sent over the network, retries included
    responses: int = 0  # completed responses returned to callers
    cached: int = 0  # answered from the cache without a request
    failed: int = 0  # gave up after all attempts
    retries: int = 0
    throttled: int = 0  # 429 answers
    server_errors: int = 0
    lagged: int = 0  # answers a retry_if hook rejected (MediaWiki maxlag)
    timeouts: int = 0
    connection_errors: int = 0
    truncated: int = 0
    too_large: int = 0  # bodies stopped at max_body_bytes
    deferred: int = 0  # given up on for a later run: Retry-After over max_retry_after_s
    bytes: int = 0
    first_sent: float | None = None
    last_sent: float | None = None
    last_done: float | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k not in ("first_sent", "last_sent", "last_done")}
        if self.first_sent is not None and self.last_done is not None:
            span = max(self.last_done - self.first_sent, 1e-9)
            out["requests_per_s"] = round(self.requests / span, 3)
        if self.first_sent is not None and self.last_sent is not None and self.requests > 1:
            # What a rate limit constrains: how fast requests leave (the last answer's latency aside).
            span = max(self.last_sent - self.first_sent, 1e-9)
            out["send_rate_per_s"] = round((self.requests - 1) / span, 3)
        return out


class HttpClient:
    """The collector's only HTTP client; use as an async context manager.

    >>> async with HttpClient(HttpSettings(contact="me@example.org")) as http:  # doctest: +SKIP
    ...     r = await http.get("https://web.archive.org/cdx/search/cdx", {"url": u}, lane=CDX)
    """

    def __init__(
        self,
        settings: HttpSettings | None = None,
        *,
        cache: ResponseCache | None = None,
        on_event: Callable[[str], None] | None = None,
        seed: int | None = None,
    ) -> None:
        self.settings = settings or HttpSettings()
        self.cache = cache
        self.on_event = on_event or (lambda _: None)
        self._client: aiohttp.ClientSession | None = None
        self._slots = asyncio.Semaphore(self.settings.concurrency)
        self._pacers: dict[str, Pacer] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._paused_until: dict[str, float] = {}
        self._recent_429: dict[str, collections.deque[float]] = {}
        self._rng = random.Random(seed)
        self.stats: dict[str, LaneStats] = {}
        self.events: list[str] = []

    async def __aenter__(self) -> HttpClient:
        s = self.settings
        self._client = aiohttp.ClientSession(
            headers={"User-Agent": s.user_agent},
            timeout=aiohttp.ClientTimeout(total=s.timeout_s, connect=min(s.timeout_s, 15.0)),
            connector=aiohttp.TCPConnector(limit=s.concurrency, limit_per_host=s.concurrency),
        )
        # aiohttp silently resends a request once when the server drops the connection; every retry must
        # be paced and counted here instead (aiohttp's own test client turns it off the same way).
        if hasattr(self._client, "_retry_connection"):
            self._client._retry_connection = False
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    # ------------------------------------------------------------------ bookkeeping

    def lane_stats(self, lane: str) -> LaneStats:
        return self.stats.setdefault(lane, LaneStats())

    def pacer(self, lane: str) -> Pacer:
        if lane not in self._pacers:
            self._pacers[lane] = Pacer(self.settings.rate(lane), self.settings.burst)
        return self._pacers[lane]

    def _lane_lock(self, lane: str) -> asyncio.Lock:
        return self._locks.setdefault(lane, asyncio.Lock())

    def _event(self, message: str) -> None:
        self.events.append(message)
        self.on_event(message)

    def stats_dict(self) -> dict[str, Any]:
        return {lane: self.stats[lane].as_dict() for lane in sorted(self.stats)}

    def _pause(self, host: str, seconds: float) -> None:
        until = time.monotonic() + seconds
        if until > self._paused_until.get(host, 0.0):
            self._paused_until[host] = until

    def _note_429(self, host: str, lane: str, sent_at: float) -> None:
        """Lower the lane's rate (AIMD); a burst of 429s at the rate's floor also pauses the whole host."""
        s = self.settings
        now = time.monotonic()
        pacer = self.pacer(lane)
        if pacer.decrease(sent_at, now):
            self._event(f"{host}: 429 on {lane}: rate lowered to {pacer.rate:.3g}/s")
        if not pacer.at_floor:
            return
        recent = self._recent_429.setdefault(host, collections.deque())
        recent.append(now)
        while recent and now - recent[0] > s.throttle_window_s:
            recent.popleft()
        if len(recent) >= s.throttle_burst:
            recent.clear()
            self._pause(host, s.throttle_pause_s)
            self._event(
                f"{host}: {s.throttle_burst} × 429 within {s.throttle_window_s:g} s at {lane}'s lowest rate "
                f"({pacer.rate:.3g}/s): pausing the host {s.throttle_pause_s:g} s"
            )

    async def _wait_turn(self, host: str, lane: str) -> None:
        """Wait for the lane's next slot and for any pause of the host, whichever is later."""
        pacer = self.pacer(lane)
        while True:
            now = time.monotonic()
            paused = self._paused_until.get(host, 0.0)
            if paused > now:
                pacer.postpone(paused)
                await asyncio.sleep(paused - now)
                continue
            delay = pacer.reserve(now)
            if delay > 0:
                await asyncio.sleep(delay)
            if self._paused_until.get(host, 0.0) <= time.monotonic():
                return

    # ------------------------------------------------------------------ requests

    async def get(
        self,
        url: str,
        params: Mapping[str, Any] | None = None,
        *,
        lane: str,
        retry_if: Callable[[Response], bool] | None = None,
        cache: bool = True,
        follow_redirects: bool = True,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """GET ``url``; returns the final response (any status) or raises :class:`FetchError`.

        Retried: 429 (after ``Retry-After`` or a backoff, the host paused meanwhile), 5xx, timeouts,
        dropped connections, bodies shorter than announced, and responses ``retry_if`` rejects.
        ``follow_redirects=False`` returns a 3xx as it is: an archive's client decides where a redirect
        may lead (never out of the archive). ``headers`` (e.g. Memento's ``Accept-Datetime``) are sent
        and are part of the cache key.
        """
        key = request_key(url, params)
        cache_key = key
        if headers:
            cache_key += " " + " ".join(f"{k}: {v}" for k, v in sorted(headers.items()))
        stats = self.lane_stats(lane)
        if cache and self.cache is not None:
            hit = self.cache.get_response(cache_key)
            if hit is not None:
                stats.cached += 1
                return hit
        response = await self._fetch(key, lane, retry_if, follow_redirects, headers)
        if cache and self.cache is not None:
            self.cache.put_response(cache_key, response)
        return response

    async def _fetch(
        self,
        key: str,
        lane: str,
        retry_if: Callable[[Response], bool] | None,
        follow_redirects: bool = True,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        assert self._client is not None, "use HttpClient as an async context manager"
        s = self.settings
        stats = self.lane_stats(lane)
        host = urlsplit(key).netloc
        errors = throttles = 0
        attempts = 0
        while True:
            attempts += 1
            # Pace while holding the lane's lock, not a connection slot: a lane waiting for its turn
            # (CDX at 0.4/s) must not starve the others of slots, and sends must stay spaced.
            async with self._lane_lock(lane):
                await self._wait_turn(host, lane)
                await self._slots.acquire()
                sent_at = time.monotonic()
                self.pacer(lane).sent(sent_at)
            try:
                stats.requests += 1
                stats.last_sent = time.monotonic()
                if stats.first_sent is None:
                    stats.first_sent = stats.last_sent
                reason, response = await self._attempt(key, stats, follow_redirects, headers)
                stats.last_done = time.monotonic()
            finally:
                self._slots.release()
            if reason == _FATAL:
                break
            wait: float | None = None
            if response is not None:
                if response.status == 429:
                    stats.throttled += 1
                    throttles += 1
                    reason = "429 too many requests"
                    hinted = retry_after_s(response.header("retry-after"))
                    if hinted is not None and hinted > s.max_retry_after_s:
                        # The host waits the cap (a 429 speaks for every request to it); this one is
                        # left for a later run rather than sent before the server said it may be.
                        self._pause(host, s.max_retry_after_s)
                        self._note_429(host, lane, sent_at)
                        raise self._deferred(key, host, 429, hinted, attempts, stats)
                    wait = (
                        hinted
                        if hinted is not None
                        else backoff_delay(throttles, s.throttle_backoff_s, s.backoff_max_s, self._rng)
                    )
                    self._pause(host, wait)
                    self._note_429(host, lane, sent_at)
                    if throttles > s.throttle_retries:
                        break
                    stats.retries += 1
                    if hinted is not None:
                        self._waiting(host, 429, wait, key)
                    await asyncio.sleep(wait)
                    continue
                if response.status in RETRY_STATUS:
                    stats.server_errors += 1
                    reason = f"HTTP {response.status}"
                elif retry_if is not None and retry_if(response):
                    stats.lagged += 1
                    reason = "server busy (asked to retry later)"
                else:
                    stats.responses += 1
                    stats.bytes += len(response.content)
                    self.pacer(lane).increase()
                    return response
                wait = retry_after_s(response.header("retry-after"))
                if wait is not None and wait > s.max_retry_after_s:
                    raise self._deferred(key, host, response.status, wait, attempts, stats)
            elif reason is not None and reason.startswith(TOO_LARGE):
                stats.failed += 1
                stats.too_large += 1
                raise BodyTooLarge(key, reason, attempts)
            errors += 1
            if errors > s.retries:
                break
            stats.retries += 1
            delay = backoff_delay(errors - 1, s.backoff_s, s.backoff_max_s, self._rng)
            if wait is not None:
                delay = max(delay, wait)
                self._waiting(host, response.status if response is not None else 0, delay, key)
            await asyncio.sleep(delay)
        stats.failed += 1
        raise FetchError(key, reason or "failed", attempts)

    def _waiting(self, host: str, status: int, wait: float, key: str) -> None:
        """Say so when a server's ``Retry-After`` holds a request up for a second or more."""
        if wait >= 1.0:
            self._event(f"{host}: HTTP {status}, Retry-After: waiting {wait:.0f} s to ask again for {key}")

    def _deferred(
        self, key: str, host: str, status: int, wait: float, attempts: int, stats: LaneStats
    ) -> Deferred:
        """A request whose server asked for a longer wait than ``max_retry_after_s``: given up for now."""
        stats.failed, stats.deferred = stats.failed + 1, stats.deferred + 1
        cap = self.settings.max_retry_after_s
        why = f"Retry-After {wait:.0f} s, over the {cap:g} s cap"
        reason = f"HTTP {status} with {why}: deferred to a later run"
        self._event(f"{host}: {reason} ({key})")
        return Deferred(key, reason, attempts, wait)

    async def _attempt(
        self,
        key: str,
        stats: LaneStats,
        follow_redirects: bool = True,
        headers: Mapping[str, str] | None = None,
    ) -> tuple[str | None, Response | None]:
        """One request: ``(None, response)`` or ``(reason, None)`` for a failure worth retrying."""
        assert self._client is not None
        try:
            async with self._client.get(
                _url(key), allow_redirects=follow_redirects, max_redirects=10, headers=headers
            ) as r:
                headers = {k.lower(): v for k, v in r.headers.items()}
                final_url, status = str(r.url), r.status
                body = await read_capped(r, headers, self.settings.max_body_bytes)
                if isinstance(body, str):
                    r.close()  # the rest is never read: the connection is not reused
                    return body, None
                content = bytes(body)
        except (TimeoutError, aiohttp.ServerTimeoutError):
            stats.timeouts += 1
            return "timeout", None
        except aiohttp.ClientPayloadError:
            # A body shorter than its Content-Length, or one that does not decompress.
            stats.truncated += 1
            return "truncated body", None
        except aiohttp.ServerDisconnectedError:
            stats.connection_errors += 1
            return "connection dropped", None
        except aiohttp.TooManyRedirects:
            return _FATAL, None
        except (aiohttp.ClientConnectionError, aiohttp.ClientResponseError, OSError) as exc:
            stats.connection_errors += 1
            return f"connection error ({type(exc).__name__})", None
        declared = headers.get("content-length")
        if (
            declared is not None
            and declared.isdigit()
            and "content-encoding" not in headers
            and int(declared) != len(content)
        ):
            stats.truncated += 1
            return "truncated body", None
        return None, Response(final_url, status, headers, content)
