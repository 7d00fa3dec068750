"""A third-party Wayback client, cdx_toolkit, works against the replay site's CDX server and playback.

cdx_toolkit builds its own CDX queries (``output=json``, a default ``limit``, ``from``/``to``,
``closest``), reads Internet-Archive-style JSON (a field-name row, then rows), and fetches each capture's
raw bytes from ``<wb>/<timestamp>id_/<percent-encoded url>``, turning ``X-Archive-Orig-*`` headers back into
the original ones. Expected values come from the test corpus itself, not from the server.
"""

from __future__ import annotations

from datetime import datetime

import cdx_toolkit
import pytest
from cdx_toolkit import myrequests

from tests.replay.replay_corpus import standard_captures
from wikihowqa.replay import EndpointFaults, Faults

GUIDE = "https://www.brewbasics.net/pour-over-guide"
CAPTURES, SNAPSHOTS = standard_captures()


@pytest.fixture(autouse=True)
def no_politeness_delay(monkeypatch):
    """cdx_toolkit waits 3 s between requests to an unknown host (and retries after 2×that): not here."""
    monkeypatch.setitem(myrequests.retry_info, "127.0.0.1", {"next_fetch": 0, "minimum_interval": 0.0})


def fetcher(site) -> cdx_toolkit.CDXFetcher:
    return cdx_toolkit.CDXFetcher(source=site.cdx_url, wb=f"{site.wayback_url}/web")


def recorded(url: str) -> list[dict]:
    return sorted((c for c in CAPTURES if c["url"] == url), key=lambda c: c["timestamp"])


def test_cdx_toolkit_lists_every_capture_of_a_url_in_order(site):
    captures = fetcher(site).get(GUIDE)
    assert [(c["timestamp"], c["status"], c["mime"], c["url"]) for c in captures] == [
        (c["timestamp"], c["statuscode"], c["mimetype"], c["url"]) for c in recorded(GUIDE)
    ]
    assert {c["urlkey"] for c in captures} == {"net,brewbasics)/pour-over-guide"}


def test_cdx_toolkit_closest_and_a_date_range(site):
    cdx = fetcher(site)

    def seconds(ts: str) -> float:
        return datetime.strptime(ts, "%Y%m%d%H%M%S").timestamp()

    wanted = "20190101000000"
    nearest = min(recorded(GUIDE), key=lambda c: abs(seconds(c["timestamp"]) - seconds(wanted)))
    [closest] = cdx.get(GUIDE, closest=wanted, sort="closest", limit=1)
    assert closest["timestamp"] == nearest["timestamp"]
    in_range = [c["timestamp"] for c in cdx.get(GUIDE, from_ts="2017", to="2019")]
    assert in_range == [c["timestamp"] for c in recorded(GUIDE) if "2017" <= c["timestamp"][:4] <= "2019"]


def test_cdx_toolkit_domain_queries_and_limit(site):
    captures = fetcher(site).get("example.org", matchType="domain", limit=3)
    assert len(captures) == 3
    assert all(c["url"].split("/")[2].endswith("example.org") for c in captures)


def test_cdx_toolkit_finds_nothing_for_an_unarchived_url(site):
    assert fetcher(site).get("https://never-archived.example/") == []


@pytest.mark.parametrize(
    ("url", "snapshot"),
    [
        (GUIDE, "pour-a.html"),
        ("http://coffee-lab.org/ratios", "ratios.html"),
        ("https://example.org/report.pdf", "report.pdf"),
    ],
)
def test_cdx_toolkit_fetches_the_raw_bytes_and_original_headers(site, url, snapshot):
    [first, *_] = fetcher(site).get(url)
    assert first.content == SNAPSHOTS[snapshot]
    record = first.fetch_warc_record()
    assert record.http_headers.get_statuscode() == "200"
    recorded_headers = next(c for c in CAPTURES if c["url"] == url)["headers"]
    for name, value in recorded_headers.items():
        assert record.http_headers.get_header(name) == value


def test_cdx_toolkit_reads_a_redirect_capture_with_its_original_location(site):
    [redirect] = [c for c in fetcher(site).get(GUIDE) if c["status"] == "301"]
    record = redirect.fetch_warc_record()
    assert record.http_headers.get_statuscode() == "301"
    target = next(c for c in recorded(GUIDE) if c["statuscode"] == "301")["location"]
    assert record.http_headers.get_header("Location") == target


def test_cdx_toolkit_retries_an_injected_429_and_gets_the_same_answer(site, make_site):
    clean = [dict(c) for c in fetcher(site).get(GUIDE)]
    throttled = make_site(Faults(cdx=EndpointFaults(throttle_every=2)))
    cdx = fetcher(throttled)
    assert [dict(c) for c in cdx.get(GUIDE)] == clean
    assert [dict(c) for c in cdx.get(GUIDE)] == clean  # the 2nd request got a 429; the retry did not
    assert throttled.stats()["cdx"]["status"] == {"200": 2, "429": 1}
