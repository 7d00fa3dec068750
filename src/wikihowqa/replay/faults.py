"""Fault injection for the replay site: the failures a crawler meets on wikihow.com and web.archive.org.

Faults are configured per endpoint group (``mediawiki``: ``/api.php``; ``cdx``: ``/cdx/search/cdx``;
``playback``: ``/web/...``). For every request of a group the injector decides, in this order:

1. **rate limit** — a token bucket (``rate_limit`` requests/s, ``burst`` tokens) answers 429 when empty;
2. **latency** — ``latency_s`` plus a uniform random ``jitter_s`` before anything is sent;
3. **dropped connection** — the socket is closed without a response;
4. **429** — at a probability or every Nth request, with ``Retry-After: retry_after_s`` or without it;
5. **5xx** — ``error_status`` at a probability or every Nth request;
6. **truncated body** — the real response, announced with its full ``Content-Length`` but cut in half.

Random draws come from one seeded generator per group, drawn in a fixed order for every request, so a
sequential client sees the same faults on every run with the same seed.
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from wikihowqa.core.errors import SettingsError

GROUPS = ("mediawiki", "cdx", "playback")


@dataclass(frozen=True)
class EndpointFaults:
    """What goes wrong for one endpoint group; the defaults inject nothing."""

    latency_s: float = 0.0
    jitter_s: float = 0.0
    throttle_p: float = 0.0
    throttle_every: int = 0
    retry_after_s: int | None = None
    error_p: float = 0.0
    error_every: int = 0
    error_status: int = 503
    drop_p: float = 0.0
    drop_every: int = 0
    truncate_p: float = 0.0
    truncate_every: int = 0
    rate_limit: float | None = None
    burst: int = 1
    rate_limit_retry_after: bool = True
    lag_s: float = 0.0  # replica lag reported to ``maxlag`` (MediaWiki only)

    def __post_init__(self) -> None:
        for name in ("throttle_p", "error_p", "drop_p", "truncate_p"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise SettingsError(f"fault {name} must be a probability in [0, 1], got {value}")
        for name in ("latency_s", "jitter_s", "lag_s"):
            if getattr(self, name) < 0:
                raise SettingsError(f"fault {name} must be >= 0, got {getattr(self, name)}")
        for name in ("throttle_every", "error_every", "drop_every", "truncate_every"):
            if getattr(self, name) < 0:
                raise SettingsError(f"fault {name} must be >= 0 (0 = never), got {getattr(self, name)}")
        if not 500 <= self.error_status <= 599:
            raise SettingsError(f"fault error_status must be a 5xx status, got {self.error_status}")
        if self.retry_after_s is not None and self.retry_after_s < 0:
            raise SettingsError(f"fault retry_after_s must be >= 0, got {self.retry_after_s}")
        if self.rate_limit is not None and self.rate_limit <= 0:
            raise SettingsError(f"fault rate_limit must be > 0 requests/s, got {self.rate_limit}")
        if self.burst < 1:
            raise SettingsError(f"fault burst must be >= 1, got {self.burst}")


@dataclass(frozen=True)
class Faults:
    """Faults of the whole site: one :class:`EndpointFaults` per endpoint group, and the seed."""

    mediawiki: EndpointFaults = field(default_factory=EndpointFaults)
    cdx: EndpointFaults = field(default_factory=EndpointFaults)
    playback: EndpointFaults = field(default_factory=EndpointFaults)
    seed: int = 0

    @classmethod
    def everywhere(cls, faults: EndpointFaults, *, seed: int = 0) -> Faults:
        """The same faults on every endpoint group."""
        return cls(mediawiki=faults, cdx=faults, playback=faults, seed=seed)

    @classmethod
    def from_settings(cls, settings: dict[str, dict[str, Any]], *, seed: int = 0) -> Faults:
        """Build from ``{group or "all": {field: value}}``; ``all`` applies first, groups override it."""
        known = {f.name for f in fields(EndpointFaults)}
        per_group: dict[str, dict[str, Any]] = {g: {} for g in GROUPS}
        for scope in sorted(settings, key=lambda s: s != "all"):
            if scope != "all" and scope not in GROUPS:
                raise SettingsError(f"unknown endpoint group {scope!r}: use one of all, {', '.join(GROUPS)}")
            for key, value in settings[scope].items():
                if key not in known:
                    raise SettingsError(f"unknown fault setting {key!r}")
                for group in GROUPS if scope == "all" else (scope,):
                    per_group[group][key] = value
        return cls(**{g: EndpointFaults(**per_group[g]) for g in GROUPS}, seed=seed)

    def group(self, name: str) -> EndpointFaults:
        return getattr(self, name)

    def with_group(self, name: str, faults: EndpointFaults) -> Faults:
        return replace(self, **{name: faults})


@dataclass(frozen=True)
class Decision:
    """What the injector decided for one request."""

    delay_s: float = 0.0
    action: str = "serve"  # serve | rate_limited | throttled | error | drop
    status: int = 200
    retry_after: int | None = None
    truncate: bool = False


class TokenBucket:
    """Classic token bucket: ``rate`` tokens/s up to ``capacity``; starts full."""

    def __init__(self, rate: float, capacity: int, clock=time.monotonic) -> None:
        self.rate = rate
        self.capacity = float(capacity)
        self.tokens = float(capacity)
        self.clock = clock
        self.stamp = clock()

    def take(self) -> float:
        """Take one token; returns 0 on success, else the seconds until one will be available."""
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


def _counter() -> dict[str, Any]:
    return {
        "requests": 0,
        "in_flight": 0,
        "max_in_flight": 0,
        "status": {},
        "bytes_sent": 0,
        "injected": {
            "delayed": 0,
            "rate_limited": 0,
            "throttled": 0,
            "errors": 0,
            "dropped": 0,
            "truncated": 0,
        },
    }


class Injector:
    """Decides faults per request and counts what was served; safe to read from any thread."""

    def __init__(self, faults: Faults) -> None:
        self.faults = faults
        self._lock = threading.Lock()
        self._rng = {g: random.Random(f"{faults.seed}:{g}") for g in GROUPS}
        self._seen = dict.fromkeys(GROUPS, 0)
        self._buckets = {
            g: TokenBucket(faults.group(g).rate_limit, faults.group(g).burst)  # type: ignore[arg-type]
            for g in GROUPS
            if faults.group(g).rate_limit
        }
        self._stats = {g: _counter() for g in GROUPS}
        self._started = time.time()

    # ------------------------------------------------------------------ decisions

    def decide(self, group: str) -> Decision:
        spec = self.faults.group(group)
        with self._lock:
            self._seen[group] += 1
            n = self._seen[group]
            rng = self._rng[group]
            # Fixed draw order, whether or not a fault is configured, keeps runs reproducible.
            draws = [rng.random() for _ in range(5)]
            delay = spec.latency_s + spec.jitter_s * draws[0]
            bucket = self._buckets.get(group)
            wait = bucket.take() if bucket else 0.0

        def hit(p: float, every: int, draw: float) -> bool:
            return draw < p or (every > 0 and n % every == 0)

        if wait > 0:
            retry = max(1, math.ceil(wait)) if spec.rate_limit_retry_after else None
            return Decision(delay, "rate_limited", 429, retry)
        if hit(spec.drop_p, spec.drop_every, draws[1]):
            return Decision(delay, "drop", 0)
        if hit(spec.throttle_p, spec.throttle_every, draws[2]):
            return Decision(delay, "throttled", 429, spec.retry_after_s)
        if hit(spec.error_p, spec.error_every, draws[3]):
            return Decision(delay, "error", spec.error_status)
        return Decision(delay, "serve", 200, truncate=hit(spec.truncate_p, spec.truncate_every, draws[4]))

    # ------------------------------------------------------------------ counters

    def begin(self, group: str) -> None:
        with self._lock:
            s = self._stats[group]
            s["requests"] += 1
            s["in_flight"] += 1
            s["max_in_flight"] = max(s["max_in_flight"], s["in_flight"])

    def end(self, group: str) -> None:
        with self._lock:
            self._stats[group]["in_flight"] -= 1

    def record(self, group: str, decision: Decision, status: int | None, sent: int) -> None:
        """Count one finished request: ``status`` None means the connection was dropped."""
        with self._lock:
            s = self._stats[group]
            injected = s["injected"]
            if decision.delay_s > 0:
                injected["delayed"] += 1
            if decision.action == "rate_limited":
                injected["rate_limited"] += 1
            elif decision.action == "throttled":
                injected["throttled"] += 1
            elif decision.action == "error":
                injected["errors"] += 1
            elif decision.action == "drop":
                injected["dropped"] += 1
            if decision.truncate and decision.action == "serve":
                injected["truncated"] += 1
            key = "dropped" if status is None else str(status)
            s["status"][key] = s["status"].get(key, 0) + 1
            s["bytes_sent"] += sent

    def snapshot(self) -> dict[str, Any]:
        """A copy of the counters, plus the configuration they were produced under."""
        with self._lock:
            groups = {
                g: {**s, "status": dict(s["status"]), "injected": dict(s["injected"])}
                for g, s in self._stats.items()
            }
        return {
            **groups,
            "seed": self.faults.seed,
            "faults": {g: asdict(self.faults.group(g)) for g in GROUPS},
            "uptime_s": round(time.time() - self._started, 3),
        }

    def reset(self) -> None:
        """Zero the counters (not the random streams nor the buckets)."""
        with self._lock:
            for g in GROUPS:
                in_flight = self._stats[g]["in_flight"]
                self._stats[g] = _counter()
                self._stats[g]["in_flight"] = in_flight


def parse_scoped(option: str, values: list[str], convert) -> dict[str, Any]:
    """``["0.2", "cdx=1"]`` → ``{"all": 0.2, "cdx": 1.0}``: the CLI's ``[GROUP=]VALUE`` flags."""
    out: dict[str, Any] = {}
    for raw in values:
        scope, sep, text = raw.partition("=")
        if not sep:
            scope, text = "all", raw
        scope = scope.strip().lower()
        if scope != "all" and scope not in GROUPS:
            raise SettingsError(
                f"{option} {raw!r}: unknown endpoint group {scope!r} (use {', '.join(GROUPS)})"
            )
        try:
            out[scope] = convert(text.strip())
        except ValueError:
            raise SettingsError(f"{option} {raw!r}: {text.strip()!r} is not a valid value") from None
    return out
