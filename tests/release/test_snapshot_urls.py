"""Release URLs as they are spelled in the wild: each read to the capture it names, partial timestamps to
the middle of their range, and the spellings of one capture to one identity."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from wikihowqa.release.snapshot_urls import named_capture, range_middle

IA = "http://web.archive.org/web"


def _middle(first: datetime, last: datetime) -> str:
    """Computed here with datetime arithmetic, independently of the module's clamped-seconds route."""
    return (first + (last - first) / 2).strftime("%Y%m%d%H%M%S")


@pytest.mark.parametrize(
    ("digits", "first", "last"),
    [
        ("2018", datetime(2018, 1, 1), datetime(2018, 12, 31, 23, 59, 59)),
        ("201802", datetime(2018, 2, 1), datetime(2018, 2, 28, 23, 59, 59)),
        ("20200229", datetime(2020, 2, 29), datetime(2020, 2, 29, 23, 59, 59)),
        ("2019081109", datetime(2019, 8, 11, 9), datetime(2019, 8, 11, 9, 59, 59)),
    ],
)
def test_a_partial_timestamp_is_asked_for_at_the_middle_of_the_range_it_names(digits, first, last):
    assert range_middle(digits) == _middle(first.replace(tzinfo=UTC), last.replace(tzinfo=UTC))
    capture = named_capture(f"{IA}/{digits}/https://a.example/")
    assert capture is not None and capture.partial and capture.named_timestamp == digits
    assert capture.timestamp == range_middle(digits)


def test_a_year_names_the_second_of_2_july_not_1_january():
    capture = named_capture("https://web.archive.org/web/2016id_/https://a.example/")
    assert capture.timestamp == "20160701235959"  # 2016 is a leap year: 183 days after 1 January, less 0.5 s
    full = named_capture(f"{IA}/20160506033836/https://a.example/")
    assert full.timestamp == "20160506033836" and not full.partial


@pytest.mark.parametrize(
    ("value", "url"),
    [
        (
            f"{IA}/20180101000000/https%3A%2F%2Fa.example%2Fpage%3Fq%3D1%26r%3D2",
            "https://a.example/page?q=1&r=2",
        ),
        (f"{IA}/20180101000000/HTTP%3a%2f%2fA.Example%2FPage", "http://a.example/Page"),
        (f"{IA}/20180101000000/a.example/guide/2018/05/", "http://a.example/guide/2018/05/"),
        (f"{IA}/20180101000000/www.a.example:8080/x", "http://www.a.example:8080/x"),
        (f"{IA}/20180101000000id_/HTTPS://WWW.A.EXAMPLE/Page", "https://www.a.example/Page"),
        (f"{IA}/20180101000000/http:/a.example/collapsed", "http://a.example/collapsed"),
        (
            f"{IA}/20180101000000/https://a.example/2017/https://b.example/",
            "https://a.example/2017/https://b.example/",
        ),
        ("http://127.0.0.1:8080/coll/2017/20180101000000/a.example/1999/", "http://a.example/1999/"),
    ],
)
def test_encoded_scheme_less_and_capitalised_originals_are_decoded_and_normalised(value, url):
    capture = named_capture(value)
    assert capture is not None and capture.url == url and capture.timestamp == "20180101000000"
    assert capture.archive_url == value  # the value as the release wrote it is kept


@pytest.mark.parametrize(
    "value",
    [
        "https://a.example/page",  # no archive path at all
        f"{IA}/20180101000000/",  # nothing after the timestamp
        f"{IA}/20180101000000/not-a-host",  # no dotted host name
        f"{IA}/201/https://a.example/",  # three digits are no timestamp
        f"{IA}/20180101000000/ftp://a.example/file",  # not a web page
    ],
)
def test_values_that_name_no_capture_stay_unusable(value):
    assert named_capture(value) is None


def test_every_spelling_of_one_capture_has_one_identity_and_other_captures_another():
    spellings = [
        f"{IA}/20190101000000/https://a.example/guide",
        "https://web.archive.org/web/20190101000000/HTTPS://A.EXAMPLE/guide",
        "https://web.archive.org/web/20190101000000id_/https%3A%2F%2Fa.example%2Fguide",
        f"{IA}/20190101000000/a.example/guide",
    ]
    identities = {named_capture(v).identity for v in spellings}
    assert len(identities) == 1
    assert named_capture(f"{IA}/20190101000001/https://a.example/guide").identity not in identities
    assert named_capture(f"{IA}/20190101000000/https://a.example/other").identity not in identities
