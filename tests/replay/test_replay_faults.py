"""Every fault option, observed from a real HTTP client, and counted in the site's statistics."""

from __future__ import annotations

import http.client as httplib
import socket
import time

import httpx
import pytest
import requests

from wikihowqa.core.errors import SettingsError
from wikihowqa.replay import EndpointFaults, Faults
from wikihowqa.replay.faults import Injector, TokenBucket, parse_scoped

GUIDE = "https://www.brewbasics.net/pour-over-guide"
CDX_QUERY = {"url": GUIDE, "output": "json"}


def playback_path(site) -> str:
    return f"{site.url}/web/20160301120000id_/{GUIDE}"


def test_429_with_retry_after(http, make_site):
    site = make_site(Faults(cdx=EndpointFaults(throttle_every=1, retry_after_s=7)))
    response = http.get(site.cdx_url, params=CDX_QUERY)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    assert site.stats()["cdx"]["injected"]["throttled"] == 1


def test_429_without_retry_after_at_a_probability(http, make_site):
    site = make_site(Faults(cdx=EndpointFaults(throttle_p=1.0)))
    response = http.get(site.cdx_url, params=CDX_QUERY)
    assert response.status_code == 429
    assert "retry-after" not in response.headers


def test_429_every_nth_request_only(http, make_site):
    site = make_site(Faults(mediawiki=EndpointFaults(throttle_every=3)))
    codes = [
        http.get(site.mediawiki_url, params={"action": "query", "format": "json"}).status_code
        for _ in range(7)
    ]
    assert codes == [200, 200, 429, 200, 200, 429, 200]
    assert site.stats()["mediawiki"]["status"] == {"200": 5, "429": 2}


def test_5xx_at_a_probability_with_the_configured_status(http, make_site):
    site = make_site(Faults(playback=EndpointFaults(error_p=1.0, error_status=502)))
    assert http.get(playback_path(site)).status_code == 502
    assert site.stats()["playback"]["injected"]["errors"] == 1
    assert http.get(site.cdx_url, params=CDX_QUERY).status_code == 200  # other groups are untouched


def test_dropped_connection_is_a_connection_error_for_clients(http, make_site):
    site = make_site(Faults(playback=EndpointFaults(drop_every=1)))
    with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
        http.get(playback_path(site))
    with pytest.raises(requests.ConnectionError):
        requests.get(playback_path(site), timeout=10)
    assert site.stats()["playback"]["injected"]["dropped"] == 2
    assert site.stats()["playback"]["status"] == {"dropped": 2}


def test_truncated_body_is_an_incomplete_read_for_clients(http, make_site):
    site = make_site(Faults(playback=EndpointFaults(truncate_every=1)))
    with pytest.raises(httpx.RemoteProtocolError, match=r"complete message body"):
        http.get(playback_path(site))
    connection = httplib.HTTPConnection("127.0.0.1", site.port, timeout=10)
    connection.request("GET", f"/web/20160301120000id_/{GUIDE}")
    response = connection.getresponse()
    assert response.status == 200
    with pytest.raises(httplib.IncompleteRead) as caught:
        response.read()
    assert len(caught.value.partial) < int(response.getheader("Content-Length"))
    connection.close()
    assert site.stats()["playback"]["injected"]["truncated"] == 2


def test_truncated_body_at_a_probability_stops_short_of_its_content_length(http, site, make_site):
    full = http.get(playback_path(site)).content  # the shared site injects nothing
    faulty = make_site(Faults(playback=EndpointFaults(truncate_p=1.0)))
    connection = httplib.HTTPConnection("127.0.0.1", faulty.port, timeout=10)
    connection.request("GET", f"/web/20160301120000id_/{GUIDE}")
    response = connection.getresponse()
    assert response.status == 200 and int(response.getheader("Content-Length")) == len(full)
    with pytest.raises(httplib.IncompleteRead) as caught:
        response.read()
    connection.close()
    assert caught.value.partial == full[: len(full) // 2] and 0 < len(caught.value.partial) < len(full)
    with pytest.raises(httpx.RemoteProtocolError, match=r"complete message body"):
        http.get(playback_path(faulty))
    assert faulty.stats()["playback"]["injected"]["truncated"] == 2


def test_truncation_probability_cuts_some_bodies_and_counts_them(http, make_site):
    site = make_site(Faults(playback=EndpointFaults(truncate_p=0.5), seed=4))
    failed = 0
    for _ in range(20):
        try:
            http.get(playback_path(site))
        except httpx.RemoteProtocolError:
            failed += 1
    assert 0 < failed < 20
    assert site.stats()["playback"]["injected"]["truncated"] == failed


def test_dropped_connection_at_a_probability_sends_no_byte(http, make_site):
    site = make_site(Faults(cdx=EndpointFaults(drop_p=1.0)))
    with socket.create_connection(("127.0.0.1", site.port), timeout=10) as raw:
        raw.sendall(b"GET /cdx/search/cdx?url=example.org HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert raw.recv(65536) == b""  # closed without a status line
    with pytest.raises(httpx.RemoteProtocolError, match="without sending a response"):
        http.get(site.cdx_url, params=CDX_QUERY)
    assert http.get(playback_path(site)).status_code == 200  # other groups are untouched
    assert site.stats()["cdx"]["injected"]["dropped"] == 2
    assert site.stats()["cdx"]["status"] == {"dropped": 2}


@pytest.mark.parametrize("send", [True, False])
def test_rate_limit_429_with_or_without_retry_after(http, make_site, send):
    site = make_site(Faults(cdx=EndpointFaults(rate_limit=0.2, burst=1, rate_limit_retry_after=send)))
    first, second = (http.get(site.cdx_url, params=CDX_QUERY) for _ in range(2))
    assert first.status_code == 200 and second.status_code == 429
    if send:
        assert second.headers["retry-after"] == "5"  # one token per 5 s, the bucket just emptied
    else:
        assert "retry-after" not in second.headers
    assert site.stats()["cdx"]["injected"]["rate_limited"] == 1


def test_rate_limit_answers_429_above_the_rate_and_200_below(http, make_site):
    site = make_site(Faults(cdx=EndpointFaults(rate_limit=10.0, burst=1)))
    below = []
    for _ in range(4):
        below.append(http.get(site.cdx_url, params=CDX_QUERY).status_code)
        time.sleep(0.15)  # under 10 requests/s
    assert below == [200] * 4
    above = [http.get(site.cdx_url, params=CDX_QUERY) for _ in range(15)]  # back to back: far above 10/s
    limited = [r for r in above if r.status_code == 429]
    assert len(limited) >= 5
    assert all(r.headers["retry-after"] == "1" for r in limited)
    assert site.stats()["cdx"]["injected"]["rate_limited"] == len(limited)


def test_latency_delays_every_response(http, make_site):
    site = make_site(Faults(mediawiki=EndpointFaults(latency_s=0.3, jitter_s=0.1)))
    start = time.perf_counter()
    response = http.get(site.mediawiki_url, params={"action": "query", "meta": "siteinfo", "format": "json"})
    assert response.status_code == 200
    assert time.perf_counter() - start >= 0.3
    assert site.stats()["mediawiki"]["injected"]["delayed"] == 1


def test_the_same_seed_injects_the_same_faults(http, make_site):
    def statuses(seed: int) -> list[int]:
        site = make_site(Faults(cdx=EndpointFaults(throttle_p=0.5), seed=seed))
        return [http.get(site.cdx_url, params=CDX_QUERY).status_code for _ in range(24)]

    first = statuses(11)
    assert statuses(11) == first
    assert statuses(12) != first
    assert {200, 429} == set(first)


def test_stats_endpoint_matches_the_python_counters(http, make_site):
    site = make_site(Faults(cdx=EndpointFaults(throttle_every=2)))
    for _ in range(4):
        http.get(site.cdx_url, params=CDX_QUERY)
    over_http = http.get(f"{site.url}/__stats").json()
    assert over_http["cdx"] == site.stats()["cdx"]
    assert over_http["cdx"]["requests"] == 4 and over_http["cdx"]["status"] == {"200": 2, "429": 2}
    assert over_http["faults"]["cdx"]["throttle_every"] == 2
    site.reset_stats()
    assert site.stats()["cdx"]["requests"] == 0


# --------------------------------------------------------------------------- configuration


@pytest.mark.parametrize(
    "bad",
    [
        {"throttle_p": 1.5},
        {"error_status": 404},
        {"rate_limit": 0},
        {"burst": 0},
        {"latency_s": -1},
        {"drop_every": -2},
    ],
)
def test_impossible_fault_settings_are_refused(bad):
    with pytest.raises(SettingsError):
        EndpointFaults(**bad)


def test_cli_style_settings_apply_to_all_groups_then_one():
    faults = Faults.from_settings(
        {"cdx": {"latency_s": 1.0}, "all": {"latency_s": 0.2, "drop_p": 0.1}}, seed=3
    )
    assert faults.mediawiki.latency_s == 0.2 and faults.cdx.latency_s == 1.0
    assert faults.playback.drop_p == 0.1 and faults.seed == 3
    assert parse_scoped("--latency", ["0.5", "cdx=2"], float) == {"all": 0.5, "cdx": 2.0}
    with pytest.raises(SettingsError, match="unknown endpoint group"):
        parse_scoped("--latency", ["wiki=1"], float)
    with pytest.raises(SettingsError, match="not a valid value"):
        parse_scoped("--latency", ["cdx=fast"], float)


def test_token_bucket_refills_at_its_rate():
    now = [0.0]
    bucket = TokenBucket(rate=2.0, capacity=2, clock=lambda: now[0])
    assert [bucket.take() for _ in range(3)] == [0.0, 0.0, 0.5]
    now[0] = 0.5  # one token back
    assert bucket.take() == 0.0
    assert bucket.take() == pytest.approx(0.5)


def test_every_nth_counts_per_group():
    injector = Injector(Faults(cdx=EndpointFaults(error_every=2), mediawiki=EndpointFaults(error_every=2)))
    actions = [injector.decide(g).action for g in ("cdx", "mediawiki", "cdx", "mediawiki")]
    assert actions == ["serve", "serve", "error", "error"]


def test_jitter_draws_reproducible_delays_within_its_range():
    def delays(seed: int) -> list[float]:
        injector = Injector(Faults(playback=EndpointFaults(latency_s=0.2, jitter_s=0.1), seed=seed))
        return [injector.decide("playback").delay_s for _ in range(50)]

    first = delays(5)
    assert all(0.2 <= d <= 0.3 for d in first)
    assert max(first) - min(first) > 0.05  # actually random, not a constant
    assert delays(5) == first
