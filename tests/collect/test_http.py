"""The HTTP layer retries what is worth retrying, honours Retry-After, paces lanes, and stays polite."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from tests.collect.scripted_server import Step, fast_settings
from wikihowqa import __version__
from wikihowqa.collect.http import (
    CDX,
    PLAYBACK,
    BodyTooLarge,
    Deferred,
    FetchError,
    HttpClient,
    HttpSettings,
    Pacer,
    Response,
    backoff_delay,
    request_key,
    user_agent,
)
from wikihowqa.core.errors import SettingsError


async def test_a_5xx_is_retried_until_the_server_answers(server):
    url = server.script("/a", [Step(503), Step(502), Step(200, b"done")])
    async with HttpClient(fast_settings()) as http:
        response = await http.get(url, lane=CDX)
    assert response.status == 200 and response.content == b"done"
    assert len(server.hits_of("/a")) == 3
    stats = http.stats[CDX]
    assert (stats.requests, stats.server_errors, stats.retries, stats.responses) == (3, 2, 2, 1)


async def test_a_request_that_keeps_failing_raises_fetch_error_after_the_configured_retries(server):
    url = server.script("/a", [Step(500)])
    async with HttpClient(fast_settings(retries=2)) as http:
        with pytest.raises(FetchError) as info:
            await http.get(url, lane=CDX)
    assert info.value.reason == "HTTP 500" and info.value.attempts == 3
    assert len(server.hits_of("/a")) == 3
    assert http.stats[CDX].failed == 1


async def test_a_404_is_an_answer_not_an_error(server):
    url = server.script("/a", [Step(404, b"not here")])
    async with HttpClient(fast_settings()) as http:
        response = await http.get(url, lane=PLAYBACK)
    assert response.status == 404
    assert len(server.hits_of("/a")) == 1


async def test_429_with_retry_after_seconds_waits_that_long(server):
    url = server.script("/a", [Step(429, headers={"Retry-After": "1"}), Step(200, b"ok")])
    async with HttpClient(fast_settings()) as http:
        response = await http.get(url, lane=CDX)
    hits = server.hits_of("/a")
    assert response.status == 200 and len(hits) == 2
    assert hits[1].at - hits[0].at >= 0.95
    assert http.stats[CDX].throttled == 1


async def test_a_retry_after_wait_is_announced_while_it_is_waited(server):
    url = server.script("/a", [Step(503, headers={"Retry-After": "1"}), Step(200, b"ok")])
    events: list[str] = []
    async with HttpClient(fast_settings(), on_event=events.append) as http:
        response = await http.get(url, lane=PLAYBACK)
    hits = server.hits_of("/a")
    assert response.content == b"ok" and hits[1].at - hits[0].at >= 0.95
    assert events == [f"{url.split('/')[2]}: HTTP 503, Retry-After: waiting 1 s to ask again for {url}"]


@pytest.mark.parametrize("status", [503, 429])
async def test_a_retry_after_over_the_cap_defers_the_request_at_once_instead_of_waiting(server, status):
    url = server.script("/a", [Step(status, headers={"Retry-After": "100000"}), Step(200)])
    events: list[str] = []
    assert HttpSettings().max_retry_after_s == 300  # five minutes unless told otherwise
    async with HttpClient(fast_settings(retries=3), on_event=events.append) as http:
        started = time.monotonic()
        with pytest.raises(Deferred) as info:
            # The old client slept min(100000, 3600) s here, silently.
            await asyncio.wait_for(http.get(url, lane=PLAYBACK), timeout=10)
    assert time.monotonic() - started < 5 and len(server.hits_of("/a")) == 1
    assert info.value.wait_s == 100000 and "over the 300 s cap" in info.value.reason
    assert http.stats[PLAYBACK].deferred == 1
    assert any("deferred to a later run" in e for e in events), events


async def test_a_gzip_body_is_stopped_at_the_size_cap_as_it_inflates_and_not_retried(server):
    import zlib

    bomb = zlib.compress(bytes(50_000_000), 9, wbits=31)  # 49 KB on the wire, 50 MB inflated
    url = server.script("/a", [Step(200, bomb, headers={"Content-Encoding": "gzip"})])
    async with HttpClient(fast_settings(max_body_bytes=1_000_000)) as http:
        with pytest.raises(BodyTooLarge) as info:
            await http.get(url, lane=PLAYBACK)
        ok = server.script("/b", [Step(200, b"x" * 1_000_000)])  # at the cap: kept
        assert len((await http.get(ok, lane=PLAYBACK)).content) == 1_000_000
    assert "gzip-decoded body past the 1,000,000-byte cap" in info.value.reason
    assert len(server.hits_of("/a")) == 1 and http.stats[PLAYBACK].too_large == 1


async def test_a_body_announced_over_the_cap_is_refused_before_it_is_read(server):
    url = server.script("/a", [Step(200, b"y" * 2_000_001)])
    async with HttpClient(fast_settings(max_body_bytes=2_000_000)) as http:
        with pytest.raises(BodyTooLarge, match="2,000,001-byte body announced"):
            await http.get(url, lane=PLAYBACK)


async def test_429_with_retry_after_as_an_http_date_waits_until_then(server):
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=2), usegmt=True)
    url = server.script("/a", [Step(429, headers={"Retry-After": when}), Step(200)])
    async with HttpClient(fast_settings()) as http:
        await http.get(url, lane=CDX)
    hits = server.hits_of("/a")
    # The date has one-second resolution, so the wait is between 1 and 2 seconds.
    assert hits[1].at - hits[0].at >= 0.9


async def test_429_without_retry_after_backs_off_and_pauses_the_host(server):
    a = server.script("/a", [Step(429), Step(200)])
    b = server.script("/b", [Step(200)])
    settings = fast_settings(throttle_backoff_s=0.4, backoff_max_s=10)
    async with HttpClient(settings, seed=1) as http:
        first = asyncio.create_task(http.get(a, lane=CDX))
        await asyncio.sleep(0.05)  # /a has been throttled; the host is paused for its backoff
        t0 = time.monotonic()
        await http.get(b, lane=PLAYBACK)
        waited = time.monotonic() - t0
        await first
    expected = backoff_delay(1, 0.4, 10, random.Random(1))  # the first draw of the seeded jitter
    assert waited >= expected - 0.1
    assert server.hits_of("/a")[1].at - server.hits_of("/a")[0].at >= expected - 0.01


async def test_each_window_of_429s_halves_the_lane_rate_and_answers_raise_it_again(server):
    url = server.script("/a", [Step(429, headers={"Retry-After": "0"})] * 2 + [Step(200)])
    events: list[str] = []
    async with HttpClient(fast_settings(rates={CDX: 40.0}), on_event=events.append) as http:
        await http.get(url, lane=CDX)
        pacer = http.pacer(CDX)
        # Two 429s, each answering a request sent after the last decrease: 40 → 20 → 10, then one answer.
        assert pacer.rate == 10.0 + 40.0 * Pacer.STEP
        assert [e.split(": ", 2)[-1] for e in events] == ["rate lowered to 20/s", "rate lowered to 10/s"]
        for _ in range(40):
            pacer.increase()
        assert pacer.rate == 40.0  # climbed back to the configured rate, and stays there


async def test_429s_answering_requests_sent_together_lower_the_rate_once(server):
    url = server.script("/a", [Step(429, headers={"Retry-After": "0"}, delay_s=0.05)] * 4 + [Step(200)])
    async with HttpClient(fast_settings(concurrency=4, rates={CDX: 400.0, PLAYBACK: None})) as http:
        await asyncio.gather(*(http.get(url, lane=CDX, cache=False) for _ in range(4)))
    # Four in flight at once, four 429s: one loss event, as TCP counts them, not four halvings.
    assert http.pacer(CDX).top == 400.0 and http.pacer(CDX).rate >= 200.0


async def test_an_unpaced_lane_learns_a_rate_from_429s_and_is_unpaced_again_once_it_recovers(server):
    """Issue 17 item 14: with ``--cdx-rate 0`` a burst of 429s used to leave the lane unpaced."""
    ok = server.script("/ok", [Step(200)])
    url = server.script("/a", [Step(429, headers={"Retry-After": "0"}), Step(200)])
    events: list[str] = []
    async with HttpClient(fast_settings(rates={}), on_event=events.append) as http:
        for _ in range(10):
            await http.get(ok, lane=CDX, cache=False)
        measured = http.pacer(CDX).measured()
        await http.get(url, lane=CDX)
        pacer = http.pacer(CDX)
        assert pacer.rate is not None and pacer.top is not None
        assert pacer.top >= 0.5 * measured  # learnt from how fast it was sending
        assert "unpaced" not in events[0] and "rate lowered to" in events[0]
        for _ in range(40):
            pacer.increase()
        assert pacer.rate is None  # back to unpaced


async def test_a_burst_of_429s_at_the_lowest_rate_pauses_the_host(server):
    url = server.script("/a", [Step(429, headers={"Retry-After": "0"})] * 5 + [Step(200)])
    other = server.script("/b", [Step(200)])
    events: list[str] = []
    settings = fast_settings(throttle_burst=3, throttle_pause_s=0.6, throttle_retries=8, rates={CDX: 400.0})
    async with HttpClient(settings, on_event=events.append) as http:
        await http.get(url, lane=CDX)
        t0 = time.monotonic()
        await http.get(other, lane=PLAYBACK)  # same host, other lane: paused all the same
        waited = time.monotonic() - t0
    # 400 → 200 → 100 → 50 (the floor, 1/8): the third 429 and two more at the floor make one pause.
    assert [e for e in events if "pausing the host" in e] == [events[-1]] and "(50/s)" in events[-1]
    hits = server.hits_of("/a")
    assert hits[5].at - hits[4].at >= 0.55
    assert waited > 0  # the pause covered the other lane's request too
    assert server.hits_of("/b")[0].at - hits[4].at >= 0.55


async def test_persistent_429s_give_up_after_the_throttle_retries(server):
    url = server.script("/a", [Step(429, headers={"Retry-After": "0"})])
    async with HttpClient(fast_settings(throttle_retries=2)) as http:
        with pytest.raises(FetchError, match="429"):
            await http.get(url, lane=CDX)
    assert len(server.hits_of("/a")) == 3


async def test_a_timeout_is_retried(server):
    url = server.script("/a", [Step(200, b"late", delay_s=1.0), Step(200, b"fast")])
    async with HttpClient(fast_settings(timeout_s=0.3)) as http:
        response = await http.get(url, lane=CDX)
    assert response.content == b"fast"
    assert http.stats[CDX].timeouts == 1


async def test_timeouts_on_every_attempt_end_in_fetch_error(server):
    url = server.script("/a", [Step(200, delay_s=1.0)])
    async with HttpClient(fast_settings(timeout_s=0.2, retries=1)) as http:
        with pytest.raises(FetchError) as info:
            await http.get(url, lane=CDX)
    assert info.value.reason == "timeout"


async def test_a_dropped_connection_is_retried(server):
    url = server.script("/a", [Step(action="drop"), Step(200, b"second")])
    async with HttpClient(fast_settings()) as http:
        response = await http.get(url, lane=PLAYBACK)
    assert response.content == b"second"
    assert http.stats[PLAYBACK].connection_errors == 1


async def test_a_body_shorter_than_announced_is_retried_never_returned(server):
    body = b"<html>" + b"x" * 2000 + b"</html>"
    url = server.script("/a", [Step(200, body, action="truncate"), Step(200, body)])
    async with HttpClient(fast_settings()) as http:
        response = await http.get(url, lane=PLAYBACK)
    assert response.content == body
    assert http.stats[PLAYBACK].truncated == 1


async def test_retry_if_hook_retries_answers_the_server_marks_as_try_again(server):
    lagged = b'{"error": {"code": "maxlag"}}'
    url = server.script("/api", [Step(200, lagged, headers={"Retry-After": "1"}), Step(200, b"{}")])
    async with HttpClient(fast_settings()) as http:
        response = await http.get(url, lane="mediawiki", retry_if=lambda r: b"maxlag" in r.content)
    hits = server.hits_of("/api")
    assert response.content == b"{}" and len(hits) == 2
    assert hits[1].at - hits[0].at >= 0.95
    assert http.stats["mediawiki"].lagged == 1


async def test_the_rate_limit_spaces_requests_of_a_lane_even_when_many_are_concurrent(server):
    url = server.script("/a", [Step(200)])
    rate = 20.0
    async with HttpClient(fast_settings(concurrency=8, rates={CDX: rate})) as http:
        await http.get(server.script("/warm", [Step(200)]), lane=PLAYBACK)  # first connection set up
        await asyncio.gather(*(http.get(f"{url}?i={i}", lane=CDX) for i in range(10)))
    times = sorted(h.at for h in server.hits_of("/a"))
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(times) == 10
    # Arrival times carry connection-setup jitter (new connections); the schedule itself is exact.
    assert min(gaps) >= 0.5 / rate
    assert times[-1] - times[0] >= 9 / rate * 0.9


async def test_a_slow_lane_does_not_hold_connection_slots_the_others_need(server):
    cdx = server.script("/cdx", [Step(200)])
    web = server.script("/web", [Step(200)])
    settings = fast_settings(concurrency=2, rates={CDX: 2.0})
    async with HttpClient(settings) as http:
        slow = [asyncio.create_task(http.get(f"{cdx}?i={i}", lane=CDX)) for i in range(3)]
        await asyncio.sleep(0.05)
        t0 = time.monotonic()
        await asyncio.gather(*(http.get(f"{web}?i={i}", lane=PLAYBACK) for i in range(6)))
        fast = time.monotonic() - t0
        await asyncio.gather(*slow)
    assert fast < 0.4  # the playback lane went on while CDX waited for its 0.5 s slots


async def test_no_more_requests_are_in_flight_than_the_concurrency_limit(server):
    url = server.script("/a", [Step(200, delay_s=0.05)])
    async with HttpClient(fast_settings(concurrency=3)) as http:
        await asyncio.gather(*(http.get(f"{url}?i={i}", lane=PLAYBACK) for i in range(12)))
    assert server.max_in_flight == 3


async def test_the_user_agent_names_the_tool_its_version_and_the_contact(server):
    url = server.script("/a", [Step(200)])
    async with HttpClient(fast_settings(contact="ops@example.org")) as http:
        await http.get(url, lane=CDX)
    agent = server.hits_of("/a")[0].headers["User-Agent"]
    assert agent.startswith(f"wikihowqa/{__version__} (ops@example.org)")
    assert "contact unset" in user_agent(None)


class DictCache:
    def __init__(self) -> None:
        self.data: dict[str, Response] = {}

    def get_response(self, key: str) -> Response | None:
        return self.data.get(key)

    def put_response(self, key: str, response: Response) -> None:
        self.data[key] = response


async def test_a_cached_response_is_never_requested_again(server):
    url = server.script("/a", [Step(200, b"once")])
    cache = DictCache()
    async with HttpClient(fast_settings(), cache=cache) as http:
        first = await http.get(url, {"q": "1"}, lane=CDX)
        second = await http.get(url, {"q": "1"}, lane=CDX)
    assert first.content == second.content == b"once"
    assert len(server.hits_of("/a")) == 1
    assert http.stats[CDX].cached == 1
    assert request_key(url, {"q": "1"}) in cache.data


async def test_failures_are_not_cached(server):
    url = server.script("/a", [Step(500)])
    cache = DictCache()
    async with HttpClient(fast_settings(retries=0), cache=cache) as http:
        with pytest.raises(FetchError):
            await http.get(url, lane=CDX)
    assert cache.data == {}


def test_backoff_is_full_jitter_below_an_exponential_cap():
    rng = random.Random(0)
    for attempt in range(8):
        cap = min(30.0, 0.5 * 2**attempt)
        draws = [backoff_delay(attempt, 0.5, 30.0, rng) for _ in range(200)]
        assert all(0.0 <= d <= cap for d in draws)
        assert max(draws) > 0.8 * cap  # the whole range is used, not a fixed delay


def test_the_pacer_schedules_one_slot_per_interval_and_allows_a_burst_after_idling():
    pacer = Pacer(rate=2.0, burst=1)
    assert [pacer.reserve(10.0) for _ in range(3)] == [0.0, 0.5, 1.0]
    bursty = Pacer(rate=2.0, burst=3)
    assert [bursty.reserve(100.0) for _ in range(4)] == [0.0, 0.0, 0.0, 0.5]
    assert Pacer(rate=None).reserve(0.0) == 0.0


def test_settings_reject_nonsense():
    with pytest.raises(SettingsError, match="concurrency"):
        HttpSettings(concurrency=0)
    with pytest.raises(SettingsError, match="rate of cdx"):
        HttpSettings(rates={CDX: -1})
    with pytest.raises(SettingsError, match="timeout"):
        HttpSettings(timeout_s=0)


def test_default_rates_respect_the_real_services():
    settings = HttpSettings()
    assert settings.rate(CDX) <= 0.4
    assert settings.rate(PLAYBACK) <= 8
    assert settings.rate("mediawiki") <= 2
