"""The site runs in the background on loopback only, serves connections concurrently, and stops cleanly."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from wikihowqa.core.errors import SettingsError
from wikihowqa.replay import CorpusError, EndpointFaults, Faults, ReplaySite


def test_urls_point_at_the_bound_loopback_port(site):
    assert site.url == f"http://127.0.0.1:{site.port}"
    assert site.mediawiki_url == f"{site.url}/api.php"
    assert site.wayback_url == site.url
    assert site.cdx_url == f"{site.url}/cdx/search/cdx"
    assert site.addresses == [("127.0.0.1", site.port)]


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.org"])
def test_only_loopback_addresses_are_accepted(corpus_dir, host):
    with pytest.raises(SettingsError, match="loopback"):
        ReplaySite(corpus_dir, host=host)


def _outbound_address() -> str | None:
    """This machine's non-loopback IPv4 address, if it has one (a UDP connect sends nothing)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def test_the_site_is_not_reachable_on_other_interfaces(site):
    address = _outbound_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to probe")
    with pytest.raises(OSError), socket.create_connection((address, site.port), timeout=1):
        pass


async def test_32_concurrent_requests_with_latency_are_in_flight_together(make_site):
    site = make_site(Faults(mediawiki=EndpointFaults(latency_s=0.5)))
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client:
        params = {"action": "query", "list": "allpages", "format": "json"}
        responses = await asyncio.gather(*(client.get(site.mediawiki_url, params=params) for _ in range(32)))
    assert all(r.status_code == 200 for r in responses)
    # Served one after another, at most one request would ever be in flight.
    assert site.stats()["mediawiki"]["max_in_flight"] >= 32


def test_stop_releases_the_port_and_start_again_works(corpus_dir, http):
    site = ReplaySite(corpus_dir).start()
    port = site.port
    assert http.get(f"{site.url}/__stats").status_code == 200
    site.stop()
    assert site.port is None
    again = ReplaySite(corpus_dir, port=port).start()
    try:
        assert again.port == port  # the listening socket was closed (only one may listen on a port)
    finally:
        again.stop()


def test_a_busy_port_is_a_clear_error(site, corpus_dir):
    with pytest.raises(SettingsError, match=f"cannot listen on 127.0.0.1:{site.port}"):
        ReplaySite(corpus_dir, port=site.port).start()


def test_a_missing_corpus_is_a_clear_error(tmp_path):
    with pytest.raises(CorpusError, match="corpus folder not found"):
        ReplaySite(tmp_path / "nope")


def test_index_lists_the_endpoints(http, site):
    index = http.get(site.url + "/").json()
    assert index["mediawiki"] == site.mediawiki_url and index["cdx"] == site.cdx_url
