"""The replay site's /api.php answers as MediaWiki's Action API does (shapes from mediawiki.org's docs)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.replay.replay_corpus import POUR_OVER
from wikihowqa.replay import EndpointFaults, Faults

ALL_MAIN = [
    "How to Brew Pour-Over Coffee",
    "How to Fold a Paper Crane",
    "How to Make Crème Brûlée",
    "How to Make Pour Over Coffee",
    *[f"How to Test Thing {i:02d}" for i in range(12)],
]


CLIENT = httpx.Client(timeout=10)


def api(site, *, method: str = "GET", **params: Any) -> dict[str, Any]:
    params.setdefault("format", "json")
    if method == "POST":
        response = CLIENT.post(site.mediawiki_url, data=params)
    else:
        response = CLIENT.get(site.mediawiki_url, params=params)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


def page_of(result: dict[str, Any], title: str) -> dict[str, Any]:
    pages = result["query"]["pages"]
    pages = pages.values() if isinstance(pages, dict) else pages
    return next(p for p in pages if p.get("title") == title)


# --------------------------------------------------------------------------- list=allpages


def test_allpages_lists_the_main_namespace_in_binary_title_order(site):
    result = api(site, action="query", list="allpages", aplimit="max")
    assert [p["title"] for p in result["query"]["allpages"]] == ALL_MAIN
    assert result["batchcomplete"] == ""
    assert "continue" not in result
    assert result["limits"] == {"allpages": 500}
    first = result["query"]["allpages"][0]
    assert first == {"pageid": 100001, "ns": 0, "title": "How to Brew Pour-Over Coffee"}


def test_allpages_continuation_is_mediawikis_and_visits_every_page_once(site):
    seen: list[str] = []
    params: dict[str, Any] = {"action": "query", "list": "allpages", "aplimit": 5, "continue": ""}
    rounds = 0
    while True:
        result = api(site, **params)
        rounds += 1
        seen += [p["title"] for p in result["query"]["allpages"]]
        assert result["batchcomplete"] == ""
        if "continue" not in result:
            break
        assert result["continue"]["continue"] == "-||"
        assert set(result["continue"]) == {"apcontinue", "continue"}
        params.update(result["continue"])
    assert seen == ALL_MAIN
    assert rounds == 4  # 16 pages, 5 at a time


def test_apcontinue_is_the_next_titles_database_key(site):
    result = api(site, action="query", list="allpages", aplimit=3)
    assert result["continue"] == {"apcontinue": "How_to_Make_Pour_Over_Coffee", "continue": "-||"}


def test_apfrom_starts_inclusively_and_accepts_spaces_or_underscores(site):
    for start in ("How to Make", "How_to_Make", "how to Make"):
        result = api(site, action="query", list="allpages", apfrom=start, aplimit=2)
        assert [p["title"] for p in result["query"]["allpages"]] == ALL_MAIN[2:4]


def test_aplimit_above_the_maximum_is_clamped_with_a_warning(site):
    result = api(site, action="query", list="allpages", aplimit=600)
    assert len(result["query"]["allpages"]) == len(ALL_MAIN)
    assert "600" in result["warnings"]["allpages"]["*"]


def test_apfilterredir_separates_redirects(site):
    redirects = api(site, action="query", list="allpages", apfilterredir="redirects")
    assert [p["title"] for p in redirects["query"]["allpages"]] == ["How to Make Pour Over Coffee"]
    content = api(site, action="query", list="allpages", apfilterredir="nonredirects", aplimit="max")
    assert "How to Make Pour Over Coffee" not in [p["title"] for p in content["query"]["allpages"]]


def test_apnamespace_lists_summary_category_and_talk_pages(site):
    summaries = api(site, action="query", list="allpages", apnamespace=30)["query"]["allpages"]
    assert [(p["ns"], p["title"], p["pageid"]) for p in summaries] == [
        (30, "Summary:How to Brew Pour-Over Coffee", 50100001),
        (30, "Summary:How to Make Crème Brûlée", 50100003),
    ]
    talk = api(site, action="query", list="allpages", apnamespace=1)["query"]["allpages"]
    assert [p["title"] for p in talk] == ["Talk:How to Brew Pour-Over Coffee"]
    categories = api(site, action="query", list="allpages", apnamespace=14, aplimit="max")["query"][
        "allpages"
    ]
    assert "Category:Coffee" in [p["title"] for p in categories]
    assert "Category:Food and Entertaining" in [p["title"] for p in categories]


def test_unknown_namespace_and_bad_integer_are_mediawiki_errors(site):
    assert api(site, action="query", list="allpages", apnamespace=99)["error"]["code"] == "badvalue"
    assert api(site, action="query", list="allpages", aplimit="ten")["error"]["code"] == "badinteger"


def test_formatversion_2_uses_booleans(site):
    result = api(site, action="query", list="allpages", aplimit=2, formatversion=2)
    assert result["batchcomplete"] is True
    assert result["continue"]["continue"] == "-||"


# --------------------------------------------------------------------------- prop=revisions


def test_current_content_in_the_main_slot_formatversion_1(site):
    result = api(
        site,
        action="query",
        prop="revisions",
        titles="How to Brew Pour-Over Coffee",
        rvprop="ids|timestamp|content|user|comment",
        rvslots="main",
    )
    page = result["query"]["pages"]["100001"]
    (rev,) = page["revisions"]
    assert rev["revid"] == 700003 and rev["parentid"] == 700002
    assert rev["timestamp"] == "2019-08-11T09:30:00Z"
    assert rev["user"] == "DemoEditor" and rev["comment"] == "edit 2"
    assert rev["slots"]["main"] == {
        "contentmodel": "wikitext",
        "contentformat": "text/x-wiki",
        "*": POUR_OVER,
    }


def test_current_content_formatversion_2_is_a_list_with_content_key(site):
    result = api(
        site,
        action="query",
        prop="revisions",
        titles="How to Brew Pour-Over Coffee",
        rvprop="content",
        rvslots="main",
        formatversion=2,
    )
    (page,) = result["query"]["pages"]
    assert page["revisions"][0]["slots"]["main"]["content"] == POUR_OVER


def test_content_without_rvslots_uses_the_legacy_shape_and_warns(site):
    result = api(
        site, action="query", prop="revisions", titles="How to Brew Pour-Over Coffee", rvprop="content"
    )
    rev = result["query"]["pages"]["100001"]["revisions"][0]
    assert rev["*"] == POUR_OVER and "slots" not in rev
    assert "rvslots" in result["warnings"]["revisions"]["*"]


def test_first_and_last_revision_by_rvdir_and_rvlimit(site):
    first = api(
        site,
        action="query",
        prop="revisions",
        pageids=100001,
        rvlimit=1,
        rvdir="newer",
        rvprop="ids|timestamp",
    )
    last = api(site, action="query", prop="revisions", pageids=100001, rvlimit=1, rvprop="ids|timestamp")
    assert first["query"]["pages"]["100001"]["revisions"] == [
        {"revid": 700001, "parentid": 0, "timestamp": "2016-04-02T10:00:00Z"}
    ]
    assert last["query"]["pages"]["100001"]["revisions"][0]["timestamp"] == "2019-08-11T09:30:00Z"
    # A prop module left unfinished: no batchcomplete, and "||" (the page set must run again).
    assert first["continue"] == {"rvcontinue": "20180120080000|700002", "continue": "||"}
    assert "batchcomplete" not in first


def test_rvcontinue_walks_the_whole_history(site):
    params: dict[str, Any] = {
        "action": "query",
        "prop": "revisions",
        "titles": "How to Brew Pour-Over Coffee",
        "rvlimit": 1,
        "rvprop": "ids",
        "continue": "",
    }
    revids = []
    while True:
        result = api(site, **params)
        revids += [r["revid"] for r in result["query"]["pages"]["100001"]["revisions"]]
        if "continue" not in result:
            assert result["batchcomplete"] == ""
            break
        params.update(result["continue"])
    assert revids == [700003, 700002, 700001]


def test_rvlimit_on_several_pages_is_refused(site):
    result = api(site, action="query", prop="revisions", pageids="100001|100002", rvlimit=1)
    assert result["error"]["code"] == "invalidparammix"


def test_a_garbled_rvcontinue_or_continue_is_badcontinue(site):
    bad = api(site, action="query", prop="revisions", pageids=100001, rvlimit=1, rvcontinue="nonsense")
    assert bad["error"]["code"] == "badcontinue"
    assert (
        api(site, action="query", list="allpages", **{"continue": "garbage"})["error"]["code"]
        == "badcontinue"
    )


# --------------------------------------------------------------------------- titles, pageids, redirects


def test_several_titles_with_normalisation_and_missing_pages(site):
    result = api(site, action="query", titles="How_to_Fold_a_Paper_Crane|Nope|how to Make Crème Brûlée")
    query = result["query"]
    assert {"from": "How_to_Fold_a_Paper_Crane", "to": "How to Fold a Paper Crane"} in query["normalized"]
    assert {"from": "how to Make Crème Brûlée", "to": "How to Make Crème Brûlée"} in query["normalized"]
    assert query["pages"]["-1"] == {"ns": 0, "title": "Nope", "missing": ""}
    assert query["pages"]["100002"]["title"] == "How to Fold a Paper Crane"
    assert query["pages"]["100003"]["title"] == "How to Make Crème Brûlée"


def test_several_pageids_and_a_missing_one(site):
    result = api(site, action="query", pageids="100002|100001|999", formatversion=2)
    pages = result["query"]["pages"]
    assert {"pageid": 999, "missing": True} in pages
    assert [p["pageid"] for p in pages if "missing" not in p] == [100001, 100002]


def test_titles_with_pageids_and_too_many_titles_are_refused(site):
    assert api(site, action="query", titles="A", pageids="1")["error"]["code"] == "invalidparammix"
    many = "|".join(f"T{i}" for i in range(51))
    assert api(site, action="query", titles=many)["error"]["code"] == "toomanyvalues"


def test_redirects_are_resolved_on_request(site):
    plain = api(site, action="query", prop="info", titles="How to Make Pour Over Coffee")
    assert plain["query"]["pages"]["100004"]["redirect"] == ""
    followed = api(site, action="query", prop="info", titles="How to Make Pour Over Coffee", redirects=1)
    assert followed["query"]["redirects"] == [
        {"from": "How to Make Pour Over Coffee", "to": "How to Brew Pour-Over Coffee"}
    ]
    assert list(followed["query"]["pages"]) == ["100001"]


def test_indexpageids_lists_the_keys(site):
    result = api(site, action="query", titles="Nope|How to Fold a Paper Crane", indexpageids=1)
    assert result["query"]["pageids"] == ["-1", "100002"]


# --------------------------------------------------------------------------- prop=info, categories


def test_info_reports_touched_lastrevid_length_and_new(site):
    result = api(
        site,
        action="query",
        prop="info",
        titles="How to Brew Pour-Over Coffee|How to Fold a Paper Crane",
        inprop="url|protection",
    )
    brew = result["query"]["pages"]["100001"]
    assert brew["lastrevid"] == 700003
    assert brew["touched"] == "2019-08-11T09:30:00Z"
    assert brew["length"] == len(POUR_OVER.encode("utf-8"))
    assert brew["fullurl"] == f"{site.url}/wiki/How_to_Brew_Pour-Over_Coffee"
    assert brew["protection"] == [] and "new" not in brew
    assert result["query"]["pages"]["100002"]["new"] == ""  # a single revision


def test_categories_of_an_article_hide_hidden_ones_on_request(site):
    every = api(
        site, action="query", prop="categories", titles="How to Brew Pour-Over Coffee", clprop="hidden"
    )
    # The article shows images the wiki does not have: MediaWiki tracks it, visibly, as it does.
    assert every["query"]["pages"]["100001"]["categories"] == [
        {"ns": 14, "title": "Category:Coffee"},
        {"ns": 14, "title": "Category:Featured Articles", "hidden": ""},
        {"ns": 14, "title": "Category:Pages with broken file links"},
    ]
    visible = api(
        site, action="query", prop="categories", titles="How to Brew Pour-Over Coffee", clshow="!hidden"
    )
    assert visible["query"]["pages"]["100001"]["categories"] == [
        {"ns": 14, "title": "Category:Coffee"},
        {"ns": 14, "title": "Category:Pages with broken file links"},
    ]


def test_category_pages_carry_their_parents_up_to_the_top_level(site):
    chain = ["Coffee"]
    while True:
        result = api(
            site, action="query", prop="categories", titles=f"Category:{chain[-1]}", clshow="!hidden"
        )
        page = next(iter(result["query"]["pages"].values()))
        assert "missing" not in page
        parents = [c["title"].removeprefix("Category:") for c in page.get("categories", [])]
        if not parents:
            break
        chain.append(parents[0])
    assert chain == ["Coffee", "Drinks", "Food and Entertaining"]


def test_categories_continue_across_pages_with_cllimit(site):
    params: dict[str, Any] = {
        "action": "query",
        "prop": "categories|info",
        "cllimit": 1,
        "continue": "",
        "titles": "How to Brew Pour-Over Coffee|How to Fold a Paper Crane",
    }
    found = []
    first = True
    while True:
        result = api(site, **params)
        for page in result["query"]["pages"].values():
            found += [(page["pageid"], c["title"]) for c in page.get("categories", [])]
            # info ran in the first batch only; the continue string marks it finished
            assert ("lastrevid" in page) == first
        if "continue" not in result:
            break
        assert result["continue"]["continue"] == "||info"
        assert "batchcomplete" not in result
        params.update(result["continue"])
        first = False
    assert found == [
        (100001, "Category:Coffee"),
        (100001, "Category:Featured Articles"),
        (100001, "Category:Pages with broken file links"),  # a tracking category, as MediaWiki adds
        (100002, "Category:Origami"),
    ]


def test_generator_allpages_with_props_continues_the_generator(site):
    params: dict[str, Any] = {
        "action": "query",
        "generator": "allpages",
        "gaplimit": 10,
        "prop": "info",
        "continue": "",
    }
    first = api(site, **params)
    assert first["continue"] == {"gapcontinue": "How_to_Test_Thing_06", "continue": "gapcontinue||"}
    assert first["batchcomplete"] == ""
    assert len(first["query"]["pages"]) == 10
    params.update(first["continue"])
    second = api(site, **params)
    assert "continue" not in second
    titles = {p["title"] for r in (first, second) for p in r["query"]["pages"].values()}
    assert titles == set(ALL_MAIN)


def test_categorymembers_lists_a_category_with_continuation(site):
    params: dict[str, Any] = {
        "action": "query",
        "list": "categorymembers",
        "cmtitle": "Category:Testing",
        "cmlimit": 5,
        "continue": "",
    }
    titles = []
    while True:
        result = api(site, **params)
        titles += [m["title"] for m in result["query"]["categorymembers"]]
        if "continue" not in result:
            break
        params.update(result["continue"])
    assert titles == [f"How to Test Thing {i:02d}" for i in range(12)]
    subcats = api(
        site,
        action="query",
        list="categorymembers",
        cmtitle="Category:Food and Entertaining",
        cmtype="subcat",
    )
    assert [m["title"] for m in subcats["query"]["categorymembers"]] == [
        "Category:Desserts",
        "Category:Drinks",
    ]


# --------------------------------------------------------------------------- meta, Summary: pages


def test_siteinfo_general_and_namespaces_include_summary_30(site):
    result = api(site, action="query", meta="siteinfo", siprop="general|namespaces")
    general = result["query"]["general"]
    assert general["generator"] == "MediaWiki 1.39.3"
    assert general["sitename"] == "wikiHow (test)"
    assert general["articlepath"] == "/wiki/$1"
    spaces = result["query"]["namespaces"]
    assert spaces["30"] == {"id": 30, "case": "first-letter", "canonical": "Summary", "*": "Summary"}
    assert spaces["0"]["*"] == "" and spaces["0"]["content"] == ""
    v2 = api(site, action="query", meta="siteinfo", siprop="namespaces", formatversion=2)
    assert v2["query"]["namespaces"]["30"]["name"] == "Summary"


def test_summary_pages_hold_the_quicksummary_parser_function(site):
    result = api(
        site,
        action="query",
        prop="revisions",
        titles="Summary:How to Brew Pour-Over Coffee",
        rvprop="content|timestamp",
        rvslots="main",
    )
    page = result["query"]["pages"]["50100001"]
    assert page["ns"] == 30
    assert page["revisions"][0]["slots"]["main"]["*"] == (
        "{{#quicksummary:bottom|Finally, let it drain and enjoy."
        "|Rinse the filter, weigh 15 g of coffee per 250 g of water and pour slowly.}}"
    )
    assert page["revisions"][0]["timestamp"] == "2019-08-11T09:31:00Z"


# --------------------------------------------------------------------------- action=parse


def test_parse_is_not_served_the_collector_reads_wikitext(site):
    # The emulation of MediaWiki's parser was deleted (nothing asked for it): an unknown action, as
    # MediaWiki answers one.
    result = api(site, action="parse", page="How to Brew Pour-Over Coffee", prop="wikitext")
    assert result["error"]["code"] == "badvalue"
    assert result["error"]["info"] == 'Unrecognized value for parameter "action": parse.'


# --------------------------------------------------------------------------- action=summary_section


def test_summary_section_answers_content_last_sentence_and_position(site):
    result = api(site, action="summary_section", ss_page=100001)
    assert result == {
        "summary_section": {
            "pageid": 100001,
            "title": "How to Brew Pour-Over Coffee",
            "summary_pageid": 50100001,
            "summary_title": "Summary:How to Brew Pour-Over Coffee",
            "position": "bottom",
            "last_sentence": "Finally, let it drain and enjoy.",
            "content": "Rinse the filter, weigh 15 g of coffee per 250 g of water and pour slowly.",
            "timestamp": "2019-08-11T09:31:00Z",
        }
    }


def test_summary_section_errors(site):
    assert api(site, action="summary_section", ss_page=100002)["error"]["code"] == "nosummary"
    assert api(site, action="summary_section", ss_page=31337)["error"]["code"] == "nosuchpageid"
    assert api(site, action="summary_section")["error"]["code"] == "missingparam"
    via_redirect = api(site, action="summary_section", ss_page=100004)
    assert via_redirect["summary_section"]["pageid"] == 100001


# --------------------------------------------------------------------------- errors, format, POST, maxlag


def test_errors_have_mediawikis_shape_and_header(site):
    response = CLIENT.get(site.mediawiki_url, params={"action": "nonsense", "format": "json"})
    assert response.status_code == 200
    assert response.headers["MediaWiki-API-Error"] == "badvalue"
    error = response.json()["error"]
    assert error["code"] == "badvalue" and "action" in error["info"] and "*" in error
    assert response.json()["servedby"]
    v2 = api(site, action="nonsense", formatversion=2)["error"]
    assert "docref" in v2 and "*" not in v2


def test_only_json_is_served(site):
    response = CLIENT.get(site.mediawiki_url, params={"action": "query", "format": "xml"})
    assert response.json()["error"]["code"] == "badvalue"
    assert "format" in response.json()["error"]["info"]


def test_post_form_answers_like_get(site):
    params = {"action": "query", "list": "allpages", "aplimit": 4}
    assert api(site, method="POST", **params) == api(site, **params)


def test_formatversion_1_escapes_non_ascii_and_2_does_not(site):
    params = {"action": "query", "titles": "How to Make Crème Brûlée", "format": "json"}
    v1 = CLIENT.get(site.mediawiki_url, params=params).text
    v2 = CLIENT.get(site.mediawiki_url, params={**params, "formatversion": 2}).text
    assert "Cr\\u00e8me" in v1 and "Crème" in v2


@pytest.mark.parametrize("maxlag, refused", [(5, True), (10, False), (-1, True)])
def test_maxlag_answers_a_maxlag_error_when_the_lag_exceeds_it(make_site, maxlag, refused):
    site = make_site(Faults(mediawiki=EndpointFaults(lag_s=7)))
    response = CLIENT.get(
        site.mediawiki_url, params={"action": "query", "meta": "siteinfo", "format": "json", "maxlag": maxlag}
    )
    body = response.json()
    if refused:
        assert body["error"]["code"] == "maxlag"
        assert body["error"]["lag"] == 7
        assert response.headers["Retry-After"] == str(max(maxlag, 5))
        assert response.headers["X-Database-Lag"] == "7"
    else:
        assert "general" in body["query"] and "Retry-After" not in response.headers
