"""The Wayback Machine as the collector uses it: the closest 200 capture from CDX, then its raw bytes.

CDX: ``/cdx/search/cdx?url=U&sort=closest&closest=TS&filter=statuscode:200&limit=1&output=json``
(the Internet Archive's wayback-cdx-server README); playback: ``/web/<TS>id_/<original>``, where the
``id_`` flag returns the archived bytes as captured, without the Wayback toolbar or rewritten links.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from wikihowqa.collect.http import CDX, PLAYBACK, HttpClient, Response, request_key


class CdxError(Exception):
    """The CDX server answered something that is not a CDX result."""


@dataclass(frozen=True, slots=True)
class Capture:
    timestamp: str  # 14 digits
    original: str  # the URL as captured
    mimetype: str
    statuscode: str


def wayback_timestamp(iso: str) -> str:
    """``2019-08-11T09:30:00Z`` → ``20190811093000``."""
    moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return moment.strftime("%Y%m%d%H%M%S")


class Wayback:
    def __init__(self, http: HttpClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")

    @property
    def cdx_url(self) -> str:
        return f"{self.base_url}/cdx/search/cdx"

    def raw_url(self, capture: Capture) -> str:
        return f"{self.base_url}/web/{capture.timestamp}id_/{capture.original}"

    def archive_url(self, capture: Capture) -> str:
        """The capture's address for people (with the Wayback page around it), as the release writes it."""
        return f"{self.base_url}/web/{capture.timestamp}/{capture.original}"

    @staticmethod
    def cdx_params(url: str, timestamp: str) -> dict[str, str]:
        """The CDX query for the status-200 capture of ``url`` nearest to ``timestamp``."""
        return {
            "url": url,
            "output": "json",
            "fl": "timestamp,original,mimetype,statuscode",
            "filter": "statuscode:200",
            "sort": "closest",
            "closest": timestamp,
            "limit": "1",
        }

    def cdx_key(self, url: str, timestamp: str) -> str:
        """The response-cache key of :meth:`closest`'s request."""
        return request_key(self.cdx_url, self.cdx_params(url, timestamp))

    def raw_key(self, capture: Capture) -> str:
        """The response-cache key of :meth:`fetch`'s request."""
        return request_key(self.raw_url(capture))

    async def closest(self, url: str, timestamp: str) -> Capture | None:
        """The status-200 capture of ``url`` nearest to ``timestamp`` (14 digits), or ``None``."""
        response = await self.http.get(self.cdx_url, self.cdx_params(url, timestamp), lane=CDX)
        if response.status == 404:
            return None
        if response.status != 200:
            raise CdxError(f"CDX answered HTTP {response.status}")
        text = response.content.decode("utf-8", "replace").strip()
        if not text:
            return None
        try:
            rows = json.loads(text)
        except json.JSONDecodeError:
            raise CdxError("CDX answered something that is not JSON") from None
        if not isinstance(rows, list) or len(rows) < 2:
            return None
        header, first = rows[0], rows[1]
        if not isinstance(header, list) or not isinstance(first, list) or len(header) != len(first):
            raise CdxError("CDX answered rows of an unexpected shape")
        row = dict(zip(header, first, strict=True))
        return Capture(
            timestamp=str(row.get("timestamp", "")),
            original=str(row.get("original", url)),
            mimetype=str(row.get("mimetype", "")),
            statuscode=str(row.get("statuscode", "")),
        )

    async def fetch(self, capture: Capture) -> Response:
        """The archived bytes of a capture (any status: the caller decides what a non-200 means)."""
        return await self.http.get(self.raw_url(capture), lane=PLAYBACK)
