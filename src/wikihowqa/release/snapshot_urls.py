"""Wayback snapshot URLs as releases spell them: the capture each one names, and when two name the same.

A release names a capture as ``http://web.archive.org/web/<timestamp>[flag_]/<original url>``, but the same
capture comes spelled in several ways: the archive over http or https, the original URL's scheme and host
in capitals, the original URL percent-encoded whole (``http%3A%2F%2Fexample.com%2F``) or without its scheme
(``/web/2018/example.com/``, which the Wayback Machine reads as http). Each is read here to one original
URL (scheme and host in lower case, the rest as written), and spellings the archive cannot tell apart
(:func:`wikihowqa.dataset.snapshots.canonical_url`, at the same time) share one
:attr:`NamedCapture.identity`: one capture, fetched once and written once per question.

A timestamp of fewer than 14 digits names a range (``2018``: that year, ``201803``: that month). The capture
is asked for at the middle of the range and its shift measured from there, not from the range's first
second, and it is recorded as partial (:attr:`NamedCapture.partial`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import unquote

from wikihowqa.collect.archive_queries import seconds
from wikihowqa.collect.references import ReferenceTask
from wikihowqa.dataset.snapshots import canonical_url

#: An archive URL's host, and each place in its path a timestamp may stand (``/<digits>[flag_]/``).
_ARCHIVE = re.compile(r"^https?://[^/\s]+(/\S*)$", re.I)
_TIMESTAMP = re.compile(r"/(\d{4,14})(?:[a-z]{2}_)?(?=/)", re.I)
#: What a scheme-less original must start with to be read as a web address: a dotted host name (or
#: ``localhost``), an optional port, then the path, query or nothing.
_HOST = re.compile(
    r"^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z0-9-]+(?::\d+)?(?:[/?#]|$)|^localhost(?::\d+)?", re.I
)
_SPLIT = re.compile(r"^([a-z]+)://([^/?#]*)(.*)$", re.I | re.S)


@dataclass(frozen=True, slots=True)
class NamedCapture:
    """A capture as the release names it: its archive URL as written, its original URL (normalised), the
    14-digit timestamp it is asked for at, and the timestamp's digits as named."""

    archive_url: str
    url: str
    timestamp: str
    named_timestamp: str = ""

    @property
    def partial(self) -> bool:
        """The release names a range (``2018``), not a second: :attr:`timestamp` is its middle."""
        return bool(self.named_timestamp) and len(self.named_timestamp) < 14

    @property
    def identity(self) -> str:
        """The same for every spelling of this capture the archive cannot tell apart."""
        return f"{self.timestamp}|{canonical_url(self.url)}"

    @property
    def task(self) -> ReferenceTask:
        return ReferenceTask(self.url, self.timestamp)


def range_middle(digits: str) -> str:
    """The 14-digit timestamp in the middle of the range a shorter one names (``2018`` → 2 July 2018,
    11:59:59); 14 digits are their own middle."""
    if len(digits) >= 14:
        return digits[:14]
    first, last = seconds(digits.ljust(14, "0")), seconds(digits.ljust(14, "9"))  # clamped to real dates
    return datetime.fromtimestamp((first + last) // 2, UTC).strftime("%Y%m%d%H%M%S")


def original_url(rest: str) -> str | None:
    """The original URL a snapshot URL ends with, decoded and normalised, or ``None`` if it names none."""
    if re.match(r"https?%3A", rest, re.I):
        rest = unquote(rest)
    rest = re.sub(r"^(https?):/*", r"\1://", rest, flags=re.I)  # ``http:/a.example``: a slash collapsed
    if not re.match(r"https?://", rest, re.I):
        if not _HOST.match(rest):
            return None
        rest = "http://" + rest  # the Wayback Machine reads a scheme-less URL as http
    parts = _SPLIT.match(rest)
    if parts is None or not parts.group(2) or any(c.isspace() for c in rest):
        return None
    return f"{parts.group(1).lower()}://{parts.group(2).lower()}{parts.group(3)}"


def named_capture(archive_url: str) -> NamedCapture | None:
    """The capture a release URL names (``…/<timestamp>[flag_]/<original url>``), or ``None``."""
    archive = _ARCHIVE.match(archive_url.strip())
    if archive is None:
        return None
    path = archive.group(1)
    # the first place whose rest is a URL: an original's own path may hold numbers (``/2018/05/``)
    for m in _TIMESTAMP.finditer(path):
        url = original_url(path[m.end() + 1 :])
        if url is not None:
            return NamedCapture(archive_url, url, range_middle(m.group(1)), m.group(1))
    return None
