"""The replay site's CDX server and playback answer as web.archive.org's do (wayback-cdx-server README)."""

from __future__ import annotations

import base64
import hashlib

import pytest

from tests.replay.replay_corpus import standard_captures

GUIDE = "https://www.brewbasics.net/pour-over-guide"
FIELDS = ["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest", "length"]
SNAPSHOTS = standard_captures()[1]


def cdx(http, site, **params):
    response = http.get(site.cdx_url, params=params)
    assert response.status_code == 200, response.text
    return response.json() if params.get("output") == "json" else response.text


def timestamps(rows):
    return [r[FIELDS.index("timestamp")] for r in rows[1:]]


# --------------------------------------------------------------------------- CDX


def test_json_output_has_a_header_row_then_one_row_per_capture(http, site):
    rows = cdx(http, site, url=GUIDE, output="json")
    assert rows[0] == FIELDS
    assert timestamps(rows) == ["20160301120000", "20180101000000", "20180601000000", "20200101000000"]
    first = dict(zip(FIELDS, rows[1], strict=True))
    data = SNAPSHOTS["pour-a.html"]
    assert first == {
        "urlkey": "net,brewbasics)/pour-over-guide",
        "timestamp": "20160301120000",
        "original": GUIDE,
        "mimetype": "text/html",
        "statuscode": "200",
        "digest": base64.b32encode(hashlib.sha1(data).digest()).decode(),
        "length": str(len(data)),
    }


def test_plain_text_output_is_space_separated_lines(http, site):
    text = cdx(http, site, url=GUIDE, fl="timestamp,statuscode")
    assert text == "20160301120000 200\n20180101000000 404\n20180601000000 301\n20200101000000 200\n"


@pytest.mark.parametrize(
    "variant",
    [
        "http://brewbasics.net/pour-over-guide",
        "https://brewbasics.net/pour-over-guide/",
        "brewbasics.net/pour-over-guide",
        "http://WWW.BrewBasics.net/pour-over-guide",
    ],
)
def test_cited_url_variants_match_the_captured_url_by_surt(http, site, variant):
    assert len(cdx(http, site, url=variant, output="json")) == 5


def test_query_parameter_order_does_not_matter(http, site):
    rows = cdx(http, site, url="http://example.org/list?a=1&b=2", output="json", fl="original")
    assert rows == [["original"], ["https://example.org/list?b=2&a=1"]]


def test_fl_selects_and_orders_fields(http, site):
    rows = cdx(http, site, url=GUIDE, output="json", fl="statuscode,timestamp", limit=1)
    assert rows == [["statuscode", "timestamp"], ["200", "20160301120000"]]


@pytest.mark.parametrize(
    "filters, expected",
    [
        (["statuscode:200"], ["20160301120000", "20200101000000"]),
        (["!statuscode:200"], ["20180101000000", "20180601000000"]),
        (["statuscode:[23].."], ["20160301120000", "20180601000000", "20200101000000"]),
        (["statuscode:20"], []),  # the regex must match the whole field, as Java's matches() does
        (["mimetype:text/html", "!statuscode:404"], ["20160301120000", "20180601000000", "20200101000000"]),
        ([".* 301 .*"], ["20180601000000"]),  # not a field name: the regex runs over the whole line
    ],
)
def test_filters_are_full_match_regexes_and_combine(http, site, filters, expected):
    rows = cdx(http, site, url=GUIDE, output="json", filter=filters)
    assert timestamps(rows) == expected


def test_closest_sorts_by_distance_and_limit_takes_the_nearest(http, site):
    def nearest(ts: str) -> str:
        rows = cdx(
            http,
            site,
            url=GUIDE,
            output="json",
            sort="closest",
            closest=ts,
            limit=1,
            filter="statuscode:200",
            fl="timestamp",
        )
        return rows[1][0]

    assert nearest("20190101000000") == "20200101000000"  # 365 days vs 1036 days
    assert nearest("20170101") == "20160301120000"
    assert nearest("2018") == "20160301120000"  # 2018-01-01: 671 days vs 730 days
    everything = cdx(http, site, url=GUIDE, output="json", sort="closest", closest="20180501", fl="timestamp")
    assert [r[0] for r in everything[1:]] == [
        "20180601000000",
        "20180101000000",
        "20200101000000",
        "20160301120000",
    ]


def test_limit_takes_the_first_n_and_a_negative_limit_the_last_n(http, site):
    assert timestamps(cdx(http, site, url=GUIDE, output="json", limit=2)) == [
        "20160301120000",
        "20180101000000",
    ]
    assert timestamps(cdx(http, site, url=GUIDE, output="json", limit=-1)) == ["20200101000000"]
    assert timestamps(cdx(http, site, url=GUIDE, output="json", offset=3)) == ["20200101000000"]
    assert timestamps(cdx(http, site, url=GUIDE, output="json", sort="reverse", limit=1)) == [
        "20200101000000"
    ]


def test_from_and_to_are_inclusive_and_padded(http, site):
    rows = cdx(http, site, url=GUIDE, output="json", **{"from": "2018", "to": "2018"})
    assert timestamps(rows) == ["20180101000000", "20180601000000"]
    rows = cdx(http, site, url=GUIDE, output="json", **{"from": "20180601000000"})
    assert timestamps(rows) == ["20180601000000", "20200101000000"]


def test_match_types_prefix_host_and_domain(http, site):
    def originals(**params):
        return sorted(r[0] for r in cdx(http, site, output="json", fl="original", **params)[1:])

    assert originals(url="example.org/a/", matchType="prefix") == [
        "https://www.example.org/a/1",
        "https://www.example.org/a/2",
    ]
    assert originals(url="www.example.org/a/*") == [
        "https://www.example.org/a/1",
        "https://www.example.org/a/2",
    ]
    host = originals(url="example.org", matchType="host")
    assert "https://example.org/report.pdf" in host and "https://blog.example.org/x" not in host
    assert "https://blog.example.org/x" in originals(url="example.org", matchType="domain")
    assert "https://blog.example.org/x" in originals(url="*.example.org")


def test_collapse_drops_adjacent_duplicates(http, site):
    assert len(cdx(http, site, url=GUIDE, output="json", collapse="mimetype")) == 2
    assert len(cdx(http, site, url=GUIDE, output="json", collapse="timestamp:4")) == 4  # 2016, 2018, 2020


def test_no_capture_answers_an_empty_json_array_or_nothing(http, site):
    response = http.get(site.cdx_url, params={"url": "never-archived.example/page", "output": "json"})
    assert response.status_code == 200 and response.json() == []
    assert cdx(http, site, url="never-archived.example/page") == ""
    assert cdx(http, site, url=GUIDE, output="json", filter="statuscode:500") == []


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"url": GUIDE, "fl": "nope"},
        {"url": GUIDE, "filter": "statuscode:("},
        {"url": GUIDE, "sort": "closest"},
        {"url": GUIDE, "from": "20x"},
    ],
)
def test_bad_queries_answer_400(http, site, params):
    assert http.get(site.cdx_url, params=params).status_code == 400


# --------------------------------------------------------------------------- playback


def test_playback_replays_the_raw_bytes_and_headers_of_the_exact_capture(http, site):
    response = http.get(f"{site.url}/web/20160301120000id_/{GUIDE}")
    assert response.status_code == 200
    assert response.content == SNAPSHOTS["pour-a.html"]
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    assert response.headers["memento-datetime"] == "Tue, 01 Mar 2016 12:00:00 GMT"
    assert response.headers["x-archive-orig-last-modified"] == "Tue, 01 Mar 2016 10:00:00 GMT"
    assert response.headers["link"] == f'<{GUIDE}>; rel="original"'


def test_playback_keeps_the_recorded_charset_and_bytes_of_legacy_encodings(http, site):
    response = http.get(f"{site.url}/web/20170505000000id_/http://coffee-lab.org/ratios")
    assert response.headers["content-type"] == "text/html; charset=windows-1252"
    assert response.content == SNAPSHOTS["ratios.html"]
    assert "Café" in response.content.decode("windows-1252")


def test_playback_serves_the_closest_capture_and_accepts_cited_variants(http, site):
    response = http.get(f"{site.url}/web/20210101id_/http://brewbasics.net/pour-over-guide/")
    assert response.status_code == 200
    assert response.content == SNAPSHOTS["pour-b.html"]
    assert response.headers["memento-datetime"] == "Wed, 01 Jan 2020 00:00:00 GMT"


def test_a_redirect_capture_redirects_within_the_archive(http, site):
    response = http.get(f"{site.url}/web/20180601000000id_/{GUIDE}")
    assert response.status_code == 301
    target = "https://www.brewbasics.net/guides/pour-over"
    assert response.headers["location"] == f"{site.url}/web/20180601000000id_/{target}"
    followed = http.get(f"{site.url}/web/20180601000000id_/{GUIDE}", follow_redirects=True)
    assert followed.status_code == 200 and followed.content == SNAPSHOTS["pour-moved.html"]


def test_a_404_capture_replays_as_404_with_its_memento_datetime(http, site):
    response = http.get(f"{site.url}/web/20180101000000id_/{GUIDE}")
    assert response.status_code == 404
    assert response.headers["memento-datetime"] == "Mon, 01 Jan 2018 00:00:00 GMT"


def test_pdf_empty_and_headerless_captures(http, site):
    pdf = http.get(f"{site.url}/web/20190101000000id_/https://example.org/report.pdf")
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content == SNAPSHOTS["report.pdf"]
    empty = http.get(f"{site.url}/web/20190101000000id_/https://example.org/empty")
    assert empty.status_code == 200 and empty.content == b"" and empty.headers["content-length"] == "0"
    bare = http.get(f"{site.url}/web/20190202000000id_/https://example.org/list?a=1&b=2")
    assert bare.headers["content-type"] == "text/html"  # no recorded header: the CDX mimetype
    assert bare.content == SNAPSHOTS["list.html"]


@pytest.mark.parametrize(
    ("timestamp", "url", "snapshot"),
    [
        ("20160301120000", GUIDE, "pour-a.html"),
        ("20190202000000", "https://example.org/list?b=2&a=1", "list.html"),
    ],
)
@pytest.mark.parametrize("safe", ["/", ""])
def test_playback_decodes_a_percent_encoded_original_url(http, site, timestamp, url, snapshot, safe):
    """``quote(url)`` (``https%3A//…``, or ``https%3A%2F%2F…``) names the same capture as the plain URL."""
    from urllib.parse import quote

    encoded = quote(url, safe=safe)
    assert encoded.startswith("https%3A")
    response = http.get(f"{site.url}/web/{timestamp}id_/{encoded}")
    assert response.status_code == 200 and response.content == SNAPSHOTS[snapshot]
    assert response.headers["link"] == f'<{url}>; rel="original"'


def test_an_unarchived_url_is_404(http, site):
    response = http.get(f"{site.url}/web/20190101000000id_/https://never-archived.example/")
    assert response.status_code == 404
    assert "memento-datetime" not in response.headers


def test_without_id_flag_an_inexact_timestamp_redirects_to_the_capture(http, site):
    response = http.get(f"{site.url}/web/2017/{GUIDE}")
    assert response.status_code == 302
    assert response.headers["location"] == f"{site.url}/web/20160301120000/{GUIDE}"
    exact = http.get(response.headers["location"])
    assert exact.status_code == 200 and exact.content == SNAPSHOTS["pour-a.html"]


# --------------------------------------------------------------------------- playback that disagrees


@pytest.mark.parametrize(
    ("quirk", "status", "memento", "location"),
    [
        ({"status": 404}, 404, True, None),  # the index says 200, the archive plays a 404 capture
        ({"memento": False}, 200, False, None),  # an error or notice page that is no capture
        ({"location": "https://notice.example/blocked"}, 302, False, "https://notice.example/blocked"),
    ],
)
def test_a_capture_can_say_how_its_playback_disagrees_with_the_index(
    tmp_path, quirk, status, memento, location
):
    from tests.replay.replay_corpus import write_corpus
    from wikihowqa.replay import ReplaySite

    caps, snaps = standard_captures()
    caps = [{**c, "playback": quirk} if c["timestamp"] == "20160301120000" else c for c in caps]
    root = write_corpus(tmp_path / "corpus", captures=caps, snapshots=snaps)
    import httpx

    with ReplaySite(root) as quirky:
        row = httpx.get(quirky.cdx_url, params={"url": GUIDE, "output": "json", "limit": "1"}).json()[1]
        played = httpx.get(f"{quirky.url}/web/20160301120000id_/{GUIDE}")
    assert row[FIELDS.index("statuscode")] == "200"  # the index is unchanged
    assert played.status_code == status
    assert ("memento-datetime" in played.headers) == memento
    assert played.headers.get("location") == location


@pytest.mark.parametrize(
    ("quirk", "message"),
    [
        ({"state": 1}, "unknown field 'state'"),
        ({"status": 999}, "status must be an HTTP status"),
        ({"location": "/relative"}, "location must be an absolute"),
    ],
)
def test_a_bad_playback_quirk_names_its_line(tmp_path, quirk, message):
    from tests.replay.replay_corpus import write_corpus
    from wikihowqa.replay import CorpusError, load_corpus

    caps, snaps = standard_captures()
    caps = [{**caps[0], "playback": quirk}, *caps[1:]]
    root = write_corpus(tmp_path / "corpus", captures=caps, snapshots=snaps)
    with pytest.raises(CorpusError, match=rf"cdx.jsonl:1: playback: {message}"):
        load_corpus(root)
