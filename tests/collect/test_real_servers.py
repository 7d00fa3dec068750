"""``build`` against real server software on loopback: Debian's MediaWiki 1.39 and pywb 2.10.

The demo corpus is installed in a stock MediaWiki (imported with ``importDump.php``) and its captures in
pywb (a WARC written with warcio); the build must give the same ``qa.jsonl`` and ``documents.jsonl`` as
against the replay site, and the funnel the corpus was written to produce, whichever way it finds
captures (CDX, playback first, Memento).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from tests.collect.real_servers import CREATED_REDIRECT
from tests.collect.scripted_server import build_settings, fast_settings, settings_for
from tests.collect.test_build import pages_read
from tests.components import MEDIAWIKI, require
from wikihowqa.cli import app
from wikihowqa.collect.archive_queries import ArchiveEndpoints, Wayback
from wikihowqa.collect.build import BuildSettings, build
from wikihowqa.collect.http import CDX, HttpClient
from wikihowqa.collect.wiki_queries import MediaWiki
from wikihowqa.replay import ReplaySite

FILES = ("qa.jsonl", "documents.jsonl")
runner = CliRunner()


def expected_funnel(corpus: Path) -> dict:
    expected = json.loads((corpus / "expected.json").read_text(encoding="utf-8"))
    return {key: expected[key] for key in ("articles", "references", "rejections")}


def funnel(manifest: dict) -> dict:
    return {**manifest["funnel"], "rejections": manifest["rejections"]}


def outputs(out: Path, archive_base: str) -> dict[str, str]:
    """The output files, the archive's address (host, port) written as ARCHIVE."""
    return {name: (out / name).read_text(encoding="utf-8").replace(archive_base, "ARCHIVE") for name in FILES}


def pywb_settings(wiki, archive, **overrides) -> BuildSettings:
    values = {"api_url": wiki.api_url, "cdx_url": archive.cdx_url, "playback_url": archive.playback_url}
    values["http"] = fast_settings(concurrency=4, timeout_s=20.0)
    values.update(overrides)
    return build_settings(**values)


@pytest.fixture(scope="session")
def demo_build(demo_site: ReplaySite, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus built from the replay site (what the demo does): the output every server must give."""
    out = tmp_path_factory.mktemp("demo-replay") / "dataset"
    build(out, settings_for(demo_site))
    return out


# --------------------------------------------------------------------------- same benchmark, real servers


@pytest.mark.parametrize("lookup", ["cdx", "playback"])
def test_mediawiki_and_pywb_give_the_replay_sites_benchmark(
    lookup, real_wiki, pywb, demo_corpus, demo_build, demo_site, tmp_path
):
    result = build(tmp_path / "out", pywb_settings(real_wiki, pywb, lookup=lookup))
    assert funnel(result.manifest) == expected_funnel(demo_corpus)
    assert outputs(tmp_path / "out", pywb.url) == outputs(demo_build, demo_site.url)
    assert result.manifest["sources"]["mediawiki"]["generator"].startswith("MediaWiki 1.39")
    # wikiHow's layout, read from the wiki: no root, its categories of categories are the top level.
    root = result.manifest["sources"]["mediawiki"]["category_root"]
    assert (
        root
        == json.loads((demo_build / "manifest.json").read_text())["sources"]["mediawiki"]["category_root"]
    )
    assert root["root"] is None and root["found_by"] == "Special:UncategorizedCategories"


def test_pywb_through_memento_gives_the_same_benchmark(
    real_wiki, pywb, demo_corpus, demo_build, demo_site, tmp_path
):
    settings = build_settings(
        api_url=real_wiki.api_url,
        memento_timegate=pywb.timegate_url,
        memento_timemap=pywb.timemap_url,
        http=fast_settings(concurrency=4, timeout_s=20.0),
    )
    assert settings.archive_lookup == "memento" and settings.endpoints.cdx_url is None
    result = build(tmp_path / "out", settings)
    assert funnel(result.manifest) == expected_funnel(demo_corpus)
    assert outputs(tmp_path / "out", pywb.url) == outputs(demo_build, demo_site.url)
    assert result.manifest["run"]["http"].get(CDX, {}).get("requests", 0) <= 10  # TimeMaps only


def test_the_playback_lookup_needs_a_fraction_of_the_cdx_requests(real_wiki, pywb, tmp_path):
    per_url = build(tmp_path / "cdx", pywb_settings(real_wiki, pywb, lookup="cdx")).manifest
    first = build(tmp_path / "playback", pywb_settings(real_wiki, pywb, lookup="playback")).manifest
    kept = per_url["funnel"]["references"]["kept"]
    assert per_url["run"]["http"][CDX]["requests"] >= kept
    assert first["run"]["http"][CDX]["requests"] * 10 <= per_url["run"]["http"][CDX]["requests"]


# --------------------------------------------------------------------------- what the real servers answer


def test_pywbs_fuzzy_rows_of_other_statuses_are_not_taken_for_a_capture(pywb):
    url = "http://www.bladepartsdirect.com/guides/wiper-connectors.html"  # only a 404 and two 301s
    params = {"url": url, "output": "json", "filter": "statuscode:200", "sort": "closest", "closest": "2020"}
    raw = httpx.get(pywb.cdx_url, params=params, timeout=10).text
    assert '"is_fuzzy": "1"' in raw and '"status": "404"' in raw  # pywb answers a non-200 row all the same

    async def closest():
        async with HttpClient(fast_settings()) as http:
            return await Wayback(http, ArchiveEndpoints(pywb.cdx_url, pywb.playback_url)).closest(url, "2020")

    assert asyncio.run(closest()) is None


def _cli_build(out: Path, *args: str, monkeypatch, capsys) -> tuple[int, str]:
    """``wikihowqa build`` as a user runs it (errors through the CLI's one-line handler)."""
    from wikihowqa.cli import main

    rates = ["--mediawiki-rate", "0", "--cdx-rate", "0", "--playback-rate", "0", "--retries", "0"]
    monkeypatch.setattr("sys.argv", ["wikihowqa", "build", str(out), *args, *rates])
    with pytest.raises(SystemExit) as info:
        main()
    return int(info.value.code or 0), capsys.readouterr().err.strip()


def test_the_internet_archives_layout_on_pywb_stops_the_build_with_one_line_and_no_dataset(
    real_wiki, pywb, tmp_path, monkeypatch, capsys
):
    """Issue 13, 1: ``--wayback-url`` asks pywb for /cdx/search/cdx, which it answers with a 404."""
    args = ("--api-url", real_wiki.api_url, "--wayback-url", pywb.url)
    code, err = _cli_build(tmp_path / "ds", *args, monkeypatch=monkeypatch, capsys=capsys)
    line = err.splitlines()[-1]  # above it: the progress bars
    assert code == 2 and line.startswith("error:"), err
    assert f"{pywb.url}/cdx/search/cdx: the first 3 lookups failed" in line and "HTTP 404" in line
    assert "--cdx-url" in line
    assert not (tmp_path / "ds" / "qa.jsonl").exists()


def test_a_collection_pywb_does_not_have_stops_the_build_instead_of_an_empty_dataset(
    real_wiki, pywb, tmp_path, monkeypatch, capsys
):
    """pywb answers an unknown collection's CDX queries with an empty 200: no capture, ever."""
    wrong = f"{pywb.url}/wrong/"
    args = ("--api-url", real_wiki.api_url, "--cdx-url", wrong + "cdx", "--playback-url", wrong)
    code, err = _cli_build(tmp_path / "ds", *args, monkeypatch=monkeypatch, capsys=capsys)
    line = err.splitlines()[-1]
    assert code == 2 and line.startswith("error:"), err
    assert f"{wrong}cdx: none of the 159 cited pages has a capture" in line
    assert not (tmp_path / "ds" / "qa.jsonl").exists()
    # Corrected, the same folder builds: what the wrong collection answered is not read back.
    args = ("--api-url", real_wiki.api_url, "--cdx-url", pywb.cdx_url, "--playback-url", pywb.playback_url)
    code, err = _cli_build(tmp_path / "ds", *args, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "ds" / "manifest.json").read_text())["funnel"]["references"]["kept"] == 146


def test_a_cdx_url_nobody_listens_on_stops_the_build_with_one_line(real_wiki, pywb, tmp_path):
    from tests.collect.real_servers import free_port

    nobody = f"http://127.0.0.1:{free_port()}/web/cdx"
    settings = pywb_settings(real_wiki, pywb, cdx_url=nobody, http=fast_settings(retries=0))
    from wikihowqa.collect.references import ArchiveError

    with pytest.raises(ArchiveError, match=r"the first 3 lookups failed \(connection error") as info:
        build(tmp_path / "ds", settings)
    assert nobody in str(info.value) and "\n" not in str(info.value)
    assert not (tmp_path / "ds" / "qa.jsonl").exists()


def test_dry_run_counts_the_articles_the_build_reads_not_the_wikis_statistics(real_wiki):
    stats = httpx.get(
        real_wiki.api_url,
        params={"action": "query", "meta": "siteinfo", "siprop": "statistics", "format": "json"},
        timeout=10,
    ).json()["query"]["statistics"]
    assert stats["articles"] == 49  # MediaWiki counts content pages with a link
    result = runner.invoke(app, ["build", "x", "--api-url", real_wiki.api_url, "--dry-run"])
    assert result.exit_code == 0, result.output
    assert "estimate for 52 articles" in result.output


def test_a_dry_run_with_a_window_on_the_real_wiki_counts_the_pages_the_log_does_not_list(real_wiki):
    """Imported pages have no entry in MediaWiki's creation log: the build asks each for its first
    revision, and the dry run says so (and counts them as read: it does not ask)."""
    args = ["build", "x", "--api-url", real_wiki.api_url, "--dry-run", "--created-after", "2016-01-01"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "estimate for 52 of 52 articles" in result.output
    assert "0 of the 52 listed articles created in it" in result.output
    assert "52 not in the log are asked one by one" in result.output


def test_real_mediawiki_tracking_categories_are_no_topic(real_wiki, demo_build):
    params = {"action": "query", "pageids": "150101", "prop": "categories", "clshow": "!hidden",
              "format": "json", "formatversion": "2"}  # fmt: skip
    page = httpx.get(real_wiki.api_url, params=params, timeout=10).json()["query"]["pages"][0]
    names = [c["title"] for c in page["categories"]]
    assert "Category:Pages with broken file links" in names  # MediaWiki adds it: the article shows images

    async def tracking():
        async with HttpClient(fast_settings()) as http:
            return await MediaWiki(http, real_wiki.api_url).tracking_categories()

    assert "Pages with broken file links" in asyncio.run(tracking())
    qa = {json.loads(line)["article_id"]: json.loads(line) for line in (demo_build / "qa.jsonl").open()}
    assert qa[150101]["categories"] == ["Knitting"] and qa[150101]["category"] == "Hobbies and Crafts"


def test_the_page_creation_log_of_a_real_wiki_gives_creation_times(real_wiki):
    async def read():
        async with HttpClient(fast_settings()) as http:
            wiki = MediaWiki(http, real_wiki.api_url)
            logged = await wiki.creations(0)
            params = {"action": "query", "titles": CREATED_REDIRECT[0], "prop": "info"}
            data = await wiki.request(params)
            pageid = data["query"]["pages"][0]["pageid"]
            return logged, pageid, await wiki.created(pageid)

    logged, pageid, first_revision = asyncio.run(read())
    assert logged[pageid] == first_revision  # the log says what the first revision says
    assert 100101 not in logged  # imported pages are not in the log: their first revision is asked


def test_a_time_sliced_benchmark_from_the_real_wiki_equals_the_replay_sites(
    real_wiki, pywb, demo_site, tmp_path
):
    window = {"created_after": "2016-01-01", "created_before": "2019-01-01"}
    real = build(tmp_path / "real", pywb_settings(real_wiki, pywb, **window)).manifest
    replay = build(tmp_path / "replay", settings_for(demo_site, **window)).manifest  # read from the log
    assert real["selection"] == replay["selection"] and real["selection"]["outside_window"] > 0
    assert real["selection"]["created_after"] == "2016-01-01T00:00:00Z"
    assert funnel(real) == funnel(replay)
    assert outputs(tmp_path / "real", pywb.url) == outputs(tmp_path / "replay", demo_site.url)
    for row in (tmp_path / "real" / "qa.jsonl").open():
        assert "2016-01-01" <= json.loads(row)["created"] < "2019-01-01"
    # Only the articles created in the window are read: on the real wiki the imported pages are not in
    # the creation log, so each was asked for its first revision before any content was read.
    read = pages_read(tmp_path / "real")
    assert read == pages_read(tmp_path / "replay") and len(read) == real["funnel"]["articles"]["seen"]
    assert real["funnel"]["articles"]["seen"] + real["selection"]["outside_window"] == 52


# --------------------------------------------------------------------------- the category root


def test_the_replay_site_lists_uncategorized_categories_and_their_members_as_mediawiki_does(
    real_wiki, demo_site
):
    params = {"action": "query", "generator": "querypage", "gqppage": "Uncategorizedcategories",
              "gqplimit": "5", "prop": "categoryinfo", "format": "json", "formatversion": "2",
              "continue": ""}  # fmt: skip

    def answers(api_url: str) -> list[dict]:
        pages, query = [], dict(params)
        while True:
            data = httpx.get(api_url, params=query, timeout=10).json()
            pages += [{k: v for k, v in p.items() if k != "pageid"} for p in data["query"]["pages"]]
            if "continue" not in data:
                return pages
            query.update(data["continue"])

    real = answers(real_wiki.api_url)
    assert len(real) == 19 and answers(demo_site.mediawiki_url) == real  # five a request, continued
    one = {"action": "query", "titles": "Category:Knitting|Category:Nope", "prop": "categoryinfo",
           "format": "json", "formatversion": "2"}  # fmt: skip
    replay = httpx.get(demo_site.mediawiki_url, params=one, timeout=10).json()["query"]["pages"]
    actual = httpx.get(real_wiki.api_url, params=one, timeout=10).json()["query"]["pages"]
    strip = [{k: v for k, v in p.items() if k != "pageid"} for p in replay]
    assert strip == [{k: v for k, v in p.items() if k != "pageid"} for p in actual]


def test_a_wiki_with_a_category_root_gives_the_same_top_level_categories(
    demo_corpus, demo_build, demo_site, tmp_path
):
    """The demo corpus with its 19 top-level categories under "Contents" and an article also in a
    category of pages in no category: real MediaWiki and the replay site find the root, and every
    question keeps its top-level category."""
    from tests.collect.real_servers import MediaWikiServer, mediawiki_missing

    require(MEDIAWIKI, mediawiki_missing())
    corpus = tmp_path / "corpus"
    shutil.copytree(demo_corpus, corpus)
    site_json = json.loads((corpus / "site.json").read_text(encoding="utf-8"))
    parents = site_json["category_parents"]
    for top in site_json["top_categories"]:
        parents[top] = ["Contents"]
    parents.update({"Contents": [], "Articles to review": []})
    (corpus / "site.json").write_text(json.dumps(site_json), encoding="utf-8")
    article = json.loads((corpus / "articles" / "150101.json").read_text(encoding="utf-8"))
    article["categories"].append("Articles to review")
    (corpus / "articles" / "150101.json").write_text(json.dumps(article), encoding="utf-8")
    demo_tops = {
        json.loads(r)["article_id"]: json.loads(r)["category"] for r in (demo_build / "qa.jsonl").open()
    }
    with MediaWikiServer(corpus, tmp_path / "wiki") as wiki, ReplaySite(corpus) as replay:
        for name, api_url in (("mediawiki", wiki.api_url), ("replay", replay.mediawiki_url)):
            settings = build_settings(
                api_url=api_url,
                wayback_url=demo_site.wayback_url,
                http=fast_settings(concurrency=4, timeout_s=20.0),
            )
            m = build(tmp_path / name, settings).manifest
            root = m["sources"]["mediawiki"]["category_root"]
            assert root["root"] == "Contents" and root["found_by"] == "Special:UncategorizedCategories", name
            assert "19 subcategories against 0" in root["how"], root
            qa = {json.loads(r)["article_id"]: json.loads(r) for r in (tmp_path / name / "qa.jsonl").open()}
            assert {i: r["category"] for i, r in qa.items()} == demo_tops, name
            assert "Articles to review" in qa[150101]["categories"]


# --------------------------------------------------------------------------- nothing left running


def test_the_php_server_and_its_workers_stop_together(demo_corpus, tmp_path, monkeypatch):
    """Issue 26, 11: stopping PHP's built-in server left its 4 workers serving (8 after a suite run)."""
    import psutil

    from tests.collect.real_servers import MediaWikiServer, mediawiki_missing

    require(MEDIAWIKI, mediawiki_missing())
    monkeypatch.setattr(MediaWikiServer, "install", lambda self: None)  # the server alone: no wiki needed
    (tmp_path / "wiki").mkdir()
    server = MediaWikiServer(demo_corpus, tmp_path / "wiki").start()
    try:
        workers = psutil.Process(server.process.pid).children()
        assert len(workers) == 4, workers  # PHP_CLI_SERVER_WORKERS
    finally:
        server.stop()
    alive = [w.pid for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    assert alive == [], "the PHP server's workers outlived it"


def test_the_wiki_moves_to_another_port_when_its_own_was_taken(demo_corpus, tmp_path, monkeypatch):
    """The port is chosen before the install (it is the wiki's ``$wgServer``); a parallel test's server may
    take it before PHP binds it: PHP then serves on a new port, and the wiki's address moves with it."""
    import socket

    from tests.collect.real_servers import MediaWikiServer, mediawiki_missing

    require(MEDIAWIKI, mediawiki_missing())
    monkeypatch.setattr(MediaWikiServer, "install", lambda self: None)  # the server and its settings alone
    (tmp_path / "wiki").mkdir()
    server = MediaWikiServer(demo_corpus, tmp_path / "wiki")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        server.port = taken
        server.settings_file.write_text(f'<?php\n$wgServer = "http://127.0.0.1:{taken}";\n', encoding="utf-8")
        server.start()
        try:
            assert server.port != taken
            assert f'$wgServer = "http://127.0.0.1:{server.port}";' in server.settings_file.read_text()
            assert httpx.get(server.api_url, timeout=20).status_code  # PHP answers on the new port
        finally:
            server.stop()
