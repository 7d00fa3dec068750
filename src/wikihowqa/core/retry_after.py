"""HTTP dates and the ``Retry-After`` header (RFC 9110 §5.6.7, §10.2.3), both ways: the collector reads
them, the replay site sends and reads them.

One place knows an HTTP date's forms and the header's two (delay-seconds or an HTTP date), so what the replay
site writes is what the collector's client reads back. (The LLM backends leave ``Retry-After`` to the
``openai`` SDK, which reads it itself.)
"""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def retry_after_s(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value: delta-seconds or an HTTP date (a date in the past:
    0); ``None`` if absent or unusable, so the caller falls back on its own backoff."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    when = http_date(value)
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def http_date(value: str | None) -> datetime | None:
    """An HTTP date (``Sat, 02 Nov 2019 08:15:00 GMT``) as an aware UTC time; ``None`` if unusable."""
    if not value:
        return None
    try:
        when = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:  # "-0000": a time in UTC (RFC 5322 §3.3), not the local time .timestamp() assumes
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def retry_after_value(seconds: float) -> str:
    """The header value for a wait of ``seconds``: whole delta-seconds, rounded up (a client told to come
    back early would only be refused again), never negative."""
    return str(max(0, math.ceil(seconds)))
