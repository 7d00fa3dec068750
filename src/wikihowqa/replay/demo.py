"""The replay site's demo step: start it on the embedded corpus and read it back through both protocols."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx


def demo_step(ctx: Any) -> None:
    """Serve the corpus (``ctx.settings["corpus"]`` or the embedded one), list it as a client would."""
    from wikihowqa.demo import corpus_path
    from wikihowqa.replay import ReplaySite

    folder = Path(ctx.settings.get("corpus") or corpus_path())
    with ReplaySite(folder) as site, httpx.Client(timeout=30) as client:
        params: dict[str, Any] = {
            "action": "query",
            "list": "allpages",
            "apfilterredir": "nonredirects",
            "aplimit": "max",
            "format": "json",
            "continue": "",
        }
        articles = 0
        while True:
            result = client.get(site.mediawiki_url, params=params).json()
            articles += len(result["query"]["allpages"])
            if "continue" not in result:
                break
            params.update(result["continue"])
        captures = sum(len(site.app.archive.by_key[key]) for key in site.app.archive.by_key)
        keys = len(site.app.archive.by_key)
        first = next(iter(site.app.archive.by_key.values()), None)
        if first:  # one CDX round trip proves the Wayback side answers
            rows = client.get(site.cdx_url, params={"url": first[0].url, "output": "json"}).json()
            assert len(rows) == len(first) + 1
        ctx.record(
            "replay site (MediaWiki API + Wayback CDX/playback)",
            folder,
            f"{articles} articles, {captures} captures of {keys} URLs served on {site.url}",
        )
