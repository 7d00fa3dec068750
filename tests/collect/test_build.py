"""``build`` against the replay site: every funnel case, every rejection reason, every injected fault."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.collect.collect_corpus import (
    BREW,
    EMPTY,
    EXPECTED_FUNNEL,
    EXPECTED_REJECTIONS,
    GONE,
    LATIN,
    NEVER,
    NEVER2,
    PDF,
    PNG,
    SHARED,
    SHELL,
)
from tests.collect.scripted_server import fast_settings, settings_for
from wikihowqa.collect.build import build
from wikihowqa.collect.store import StateStore
from wikihowqa.collect.wiki_queries import MediaWikiError
from wikihowqa.core.errors import SettingsError
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.replay import EndpointFaults, Faults, ReplaySite
from wikihowqa.replay.faults import Decision, Injector

OUTPUT_FILES = ("qa.jsonl", "documents.jsonl", "rejections.jsonl")


def manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def rows(out: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (out / name).read_text(encoding="utf-8").splitlines()]


def normalised(out: Path, site: ReplaySite) -> dict[str, str]:
    """Output files with the site's address (its port differs from site to site) replaced."""
    return {name: (out / name).read_text(encoding="utf-8").replace(site.url, "SITE") for name in OUTPUT_FILES}


def rejections_by_url(out: Path) -> dict[str, dict]:
    return {r["url"]: r for r in rows(out, "rejections.jsonl") if r["kind"] == "reference"}


# --------------------------------------------------------------------------- the funnel


def test_the_funnel_counts_articles_and_references_at_every_stage(clean_build):
    m = manifest(clean_build)
    assert m["funnel"] == EXPECTED_FUNNEL
    assert m["rejections"] == EXPECTED_REJECTIONS
    assert m["counts"] == {"questions": 2, "documents": 4}


def test_every_rejected_reference_is_recorded_with_its_reason(clean_build):
    rejected = rejections_by_url(clean_build)
    reasons = {url: r["reason"] for url, r in rejected.items()}
    assert reasons == {
        NEVER: "no_snapshot",
        GONE: "redirect_unresolved",  # archived only as 404 and a 301 to a page never archived
        NEVER2: "no_snapshot",
        EMPTY: "empty_body",
        PDF: "non_html",
        PNG: "non_html",
        SHELL: "empty_text",  # HTML without text: a JavaScript app shell
    }
    assert rejected[PDF]["cited_by"] == [1001, 1005]
    assert rejected[PDF]["detail"] == "application/pdf"
    assert "archive_url" in rejected[SHELL] and "archive_url" not in rejected[NEVER]


def test_every_rejected_article_is_recorded_with_its_reason(clean_build):
    articles = {
        r["article_id"]: r["reason"] for r in rows(clean_build, "rejections.jsonl") if r["kind"] == "article"
    }
    assert articles == {1003: "no_summary", 1004: "no_references", 1005: "no_usable_document"}


def test_redirects_and_other_namespaces_are_not_articles(clean_build):
    ids = {r["article_id"] for r in rows(clean_build, "qa.jsonl")}
    ids |= {r["article_id"] for r in rows(clean_build, "rejections.jsonl") if r["kind"] == "article"}
    assert ids == {1001, 1002, 1003, 1004, 1005}


# --------------------------------------------------------------------------- the records


def test_a_question_is_the_title_and_its_answer_the_quick_summary_as_plain_text(clean_build):
    qa = {r["article_id"]: r for r in rows(clean_build, "qa.jsonl")}
    brew = qa[1001]
    assert brew["question"] == "How to Brew Coffee"
    assert brew["answer"] == "To brew coffee, heat fresh water and use a steady ratio. Finally, serve it hot."
    assert brew["split"] is None and brew["cluster"] is None
    assert brew["category"] == "Food and Entertaining"
    assert brew["categories"] == ["Coffee"]  # the hidden maintenance category is not a topic
    assert (brew["created"], brew["modified"]) == ("2015-05-01T10:00:00Z", "2019-08-11T09:30:00Z")
    assert DatasetFolder(clean_build).examples()[0].article_id == 1001  # loads with the project's reader


def test_documents_are_the_kept_references_in_citation_order(clean_build, site):
    docs = rows(clean_build, "documents.jsonl")
    assert [(d["article_id"], d["original_url"]) for d in docs] == [
        (1001, BREW),
        (1001, SHARED),
        (1002, SHARED),
        (1002, LATIN),
    ]
    for d in docs:
        assert d["parsed_text"] and d["passages"] and d["parsed_md"]
        assert d["archive_url"].startswith(f"{site.url}/web/")
    qa = {r["article_id"]: r for r in rows(clean_build, "qa.jsonl")}
    assert qa[1002]["related_document_urls_wayback_snapshots"] == [
        d["archive_url"] for d in docs if d["article_id"] == 1002
    ]


def test_the_capture_closest_to_the_last_modification_is_chosen_by_default(clean_build):
    brew = next(d for d in rows(clean_build, "documents.jsonl") if d["original_url"] == BREW)
    # Modified 2019-08-11: the 404 of 2019-09 is nearer but is no page; the 2019-10 capture is chosen.
    assert "/web/20191001120000/" in brew["archive_url"]
    assert "NEWVERSION" in brew["parsed_text"] and "OLDVERSION" not in brew["parsed_text"]


def test_the_reference_time_can_be_the_creation(site, tmp_path):
    result = build(tmp_path / "out", settings_for(site, reference_time="created"))
    brew = next(d for d in result.folder.documents() if d.original_url == BREW)
    assert "/web/20160301120000/" in brew.archive_url and "OLDVERSION" in brew.parsed_text
    assert result.manifest["settings"]["reference_time"] == "created"


def test_a_page_declaring_its_charset_only_in_the_header_is_decoded_by_it(clean_build):
    latin = next(d for d in rows(clean_build, "documents.jsonl") if d["original_url"] == LATIN)
    assert "CAFÉ" in latin["parsed_text"]
    assert latin["title"] == "Café crème"


def test_a_url_cited_by_two_articles_is_looked_up_and_fetched_once(corpus_dir, tmp_path):
    with ReplaySite(corpus_dir) as fresh:
        build(tmp_path / "out", settings_for(fresh))
        stats = fresh.stats()
    refs = EXPECTED_FUNNEL["references"]
    # One CDX query per distinct URL; the three without a 200 capture ask for a redirect capture too,
    # and GONE's 301 is followed to its target (a 200 query and a redirect query, both empty).
    assert stats["cdx"]["requests"] == refs["unique_urls"] + 3 + 2
    # One playback per capture found, and one of GONE's redirect capture to read where it points.
    assert stats["playback"]["requests"] == refs["snapshot_found"] + 1


def test_the_manifest_names_sources_settings_and_dates(clean_build, site):
    m = manifest(clean_build)
    assert m["stage"] == "build"
    assert m["sources"]["mediawiki"]["api_url"] == site.mediawiki_url
    assert m["sources"]["mediawiki"]["sitename"] == "wikiHow (collect test)"
    assert m["sources"]["wayback"]["base_url"] == site.wayback_url
    assert m["settings"]["http"]["user_agent"].startswith("wikihowqa/")
    assert m["dates"]["started"] <= m["dates"]["finished"]
    assert set(m["run"]["http"]) == {"mediawiki", "cdx", "playback"}


# --------------------------------------------------------------------------- selection


def test_limit_title_filter_and_category_select_articles(site, tmp_path):
    limited = build(tmp_path / "a", settings_for(site, limit=2)).manifest
    assert limited["funnel"]["articles"]["seen"] == 2
    filtered = build(tmp_path / "b", settings_for(site, title_filter=r"^how to (brew|boil)")).manifest
    assert filtered["funnel"]["articles"] == {
        "seen": 2,
        "with_summary": 2,
        "with_references": 2,
        "with_usable_document": 2,
    }
    garden = build(tmp_path / "c", settings_for(site, category="Home and Garden")).manifest
    assert garden["funnel"]["articles"]["seen"] == 3  # 1003, 1004, 1005 through subcategories


def test_a_category_may_be_named_with_its_prefix(site, tmp_path):
    m = build(tmp_path / "out", settings_for(site, category="Category:Home and Garden")).manifest
    assert m["funnel"]["articles"]["seen"] == 3


def test_a_category_the_site_does_not_have_is_a_one_line_error_naming_it(site, tmp_path):
    unknown = r"--category 'Home and Gardens': .* has no such category"
    with pytest.raises(SettingsError, match=unknown) as info:
        build(tmp_path / "out", settings_for(site, category="Home and Gardens"))
    assert "\n" not in str(info.value)
    assert not (tmp_path / "out" / "qa.jsonl").exists()


def test_a_category_without_articles_is_an_error_not_an_empty_dataset(corpus_dir, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    site_json = json.loads((corpus / "site.json").read_text(encoding="utf-8"))
    site_json["top_categories"].append("Empty Shelf")  # a category page, and nothing in it
    (corpus / "site.json").write_text(json.dumps(site_json), encoding="utf-8")
    empty = r"'Empty Shelf': the category .* hold no articles"
    with ReplaySite(corpus) as shelf, pytest.raises(SettingsError, match=empty):
        build(tmp_path / "out", settings_for(shelf, category="Empty Shelf"))


def test_an_empty_category_name_is_refused(site):
    with pytest.raises(SettingsError, match="category must name a category"):
        settings_for(site, category="Category: ")


# --------------------------------------------------------------------------- resuming


def test_a_rerun_asks_nothing_again_and_writes_the_same_files(corpus_dir, tmp_path):
    with ReplaySite(corpus_dir) as fresh:
        out = tmp_path / "out"
        build(out, settings_for(fresh))
        first = {name: (out / name).read_bytes() for name in OUTPUT_FILES}
        fresh.reset_stats()
        again = build(out, settings_for(fresh))
        stats = fresh.stats()
    assert {name: (out / name).read_bytes() for name in OUTPUT_FILES} == first
    assert all(stats[g]["requests"] == 0 for g in ("mediawiki", "cdx", "playback"))
    assert again.manifest["run"]["runs"] == 2
    assert (out / "build.sqlite").is_file()


def test_a_folder_holding_other_files_is_refused(site, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("precious")
    with pytest.raises(SettingsError, match="holds files a build did not write"):
        build(out, settings_for(site))
    assert (out / "notes.txt").read_text() == "precious"


# --------------------------------------------------------------------------- faults

FAULTS = {
    "429 with Retry-After": Faults(
        cdx=EndpointFaults(throttle_every=4, retry_after_s=1),
        playback=EndpointFaults(throttle_every=5, retry_after_s=1),
    ),
    "429 without Retry-After": Faults.everywhere(EndpointFaults(throttle_every=3)),
    "5xx": Faults.everywhere(EndpointFaults(error_every=3, error_status=503)),
    "502 at random": Faults.everywhere(EndpointFaults(error_p=0.3, error_status=502), seed=7),
    "dropped connections": Faults.everywhere(EndpointFaults(drop_every=3)),
    "truncated bodies": Faults.everywhere(EndpointFaults(truncate_every=2)),
    "timeouts": Faults.everywhere(EndpointFaults(jitter_s=0.4), seed=3),
    "server rate limit": Faults(
        cdx=EndpointFaults(rate_limit=40, burst=2), playback=EndpointFaults(rate_limit=40, burst=2)
    ),
}


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_build_through_injected_faults_produces_the_clean_output(
    name, corpus_dir, clean_build, site, tmp_path
):
    http = fast_settings(concurrency=4, timeout_s=0.25, retries=8, throttle_retries=8)
    with ReplaySite(corpus_dir, faults=FAULTS[name]) as faulty:
        build(tmp_path / "out", settings_for(faulty, http=http))
        stats = faulty.stats()
        assert normalised(tmp_path / "out", faulty) == normalised(clean_build, site)
    lanes = ("mediawiki", "cdx", "playback")
    m = manifest(tmp_path / "out")
    if name == "timeouts":
        # Every jittered request counts as delayed; only those the client gave up waiting for timed out.
        injected = sum(m["run"]["http"][lane]["timeouts"] for lane in lanes)
    else:
        injected = sum(sum(stats[g]["injected"].values()) - stats[g]["injected"]["delayed"] for g in lanes)
    assert injected > 0, "the fault was never injected: the test would prove nothing"
    assert m["funnel"] == EXPECTED_FUNNEL


def test_a_client_paced_below_the_servers_limit_is_never_throttled(corpus_dir, tmp_path):
    # A burst of 3 absorbs requests that a busy machine delivers bunched (the client's pacing is at send
    # time); a client that ignored its pace would send 8 at once and still be throttled.
    limits = Faults(
        cdx=EndpointFaults(rate_limit=20, burst=3), playback=EndpointFaults(rate_limit=20, burst=3)
    )
    http = fast_settings(concurrency=8, rates={"cdx": 10.0, "playback": 10.0})
    with ReplaySite(corpus_dir, faults=limits) as strict:
        build(tmp_path / "out", settings_for(strict, http=http))
        stats = strict.stats()
    assert stats["cdx"]["injected"]["rate_limited"] == 0
    assert stats["playback"]["injected"]["rate_limited"] == 0
    assert manifest(tmp_path / "out")["funnel"] == EXPECTED_FUNNEL


def test_references_whose_snapshot_cannot_be_fetched_are_rejected_and_retried_on_request(
    corpus_dir, tmp_path
):
    http = fast_settings(concurrency=4, retries=1)
    with ReplaySite(corpus_dir, faults=Faults(playback=EndpointFaults(error_p=1.0))) as broken:
        out = tmp_path / "out"
        m = build(out, settings_for(broken, http=http)).manifest
        # The 7 captures found, and GONE's redirect capture, whose playback says where it leads.
        assert m["rejections"]["reference_fetch_failed"] == 8
        assert m["funnel"]["references"]["fetched"] == 0
        assert m["funnel"]["articles"]["with_usable_document"] == 0
        failed = rejections_by_url(out)[BREW]
        assert failed["reason"] == "fetch_failed" and failed["failed_at"] == "playback"
        assert failed["detail"] == "HTTP 503"
        # The same command keeps the recorded outcome; --retry-failed asks again once the archive recovers.
        broken.app.injector = Injector(Faults())
        assert (
            build(out, settings_for(broken, http=http)).manifest["rejections"]["reference_fetch_failed"] == 8
        )
        healed = build(out, settings_for(broken, http=http, retry_failed=True)).manifest
    assert healed["funnel"] == EXPECTED_FUNNEL


class Refusing(Injector):
    """Every request of one endpoint group answered ``status``, as by a server that means it (a 501, or the
    403 the Wayback Machine sends for a blocked capture): not retried, so kept in the response cache."""

    def __init__(self, group: str, status: int) -> None:
        super().__init__(Faults())
        self.refused, self.status = group, status

    def decide(self, group: str) -> Decision:
        decision = super().decide(group)
        return Decision(decision.delay_s, "error", self.status) if group == self.refused else decision


@pytest.mark.parametrize(
    ("group", "status", "failed", "detail"),
    [
        ("playback", 501, 8, "HTTP 501"),
        ("playback", 403, 8, "HTTP 403"),
        ("cdx", 403, 10, "CDX answered HTTP 403"),
    ],
)
def test_retry_failed_asks_again_for_answers_that_were_not_worth_retrying_at_the_time(
    group, status, failed, detail, corpus_dir, tmp_path
):
    http = fast_settings(concurrency=4, retries=1)
    with ReplaySite(corpus_dir) as refusing:
        refusing.app.injector = Refusing(group, status)
        out = tmp_path / "out"
        m = build(out, settings_for(refusing, http=http)).manifest
        assert m["rejections"]["reference_fetch_failed"] == failed
        assert rejections_by_url(out)[SHARED]["detail"] == detail
        # Not retried, so stored: a plain rerun reads the refusals back without asking.
        refusing.app.injector = Injector(Faults())
        again = build(out, settings_for(refusing, http=http)).manifest
        assert again["rejections"]["reference_fetch_failed"] == failed
        assert refusing.stats()[group]["requests"] == 0
        healed = build(out, settings_for(refusing, http=http, retry_failed=True)).manifest
        stats = refusing.stats()
    assert healed["funnel"] == EXPECTED_FUNNEL
    # Only what failed is asked again: each refused request once, a good CDX answer is not re-asked;
    # past a refused CDX query come the queries it stood in front of (a redirect capture for the 3 URLs
    # without a 200, and both queries for GONE's redirect target).
    assert stats[group]["requests"] == failed + (3 + 2 if group == "cdx" else 0)
    if group == "playback":
        # Only GONE's redirect target is asked for at the CDX server: the refusal stood in front of it.
        assert stats["cdx"]["requests"] == 2


def test_a_cdx_server_that_keeps_failing_rejects_references_as_fetch_failed(corpus_dir, tmp_path):
    http = fast_settings(concurrency=4, retries=1)
    with ReplaySite(corpus_dir, faults=Faults(cdx=EndpointFaults(drop_p=1.0))) as broken:
        m = build(tmp_path / "out", settings_for(broken, http=http)).manifest
    assert m["rejections"]["reference_fetch_failed"] == 10
    assert m["funnel"]["references"]["snapshot_found"] == 0
    assert rejections_by_url(tmp_path / "out")[SHARED]["failed_at"] == "cdx"


def test_a_wiki_lagging_beyond_maxlag_is_waited_for_then_reported_in_one_line(corpus_dir, tmp_path):
    with ReplaySite(corpus_dir, faults=Faults(mediawiki=EndpointFaults(lag_s=30))) as lagging:
        with pytest.raises(MediaWikiError, match=r"server busy.*run the same command again"):
            build(tmp_path / "out", settings_for(lagging, http=fast_settings(retries=0)))
        stats = lagging.stats()
        # A tolerant maxlag goes through.
        ok = build(tmp_path / "ok", settings_for(lagging, maxlag=60)).manifest
    assert stats["mediawiki"]["requests"] == 1
    assert ok["funnel"] == EXPECTED_FUNNEL


def test_a_url_that_is_not_a_mediawiki_api_is_a_clear_error(site, tmp_path):
    with pytest.raises(MediaWikiError, match="not a MediaWiki API"):
        build(tmp_path / "out", settings_for(site, api_url=site.url + "/"))
    # The state kept so far stays for a rerun.
    assert StateStore(tmp_path / "out" / "build.sqlite").response_count() == 1


def test_settings_are_checked_before_anything_is_fetched(site):
    with pytest.raises(SettingsError, match="reference time"):
        settings_for(site, reference_time="published")
    with pytest.raises(SettingsError, match="title filter"):
        settings_for(site, title_filter="(")
    with pytest.raises(SettingsError, match="api-url"):
        settings_for(site, api_url="ftp://x")


def test_the_parse_stage_reparses_a_built_folder_from_its_state_file(site, tmp_path):
    from wikihowqa.parse import ParseSettings
    from wikihowqa.parse.stage import open_build_cache, reparse_folder

    out = tmp_path / "out"
    build(out, settings_for(site))
    before = DatasetFolder(out).documents()
    site.reset_stats()
    report = reparse_folder(out, open_build_cache(out), ParseSettings(), workers=1)
    after = DatasetFolder(out).documents()
    assert report.parsed == len(before) and report.unchanged == 0
    assert [(d.archive_url, d.parsed_text) for d in after] == [(d.archive_url, d.parsed_text) for d in before]
    assert sum(site.stats()[g]["requests"] for g in ("mediawiki", "cdx", "playback")) == 0


# --------------------------------------------------------------------------- real MediaWiki semantics


def _corpus_with_site(corpus_dir: Path, tmp_path: Path, **site_fields) -> Path:
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    site_json = json.loads((corpus / "site.json").read_text(encoding="utf-8"))
    (corpus / "site.json").write_text(json.dumps({**site_json, **site_fields}), encoding="utf-8")
    return corpus


def test_the_quick_summary_namespace_is_found_by_number_whatever_its_name(
    corpus_dir, clean_build, site, tmp_path
):
    """Issue 13, 5: a wiki calling namespace 30 otherwise used to give no summary and exit 0."""
    corpus = _corpus_with_site(corpus_dir, tmp_path, summary_namespace="Quick Summary")
    with ReplaySite(corpus) as renamed:
        m = build(tmp_path / "out", settings_for(renamed)).manifest
        assert normalised(tmp_path / "out", renamed) == normalised(clean_build, site)
    assert m["funnel"] == EXPECTED_FUNNEL
    assert m["sources"]["mediawiki"]["summary_namespace"] == {"id": 30, "name": "Quick Summary"}


def test_a_wiki_without_the_summary_namespace_is_a_one_line_error(site, tmp_path):
    with pytest.raises(SettingsError, match=r"has no namespace 32 for Quick Summaries.*--summary-namespace"):
        build(tmp_path / "out", settings_for(site, summary_namespace=32))


def test_tracking_categories_are_no_topic_and_the_root_category_decides_the_top(clean_build, site, tmp_path):
    qa = {r["article_id"]: r for r in rows(clean_build, "qa.jsonl")}
    m = manifest(clean_build)
    assert m["sources"]["mediawiki"]["tracking_categories"] == [
        "Hidden categories",
        "Pages with broken file links",
    ]
    assert all("Pages with broken file links" not in r["categories"] for r in qa.values())
    rooted = build(tmp_path / "out", settings_for(site, root_category="Category:Food and Entertaining"))
    tops = {r["article_id"]: r["category"] for r in rows(tmp_path / "out", "qa.jsonl")}
    assert tops == {1001: "Drinks", 1002: "Drinks"}  # the categories right under the root
    assert rooted.manifest["settings"]["root_category"] == "Food and Entertaining"
    assert rooted.manifest["sources"]["mediawiki"]["category_root"]["found_by"] == "--root-category"


def corpus_with_categories(corpus_dir: Path, tmp_path: Path, *, root: bool, stray: bool) -> Path:
    """The test corpus, its two top-level categories under a root "Contents" (``root``), and article
    1001 also in "Articles to review", a category in no category that holds pages only (``stray``)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    site_json = json.loads((corpus / "site.json").read_text(encoding="utf-8"))
    parents = site_json["category_parents"]
    if root:
        parents.update(
            {"Contents": [], "Food and Entertaining": ["Contents"], "Home and Garden": ["Contents"]}
        )
    if stray:
        parents["Articles to review"] = []
        path = corpus / "articles" / "1001.json"
        article = json.loads(path.read_text(encoding="utf-8"))
        article["categories"].append("Articles to review")
        path.write_text(json.dumps(article), encoding="utf-8")
    (corpus / "site.json").write_text(json.dumps(site_json), encoding="utf-8")
    return corpus


def top_categories(out: Path) -> dict[int, str]:
    return {r["article_id"]: r["category"] for r in rows(out, "qa.jsonl")}


def test_a_category_in_no_category_that_holds_only_pages_is_no_top_level_category(corpus_dir, tmp_path):
    """The bug: the first parentless category of an article was its top (the API lists categories in
    title order, so "Articles to review" came before "Coffee")."""
    corpus = corpus_with_categories(corpus_dir, tmp_path, root=False, stray=True)
    with ReplaySite(corpus) as wiki:
        m = build(tmp_path / "out", settings_for(wiki)).manifest
    assert top_categories(tmp_path / "out") == {1001: "Food and Entertaining", 1002: "Food and Entertaining"}
    root = m["sources"]["mediawiki"]["category_root"]
    assert root["root"] is None and root["found_by"] == "Special:UncategorizedCategories"
    assert root["named"] == ["Food and Entertaining", "Home and Garden"]


@pytest.mark.parametrize("layout", ["root", "root and stray"])
def test_the_sites_category_root_is_found_from_the_wiki(layout, corpus_dir, clean_build, tmp_path):
    corpus = corpus_with_categories(corpus_dir, tmp_path, root=True, stray="stray" in layout)
    with ReplaySite(corpus) as wiki:
        m = build(tmp_path / "out", settings_for(wiki)).manifest
    assert top_categories(tmp_path / "out") == top_categories(
        clean_build
    )  # the categories right under the root
    root = m["sources"]["mediawiki"]["category_root"]
    assert root["root"] == "Contents" and root["found_by"] == "Special:UncategorizedCategories"
    assert "2 subcategories against 0" in root["how"]


def test_a_wiki_that_does_not_list_its_uncategorized_categories_is_judged_by_the_articles_graph(
    corpus_dir, clean_build, tmp_path, monkeypatch
):
    from wikihowqa.collect.wiki_queries import MediaWiki

    async def unanswered(self):
        return None

    monkeypatch.setattr(MediaWiki, "uncategorized_categories", unanswered)
    corpus = corpus_with_categories(corpus_dir, tmp_path, root=True, stray=True)
    with ReplaySite(corpus) as wiki:
        whole = build(tmp_path / "whole", settings_for(wiki)).manifest
        part = build(tmp_path / "part", settings_for(wiki, title_filter="brew")).manifest
    assert whole["sources"]["mediawiki"]["category_root"]["root"] == "Contents"
    assert whole["sources"]["mediawiki"]["category_root"]["found_by"] == "the articles' category graph"
    assert top_categories(tmp_path / "whole") == top_categories(clean_build)
    # A part of the wiki cannot tell a root from a top-level category: no root is guessed, and it says so.
    found = part["sources"]["mediawiki"]["category_root"]
    assert found["root"] is None and "a part of the wiki" in found["how"]
    assert top_categories(tmp_path / "part") == {1001: "Contents"}


def test_a_root_category_the_wiki_does_not_have_is_a_one_line_error(site, tmp_path):
    with pytest.raises(SettingsError, match=r"--root-category 'Contnets': .* has no such category") as info:
        build(tmp_path / "out", settings_for(site, root_category="Contnets"))
    assert "\n" not in str(info.value)
    assert not (tmp_path / "out" / "qa.jsonl").exists()


def pages_read(out: Path) -> set[int]:
    """The page ids whose content the build asked the wiki for (from its response cache)."""
    from urllib.parse import parse_qs, urlsplit

    ids: set[int] = set()
    for key in StateStore(out / "build.sqlite", readonly=True).response_keys():
        query = parse_qs(urlsplit(key).query)
        if "content" in query.get("rvprop", [""])[0] and "pageids" in query:
            ids.update(int(i) for i in query["pageids"][0].split("|"))
    return ids


def test_a_creation_window_reads_only_the_articles_created_in_it(site, tmp_path):
    """For a large wiki the point of the creation log: the content of articles outside the window is
    never fetched (the log, 500 pages a request, decides first)."""
    m = build(tmp_path / "out", settings_for(site, created_after="2017-01-01")).manifest
    assert pages_read(tmp_path / "out") == {1002}
    assert m["selection"]["outside_window"] == 4
    everything = build(tmp_path / "all", settings_for(site)).manifest
    assert pages_read(tmp_path / "all") == {1001, 1002, 1003, 1004, 1005}
    assert everything["selection"]["outside_window"] == 0


def test_created_after_and_before_select_articles_by_creation_time(site, tmp_path):
    m = build(tmp_path / "out", settings_for(site, created_after="2017-01-01")).manifest
    assert [r["article_id"] for r in rows(tmp_path / "out", "qa.jsonl")] == [1002]  # created 2017-01-01
    assert m["selection"] == {
        "created_after": "2017-01-01T00:00:00Z",
        "created_before": None,
        "outside_window": 4,
    }
    assert m["settings"]["created_after"] == "2017-01-01T00:00:00Z"
    early = build(tmp_path / "early", settings_for(site, created_before="2017-01-01")).manifest
    assert early["funnel"]["articles"]["seen"] == 4
    with pytest.raises(SettingsError, match="created-after must be a date"):
        settings_for(site, created_after="last spring")
    with pytest.raises(SettingsError, match="must be before"):
        settings_for(site, created_after="2020-01-01", created_before="2019-01-01")


# --------------------------------------------------------------------------- a selection that leaves nothing


@pytest.mark.parametrize(
    ("window", "named"),
    [
        ({"created_after": "2999-01-01"}, "--created-after 2999-01-01T00:00:00Z: "),
        ({"created_before": "1990-01-01"}, "--created-before 1990-01-01T00:00:00Z: "),
        (
            {"created_after": "1990-01-01", "created_before": "1991-01-01"},
            "--created-after 1990-01-01T00:00:00Z and --created-before 1991-01-01T00:00:00Z: ",
        ),
    ],
)
def test_a_creation_window_no_article_was_created_in_stops_the_build_naming_it(site, tmp_path, window, named):
    """Issue 26, 1: a typo for 2024 used to build an empty qa.jsonl and exit 0."""
    with pytest.raises(SettingsError) as info:
        build(tmp_path / "out", settings_for(site, **window))
    line = str(info.value)
    assert line.startswith(named + "none of the 5 selected articles was created in it"), line
    assert "they were created from 2015-" in line and "\n" not in line
    assert not (tmp_path / "out" / "qa.jsonl").exists()


def test_a_title_filter_matching_no_title_stops_the_build_naming_it(site, tmp_path):
    with pytest.raises(SettingsError) as info:
        build(tmp_path / "out", settings_for(site, title_filter="zzzz-no-match"))
    assert str(info.value) == (
        f"--title-filter 'zzzz-no-match': matches none of the 5 article titles of {site.mediawiki_url}"
    )
    none_of_3 = r"--title-filter 'Brew': matches none of the 3 .* 'Home and Garden'"
    with pytest.raises(SettingsError, match=none_of_3):
        build(tmp_path / "c", settings_for(site, category="Home and Garden", title_filter="Brew"))
    assert not (tmp_path / "out" / "qa.jsonl").exists()


@pytest.mark.parametrize("namespace", [0, 1, 14])
def test_a_summary_namespace_holding_no_quick_summary_stops_the_build_naming_it(site, tmp_path, namespace):
    with pytest.raises(SettingsError) as info:
        build(tmp_path / "out", settings_for(site, summary_namespace=namespace))
    line = str(info.value)
    assert line.startswith(f"--summary-namespace {namespace}: none of the 5 articles read has a Quick ")
    assert "wikiHow keeps them in namespace 30" in line
    assert not (tmp_path / "out" / "qa.jsonl").exists()


def test_a_summary_namespace_error_names_the_selection_it_read(site, tmp_path):
    selected = r"^--summary-namespace 1: none of the 2 articles read \(selected by --limit 2\) has"
    with pytest.raises(SettingsError, match=selected):
        build(tmp_path / "out", settings_for(site, summary_namespace=1, limit=2))


@pytest.mark.parametrize("namespace", [-1, -2])
def test_a_virtual_summary_namespace_is_refused_before_anything_is_asked(site, namespace):
    refused = f"summary namespace must be a namespace of pages .* got {namespace}"
    with pytest.raises(SettingsError, match=refused):
        settings_for(site, summary_namespace=namespace)


def test_a_selection_whose_articles_cite_nothing_stops_the_build_naming_the_selection(site, tmp_path):
    """How to Water Plants (1004) has a Quick Summary and no reference."""
    with pytest.raises(SettingsError) as info:
        build(tmp_path / "out", settings_for(site, title_filter="water plants"))
    assert str(info.value) == (
        "none of the 1 articles selected by --title-filter 'water plants' with a Quick Summary cites a "
        "reference: there is nothing to build"
    )
    assert not (tmp_path / "out" / "qa.jsonl").exists()


def test_a_build_whose_references_give_no_document_fails_with_the_reasons_and_keeps_its_record(
    site, tmp_path, monkeypatch, capsys
):
    """How to Fail Everything (1005): its references are never archived or a PDF. The build records why
    (rejections.jsonl, for --retry-failed) and the command fails: never an empty qa.jsonl with exit 0."""
    from wikihowqa.cli import main

    out = tmp_path / "out"
    argv = ["wikihowqa", "build", str(out), "--api-url", site.mediawiki_url, "--wayback-url"]
    monkeypatch.setattr("sys.argv", [*argv, site.wayback_url, "--title-filter", "fail everything"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"error: {out}: no question kept: none of the 1 articles with a Quick Summary")
    assert "(of their 2 cited pages: 1 no_snapshot, 1 non_html)" in line
    assert {r["reason"] for r in rows(out, "rejections.jsonl")} == {
        "no_snapshot",
        "non_html",
        "no_usable_document",
    }


# --------------------------------------------------------------------------- the summary namespace, by number


def test_the_main_namespace_is_read_by_its_number_not_as_summary(site):
    """Issue 26, 2: namespace 0's name is empty, and the client used to keep reading "Summary:" pages."""
    import asyncio

    from wikihowqa.collect.http import HttpClient
    from wikihowqa.collect.wiki_queries import MediaWiki

    async def read(namespace: int) -> tuple[str, dict[str, str]]:
        async with HttpClient(fast_settings()) as http:
            wiki = MediaWiki(http, site.mediawiki_url, summary_namespace=namespace)
            await wiki.siteinfo()
            return wiki.summary_namespace_name, await wiki.summaries(["How to Brew Coffee"])

    name, pages = asyncio.run(read(0))
    assert name == ""
    assert "#quicksummary" not in pages["How to Brew Coffee"]  # the article itself, as namespace 0 holds it
    name, pages = asyncio.run(read(30))
    assert name == "Summary" and pages["How to Brew Coffee"].startswith("{{#quicksummary:")


def test_a_build_reading_summaries_from_the_main_namespace_records_it(corpus_dir, tmp_path):
    """A wiki keeping each Quick Summary inside its article: namespace 0, whose name is "", is what the
    build reads and what the manifest says it read."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    page = corpus / "articles" / "1002.json"
    article = json.loads(page.read_text(encoding="utf-8"))
    article["wikitext"] += "\n{{#quicksummary:top|Done.|Boil it in the article itself.}}\n"
    page.write_text(json.dumps(article), encoding="utf-8")
    with ReplaySite(corpus) as inside:
        m = build(tmp_path / "out", settings_for(inside, summary_namespace=0)).manifest
    assert m["sources"]["mediawiki"]["summary_namespace"] == {"id": 0, "name": ""}
    assert m["settings"]["summary_namespace"] == 0
    assert m["funnel"]["articles"]["with_summary"] == 1
    [row] = rows(tmp_path / "out", "qa.jsonl")
    assert (row["article_id"], row["answer"]) == (1002, "Boil it in the article itself. Done.")
