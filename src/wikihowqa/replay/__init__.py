"""A local site that serves a corpus folder through the real MediaWiki and Wayback protocols.

The collector is written against wikihow.com's ``api.php`` and web.archive.org; pointed at a
:class:`ReplaySite` instead, the same code crawls the embedded demo corpus offline, with whatever
latency, throttling and breakage :class:`Faults` asks for.

>>> from wikihowqa.replay import EndpointFaults, Faults, ReplaySite      # doctest: +SKIP
>>> faults = Faults(cdx=EndpointFaults(rate_limit=0.4), playback=EndpointFaults(latency_s=0.2))
>>> with ReplaySite(corpus_dir, faults=faults) as site:
...     site.mediawiki_url, site.wayback_url, site.stats()
"""

from wikihowqa.replay.corpus import (
    Capture,
    Corpus,
    CorpusError,
    QuickSummary,
    Revision,
    WikiPage,
    load_corpus,
)
from wikihowqa.replay.faults import GROUPS, EndpointFaults, Faults
from wikihowqa.replay.server import ReplaySite

__all__ = [
    "GROUPS",
    "Capture",
    "Corpus",
    "CorpusError",
    "EndpointFaults",
    "Faults",
    "QuickSummary",
    "ReplaySite",
    "Revision",
    "WikiPage",
    "load_corpus",
]
