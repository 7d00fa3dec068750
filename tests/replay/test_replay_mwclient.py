"""A third-party MediaWiki client, mwclient, works against the replay site unchanged.

mwclient builds its own requests (site init with siteinfo/userinfo, generator-based listings,
``continue`` handling, ``rvslots`` for MediaWiki >= 1.32); if the replay site spoke a private dialect,
these calls would fail.
"""

from __future__ import annotations

import mwclient
import pytest

from tests.replay.replay_corpus import POUR_OVER
from wikihowqa.replay import EndpointFaults, Faults

MAIN_TITLES = [
    "How to Brew Pour-Over Coffee",
    "How to Fold a Paper Crane",
    "How to Make Crème Brûlée",
    "How to Make Pour Over Coffee",
    *[f"How to Test Thing {i:02d}" for i in range(12)],
]


@pytest.fixture(scope="module")
def wiki(site) -> mwclient.Site:
    return mwclient.Site(
        f"127.0.0.1:{site.port}", path="/", scheme="http", clients_useragent="wikihowqa-tests"
    )


def test_mwclient_initialises_from_siteinfo_and_userinfo(wiki):
    assert wiki.version[:2] == (1, 39)
    assert wiki.site["sitename"] == "wikiHow (test)"
    assert wiki.namespaces[30] == "Summary"
    assert "read" in wiki.rights and not wiki.logged_in


def test_mwclient_lists_all_pages_with_continuation(wiki):
    titles = [page.name for page in wiki.allpages(api_chunk_size=5)]
    assert titles == MAIN_TITLES
    plain = list(wiki.allpages(generator=False, api_chunk_size=3))
    assert plain == MAIN_TITLES


def test_mwclient_reads_page_text_and_metadata(wiki):
    page = wiki.pages["How to Brew Pour-Over Coffee"]
    assert page.exists and page.pageid == 100001
    assert page.revision == 700003
    assert page.text() == POUR_OVER
    assert wiki.pages["Summary:How to Brew Pour-Over Coffee"].text().startswith("{{#quicksummary:bottom|")
    assert not wiki.pages["No Such Page"].exists


def test_mwclient_reads_categories_and_walks_them(wiki):
    page = wiki.pages["How to Brew Pour-Over Coffee"]
    assert [c.name for c in page.categories()] == ["Category:Coffee", "Category:Featured Articles"]
    assert [c.name for c in page.categories(show="!hidden")] == ["Category:Coffee"]
    assert [c.name for c in wiki.pages["Category:Coffee"].categories()] == ["Category:Drinks"]
    members = [p.name for p in wiki.categories["Testing"]]
    assert members == [f"How to Test Thing {i:02d}" for i in range(12)]


def test_mwclient_revision_history_oldest_first(wiki):
    revs = list(wiki.pages["How to Brew Pour-Over Coffee"].revisions(dir="newer", prop="ids|timestamp|user"))
    assert [r["revid"] for r in revs] == [700001, 700002, 700003]
    assert [r["user"] for r in revs] == ["DemoEditor", "DemoEditor2", "DemoEditor"]


def test_mwclient_raw_api_calls(wiki):
    result = wiki.api("query", list="allpages", aplimit=3)
    assert [p["title"] for p in result["query"]["allpages"]] == MAIN_TITLES[:3]
    assert result["continue"]["apcontinue"] == "How_to_Make_Pour_Over_Coffee"
    summary = wiki.api("summary_section", ss_page=100003)["summary_section"]
    assert summary["content"] == "Bake the custard in a water bath until just set."
    assert summary["position"] == "top"


def test_mwclient_sees_mediawiki_errors_as_api_errors(wiki):
    with pytest.raises(mwclient.errors.APIError) as caught:
        wiki.api("summary_section", ss_page="No Such Page")
    assert caught.value.code == "missingtitle"


def test_mwclient_waits_out_maxlag_using_retry_after(make_site, monkeypatch):
    # mwclient reads X-Database-Lag and sleeps Retry-After seconds before retrying; with a lag the site
    # never recovers from, it gives up after its retries: proof the headers are where clients look.
    site = make_site(Faults(mediawiki=EndpointFaults(lag_s=30)))
    slept: list[float] = []
    monkeypatch.setattr(mwclient.sleep.time, "sleep", slept.append)
    wiki = mwclient.Site(f"127.0.0.1:{site.port}", path="/", scheme="http", do_init=False, max_retries=2)
    with pytest.raises(mwclient.errors.MaximumRetriesExceeded):
        wiki.raw_call("api", {"action": "query", "meta": "siteinfo", "format": "json", "maxlag": 5})
    assert len(slept) == 2 and slept[0] == 5  # then mwclient backs off on its own schedule
    assert site.stats()["mediawiki"]["requests"] == 3
