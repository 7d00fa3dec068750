"""The one ``Retry-After`` reader and writer: what the replay site sends is what the collector waits."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from wikihowqa.core.retry_after import retry_after_s, retry_after_value


def test_retry_after_parses_seconds_and_dates_and_rejects_garbage():
    now = datetime(2024, 1, 1, tzinfo=UTC).timestamp()
    assert retry_after_s("120") == 120.0
    assert retry_after_s(" 7 ") == 7.0
    assert retry_after_s("Mon, 01 Jan 2024 00:00:30 GMT", now=now) == 30.0
    assert retry_after_s("Sun, 31 Dec 2023 23:00:00 GMT", now=now) == 0.0  # in the past: go now
    assert retry_after_s("soon") is None
    assert retry_after_s("-5") is None
    assert retry_after_s(None) is None


def test_a_date_without_a_zone_is_utc_not_local_time(monkeypatch):
    now = datetime(2024, 1, 1, tzinfo=UTC).timestamp()
    monkeypatch.setenv("TZ", "America/New_York")  # the machine's zone must not shift the wait
    time.tzset()
    try:
        assert retry_after_s("Mon, 01 Jan 2024 00:01:00 -0000", now=now) == 60.0
    finally:
        monkeypatch.undo()
        time.tzset()


def test_the_value_written_is_whole_seconds_rounded_up_and_reads_back():
    assert [retry_after_value(s) for s in (0, 1, 1.2, 30, -3)] == ["0", "1", "2", "30", "0"]
    assert all(retry_after_s(retry_after_value(s)) == float(-(-s // 1)) for s in (0, 1, 2.5, 3600))


def test_an_http_date_reads_as_utc_whatever_its_zone_says():
    from wikihowqa.collect.archive_queries import http_date_timestamp
    from wikihowqa.core.retry_after import http_date
    from wikihowqa.replay.archive_api import http_date_ts

    zones = ("08:15:00 GMT", "08:15:00 -0000", "09:15:00 +0100")
    for value in (f"Sat, 02 Nov 2019 {zone}" for zone in zones):
        assert http_date(value).isoformat() == "2019-11-02T08:15:00+00:00"
        # the collector reads a date as the replay site reads one
        assert http_date_timestamp(value) == http_date_ts(value) == "20191102081500"
    assert http_date("not a date") is None and http_date("") is None and http_date_timestamp(None) is None
