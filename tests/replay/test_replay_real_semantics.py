"""What the replay site learnt from real MediaWiki 1.39 and pywb 2.10: tracking categories, system
messages, the page-creation log, a named Quick Summary namespace, Memento, and pywb's way of answering."""

from __future__ import annotations

import json
import shutil

from tests.replay.test_replay_action_api import api
from wikihowqa.replay import ReplaySite

GUIDE = "https://www.brewbasics.net/pour-over-guide"
MEMENTO = "Sat, 02 Jun 2018 00:00:00 GMT"


# --------------------------------------------------------------------------- MediaWiki


def test_system_messages_name_the_tracking_categories(site):
    found = api(site, action="query", meta="allmessages", amfilter="category", formatversion="2")
    messages = {m["name"]: m["content"] for m in found["query"]["allmessages"]}
    assert messages["broken-file-category"] == "Pages with broken file links"
    assert "broken-file-category-desc" in messages
    assert "accesskey-ca-nstab-category" in messages  # a "…-category" message that names no category


def test_the_page_creation_log_lists_each_page_at_its_first_revision_and_continues(site):
    params = {"action": "query", "list": "logevents", "letype": "create", "lenamespace": "0",
              "lelimit": "2", "formatversion": "2", "continue": ""}  # fmt: skip
    entries = []
    while True:
        answer = api(site, **params)
        entries += answer["query"]["logevents"]
        if "continue" not in answer:
            break
        params.update(answer["continue"])
    revisions = api(site, action="query", pageids="100001", prop="revisions", rvprop="timestamp",
                    rvdir="newer", rvlimit="1", formatversion="2")  # fmt: skip
    first = revisions["query"]["pages"][0]["revisions"][0]["timestamp"]
    by_page = {e["pageid"]: e for e in entries}
    assert by_page[100001]["timestamp"] == first and by_page[100001]["action"] == "create"
    assert len(entries) == len(by_page) > 2  # every page once, across continuation batches
    stamps = [e["timestamp"] for e in entries]
    assert stamps == sorted(stamps, reverse=True)  # newest first, as MediaWiki lists its log


def test_the_quick_summary_namespace_carries_the_name_the_corpus_gives_it(corpus_dir, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    site_json = json.loads((corpus / "site.json").read_text(encoding="utf-8"))
    (corpus / "site.json").write_text(json.dumps({**site_json, "summary_namespace": "Zusammenfassung"}))
    with ReplaySite(corpus) as renamed:
        info = api(renamed, action="query", meta="siteinfo", siprop="namespaces", formatversion="2")
        assert info["query"]["namespaces"]["30"]["name"] == "Zusammenfassung"
        page = api(renamed, action="query", titles="Zusammenfassung:How to Brew Pour-Over Coffee",
                   prop="revisions", rvprop="content", rvslots="main", formatversion="2")  # fmt: skip
        assert "#quicksummary" in page["query"]["pages"][0]["revisions"][0]["slots"]["main"]["content"]


def test_uncategorized_categories_are_listed_in_title_order_with_offsets(site):
    """``list=querypage&qppage=Uncategorizedcategories`` as MediaWiki 1.39 answers it: category pages in
    no category, the hidden one left out (MediaWiki files it under "Hidden categories")."""
    first = api(site, action="query", list="querypage", qppage="Uncategorizedcategories", qplimit="1",
                formatversion="2")  # fmt: skip
    assert first["query"]["querypage"] == {
        "name": "Uncategorizedcategories",
        "results": [{"ns": 14, "title": "Category:Food and Entertaining"}],
    }
    assert first["continue"] == {"qpoffset": 1, "continue": "-||"}
    rest = api(site, action="query", list="querypage", qppage="Uncategorizedcategories", qpoffset="1",
               formatversion="2")  # fmt: skip
    assert rest["query"]["querypage"]["results"] == [{"ns": 14, "title": "Category:Hobbies and Crafts"}]
    assert "continue" not in rest
    unknown = api(site, action="query", list="querypage", qppage="Nonsense")
    assert unknown["error"]["code"] == "badvalue"


def test_categoryinfo_counts_a_categorys_members_by_kind(site):
    found = api(site, action="query", titles="Category:Food and Entertaining|Category:Coffee|Category:Nope",
                prop="categoryinfo", formatversion="2")  # fmt: skip
    info = {p["title"]: p.get("categoryinfo") for p in found["query"]["pages"]}
    assert info["Category:Food and Entertaining"] == {"size": 2, "pages": 0, "files": 0, "subcats": 2,
                                                      "hidden": False}  # fmt: skip
    assert info["Category:Coffee"]["pages"] >= 1 and info["Category:Coffee"]["subcats"] == 0
    assert info["Category:Nope"] is None  # no page and no members: nothing to count
    hidden = api(site, action="query", titles="Category:Featured Articles", prop="categoryinfo")
    assert next(iter(hidden["query"]["pages"].values()))["categoryinfo"]["hidden"] == ""  # version 1's true


# --------------------------------------------------------------------------- Memento


def test_the_timegate_redirects_to_the_memento_closest_to_accept_datetime(http, site):
    answer = http.get(f"{site.url}/web/{GUIDE}", headers={"Accept-Datetime": MEMENTO}, follow_redirects=False)
    assert answer.status_code == 302
    assert answer.headers["Location"] == f"{site.url}/web/20180601000000/{GUIDE}"  # the 301 is closest
    assert "accept-datetime" in answer.headers["Vary"] and 'rel="timemap"' in answer.headers["Link"]
    missing = http.get(f"{site.url}/web/https://never.example/x", headers={"Accept-Datetime": MEMENTO})
    assert missing.status_code == 404 and "accept-datetime" in missing.headers["Vary"]


def test_the_timemap_lists_every_memento_with_its_datetime(http, site):
    answer = http.get(f"{site.url}/web/timemap/link/{GUIDE}")
    assert answer.headers["Content-Type"] == "application/link-format"
    mementos = [line for line in answer.text.split(",\n") if 'rel="memento"' in line]
    assert len(mementos) == 4
    assert mementos[0] == (
        f'<{site.url}/web/20160301120000/{GUIDE}>; rel="memento"; datetime="Tue, 01 Mar 2016 12:00:00 GMT"'
    )
    assert http.get(f"{site.url}/web/timemap/link/https://never.example/x").status_code == 404


# --------------------------------------------------------------------------- as pywb answers


def test_as_pywb_the_cdx_server_is_at_the_collection_and_speaks_json_lines(http, corpus_dir):
    with ReplaySite(corpus_dir, archive_style="pywb") as pywb:
        assert pywb.cdx_url == f"{pywb.url}/web/cdx"
        assert http.get(f"{pywb.url}/cdx/search/cdx", params={"url": GUIDE}).status_code == 404
        lines = http.get(pywb.cdx_url, params={"url": GUIDE, "output": "json"}).text.splitlines()
        rows = [json.loads(line) for line in lines]
        assert [r["status"] for r in rows] == ["200", "404", "301", "200"]
        assert {"url", "mime", "status", "timestamp"} <= set(rows[0]) and "is_fuzzy" not in rows[0]


def test_as_pywb_a_filter_matching_nothing_is_answered_with_fuzzy_rows_of_other_statuses(http, corpus_dir):
    with ReplaySite(corpus_dir, archive_style="pywb") as pywb:
        params = {"url": GUIDE, "output": "json", "filter": "statuscode:5..", "limit": "1"}
        [row] = [json.loads(line) for line in http.get(pywb.cdx_url, params=params).text.splitlines()]
    assert row["is_fuzzy"] == "1" and row["status"] == "200"


def test_as_pywb_a_redirect_capture_points_at_the_live_web(http, corpus_dir, site):
    with ReplaySite(corpus_dir, archive_style="pywb") as pywb:
        live = http.get(f"{pywb.url}/web/20180601000000id_/{GUIDE}", follow_redirects=False)
    archived = http.get(f"{site.url}/web/20180601000000id_/{GUIDE}", follow_redirects=False)
    assert live.status_code == archived.status_code == 301
    assert live.headers["Location"] == "https://www.brewbasics.net/guides/pour-over"
    assert archived.headers["Location"].startswith(f"{site.url}/web/20180601000000id_/")
    assert "Memento-Datetime" in live.headers  # a capture all the same
