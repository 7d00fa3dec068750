"""Where the archive answers and how captures are found there: one setting for ``build`` and ``hydrate``.

The archive options mean the same in both commands (``--wayback-url`` for the Internet Archive's layout,
``--cdx-url``/``--playback-url`` for pywb and other Wayback software, the Memento options for archives
without CDX and for aggregators, ``--lookup``), so they are read into one record, checked once, and turned
into :class:`~wikihowqa.collect.archive_queries.ArchiveEndpoints` and a
:class:`~wikihowqa.collect.captures.CaptureFinder` here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from wikihowqa.collect.archive_queries import ArchiveEndpoints, Wayback
from wikihowqa.collect.captures import LOOKUPS, CaptureFinder
from wikihowqa.collect.http import HttpClient
from wikihowqa.collect.memento import MementoClient
from wikihowqa.core.errors import SettingsError

DEFAULT_WAYBACK_URL = "https://web.archive.org"


@dataclass(frozen=True)
class ArchiveSettings:
    """The archive options of ``build`` and ``hydrate``."""

    wayback_url: str = DEFAULT_WAYBACK_URL
    cdx_url: str | None = None  # overrides the wayback_url layout's CDX endpoint
    playback_url: str | None = None  # overrides its playback prefix
    memento_timegate: str | None = None
    memento_timemap: str | None = None  # a template with {url}
    archive_hosts: tuple[str, ...] = ()  # further hosts mementos may be fetched from (aggregators)
    lookup: str | None = None  # cdx | playback | memento (default: memento with a TimeGate/TimeMap, else cdx)

    def __post_init__(self) -> None:
        if not re.match(r"^https?://[^/\s]+", self.wayback_url or ""):
            raise SettingsError(f"wayback-url must be an http(s) URL, got {self.wayback_url!r}")
        if self.lookup is not None and self.lookup not in LOOKUPS:
            raise SettingsError(f"lookup must be one of {', '.join(LOOKUPS)}, got {self.lookup!r}")
        if self.lookup == "memento" and not (self.memento_timegate or self.memento_timemap):
            raise SettingsError("lookup 'memento' needs --memento-timegate or --memento-timemap")
        self.endpoints  # noqa: B018 - checks the archive URLs

    @property
    def archive_lookup(self) -> str:
        if self.lookup is not None:
            return self.lookup
        return "memento" if self.memento_timegate or self.memento_timemap else "cdx"

    @property
    def endpoints(self) -> ArchiveEndpoints:
        """Where the archive answers: the ``wayback_url`` layout, with the explicit endpoints over it."""
        memento_only = (self.memento_timegate or self.memento_timemap) and not (
            self.cdx_url or self.playback_url
        )
        base = ArchiveEndpoints() if memento_only else ArchiveEndpoints.wayback(self.wayback_url)
        return ArchiveEndpoints(
            cdx_url=self.cdx_url or base.cdx_url,
            playback_url=self.playback_url or base.playback_url,
            timegate_url=self.memento_timegate,
            timemap_url=self.memento_timemap,
            extra_hosts=tuple(self.archive_hosts),
        )

    def finder(self, http: HttpClient) -> CaptureFinder:
        """The capture rule, by the configured method, through ``http``."""
        endpoints = self.endpoints
        memento = MementoClient(http, endpoints) if endpoints.timegate_url or endpoints.timemap_url else None
        return CaptureFinder(Wayback(http, endpoints), self.archive_lookup, memento)

    def as_dict(self) -> dict[str, Any]:
        return {
            "wayback_url": self.wayback_url,
            "archive": self.endpoints.as_dict(),
            "lookup": self.archive_lookup,
        }
