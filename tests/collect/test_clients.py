"""The MediaWiki and Wayback clients read the shapes real servers send, old and new."""

from __future__ import annotations

import json

import pytest

from tests.collect.scripted_server import Step, fast_settings
from wikihowqa.collect.archive_queries import CdxError, Wayback, wayback_timestamp
from wikihowqa.collect.http import HttpClient
from wikihowqa.collect.wiki_queries import MediaWiki, MediaWikiError


def _json(obj) -> Step:
    return Step(200, json.dumps(obj).encode(), headers={"Content-Type": "application/json"})


async def test_page_data_split_across_continuation_batches_is_merged(server):
    first = {
        "continue": {"clcontinue": "7|B", "continue": "||revisions"},
        "query": {
            "pages": [
                {
                    "pageid": 7,
                    "ns": 0,
                    "title": "How to A",
                    "revisions": [
                        {"timestamp": "2020-01-01T00:00:00Z", "slots": {"main": {"content": "text"}}}
                    ],
                    "categories": [{"ns": 14, "title": "Category:A"}],
                }
            ]
        },
    }
    later = {"pageid": 7, "ns": 0, "title": "How to A", "categories": [{"ns": 14, "title": "Category:B"}]}
    second = {"batchcomplete": True, "query": {"pages": [later]}}
    url = server.script("/api.php", [_json(first), _json(second)])
    async with HttpClient(fast_settings()) as http:
        pages = await MediaWiki(http, url).pages([7])
    page = pages[7]
    assert (
        page.categories == ("A", "B") and page.wikitext == "text" and page.modified == "2020-01-01T00:00:00Z"
    )
    hits = server.hits_of("/api.php")
    assert len(hits) == 2


async def test_formatversion_1_shapes_are_read_too(server):
    old = {"query": {"pages": {"7": {"pageid": 7, "ns": 0, "title": "How to A",
                                     "revisions": [{"timestamp": "2020-01-01T00:00:00Z", "*": "old text"}]},
                               "-1": {"ns": 0, "title": "Gone", "missing": ""}}}}  # fmt: skip
    url = server.script("/api.php", [_json(old)])
    async with HttpClient(fast_settings()) as http:
        pages = await MediaWiki(http, url).pages([7, 8])
    assert list(pages) == [7] and pages[7].wikitext == "old text"


async def test_an_api_error_names_its_code(server):
    url = server.script(
        "/api.php", [_json({"error": {"code": "readapidenied", "info": "You need read rights."}})]
    )
    async with HttpClient(fast_settings()) as http:
        with pytest.raises(MediaWikiError, match="readapidenied: You need read rights"):
            await MediaWiki(http, url).pages([1])


async def test_summaries_are_matched_back_through_title_normalisation(server):
    answer = {
        "query": {
            "normalized": [{"from": "Summary:how to A", "to": "Summary:How to A"}],
            "pages": [{"pageid": 9, "ns": 30, "title": "Summary:How to A",
                       "revisions": [{"slots": {"main": {"content": "{{#quicksummary:bottom|b|a}}"}}}]}],
        }
    }  # fmt: skip
    url = server.script("/api.php", [_json(answer)])
    async with HttpClient(fast_settings()) as http:
        found = await MediaWiki(http, url).summaries(["how to A"])
    assert found == {"how to A": "{{#quicksummary:bottom|b|a}}"}


async def test_an_empty_cdx_answer_means_no_snapshot_and_garbage_is_an_error(server):
    empty = server.script("/e/cdx/search/cdx", [Step(200, b"[]")])
    garbage = server.script("/g/cdx/search/cdx", [Step(200, b"<html>maintenance</html>")])
    async with HttpClient(fast_settings()) as http:
        assert (
            await Wayback(http, empty.removesuffix("/cdx/search/cdx")).closest("http://x.org", "2020") is None
        )
        with pytest.raises(CdxError, match="not a CDX result: '<html>maintenance</html>'"):
            await Wayback(http, garbage.removesuffix("/cdx/search/cdx")).closest("http://x.org", "2020")


def test_wayback_timestamps_come_from_iso_times():
    assert wayback_timestamp("2019-08-11T09:30:00Z") == "20190811093000"
