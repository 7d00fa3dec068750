"""``wikihowqa build``: options reach the stage, errors are one line, ``--dry-run`` estimates."""

from __future__ import annotations

import asyncio
import json
import math
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from tests.collect.collect_corpus import EXPECTED_FUNNEL, EXPECTED_REJECTIONS
from tests.collect.scripted_server import settings_for
from wikihowqa.cli import app
from wikihowqa.collect.build import BuildSettings
from wikihowqa.collect.estimate import estimate
from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings
from wikihowqa.demo import corpus_path

runner = CliRunner()


def _site_args(site) -> list[str]:
    return ["--api-url", site.mediawiki_url, "--wayback-url", site.wayback_url]


def test_build_writes_the_dataset_folder_and_prints_the_funnel(site, tmp_path):
    out = tmp_path / "ds"
    result = runner.invoke(
        app,
        [
            "build",
            str(out),
            *_site_args(site),
            "--mediawiki-rate",
            "0",
            "--cdx-rate",
            "0",
            "--playback-rate",
            "0",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "references: kept" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["funnel"] == EXPECTED_FUNNEL
    assert manifest["settings"]["http"]["rates"] == {CDX: None, MEDIAWIKI: None, PLAYBACK: None}


def test_options_become_settings(site, tmp_path):
    out = tmp_path / "ds"
    args = [
        "build", str(out), *_site_args(site), "--limit", "2", "--reference-time", "created",
        "--concurrency", "3", "--cdx-rate", "50", "--playback-rate", "60", "--mediawiki-rate", "70",
        "--contact", "me@example.org", "--http-timeout", "9", "--retries", "2", "--maxlag", "7",
    ]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    s = json.loads((out / "manifest.json").read_text())["settings"]
    assert (s["limit"], s["reference_time"], s["maxlag"]) == (2, "created", 7)
    h = s["http"]
    assert (h["concurrency"], h["timeout_s"], h["retries"]) == (3, 9.0, 2)
    assert h["rates"] == {CDX: 50.0, MEDIAWIKI: 70.0, PLAYBACK: 60.0}
    assert "(me@example.org)" in h["user_agent"]


def test_a_bad_option_is_one_line_naming_it(tmp_path, monkeypatch, capsys):
    from wikihowqa.cli import main

    monkeypatch.setattr(
        "sys.argv", ["wikihowqa", "build", str(tmp_path / "x"), "--reference-time", "someday"]
    )
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "reference time" in err and "someday" in err and "\n" not in err


def test_dry_run_estimates_without_building(site, tmp_path):
    out = tmp_path / "never"
    result = runner.invoke(app, ["build", str(out), *_site_args(site), "--dry-run", "--limit", "10000"])
    assert result.exit_code == 0, result.output
    # A limit above what the wiki has counts what the build would read: the wiki's 5 articles.
    assert "estimate for 5 articles" in result.output
    assert not out.exists()
    limited = runner.invoke(app, ["build", str(out), *_site_args(site), "--dry-run", "--limit", "2"])
    assert "estimate for 2 articles" in limited.output


@pytest.mark.parametrize(
    ("selection", "articles"),
    [
        (["--category", "Home and Garden"], 3),  # 1003, 1004, 1005 through subcategories
        (["--category", "Home and Garden", "--limit", "2"], 2),
        (["--title-filter", "^how to (brew|boil)"], 2),
    ],
)
def test_dry_run_counts_only_the_selected_articles(selection, articles, site, tmp_path):
    out = tmp_path / "never"
    result = runner.invoke(app, ["build", str(out), *_site_args(site), "--dry-run", *selection])
    assert result.exit_code == 0, result.output
    assert f"estimate for {articles} articles" in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    ("selection", "message"),
    [
        (["--title-filter", "zzzz-no-match"], "--title-filter 'zzzz-no-match': matches none of the 5"),
        (["--created-after", "2999-01-01"], "--created-after 2999-01-01T00:00:00Z: none of the 5 selected"),
        (["--created-before", "1990-01-01"], "--created-before 1990-01-01T00:00:00Z: none of the 5 selected"),
        (["--summary-namespace", "-1"], "summary namespace must be a namespace of pages (0 or more), got -1"),
    ],
)
def test_a_dry_run_whose_selection_leaves_nothing_is_a_one_line_error_naming_the_setting(
    selection, message, site, tmp_path, monkeypatch, capsys
):
    """Issue 26, 1: a dry run used to estimate 0 articles, and the build to write an empty dataset."""
    from wikihowqa.cli import main

    for dry in (["--dry-run"], []):
        out = tmp_path / f"never{len(dry)}"
        monkeypatch.setattr("sys.argv", ["wikihowqa", "build", str(out), *_site_args(site), *selection, *dry])
        with pytest.raises(SystemExit) as info:
            main()
        assert info.value.code == 2
        line = capsys.readouterr().err.strip().splitlines()[-1]
        assert line.startswith(f"error: {message}"), line
        assert not (out / "qa.jsonl").exists()


def test_a_dry_run_for_a_category_the_site_does_not_have_is_a_one_line_error(
    site, tmp_path, monkeypatch, capsys
):
    from wikihowqa.cli import main

    argv = ["wikihowqa", "build", str(tmp_path / "x"), *_site_args(site), "--dry-run", "--category", "Pets"]
    monkeypatch.setattr("sys.argv", argv)
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 2
    note, err = capsys.readouterr().err.strip().splitlines()  # the note says the articles are listed
    assert note.startswith("note: listing")
    assert err.startswith("error: --category 'Pets'") and "no such category" in err


def test_a_dry_run_with_a_creation_window_counts_the_articles_created_in_it(site, tmp_path):
    """The build reads only the articles created in the window (dated by the creation log first): so
    does the dry run's count, and its wiki requests are what that costs."""
    from wikihowqa.collect.estimate import count_articles

    window = ["--created-after", "2017-01-01"]
    result = runner.invoke(app, ["build", str(tmp_path / "x"), *_site_args(site), "--dry-run", *window])
    assert result.exit_code == 0, result.output
    assert "estimate for 1 of 5 articles" in result.output
    assert "1 of the 5 listed articles created in it" in result.output
    counted = asyncio.run(count_articles(settings_for(site, created_after="2017-01-01")))
    assert counted.window is not None and counted.window.log_requests == 1  # the whole log: one request
    assert (counted.window.logged_inside, counted.window.unlogged) == (1, 0)
    # At scale: a tenth of 50,000 listed articles in the window, 20 of them not in the log.
    from wikihowqa.collect.estimate import WindowCount

    settings = settings_for(site, created_after="2017-01-01")
    sliced = estimate(50_000, settings, window=WindowCount(50_000, 4_980, 20, log_requests=100))
    whole = estimate(50_000, settings_for(site))
    assert sliced.articles == 50_000 and sliced.window.read == 5_000
    assert sliced.requests[CDX] == estimate(5_000, settings_for(site)).requests[CDX] < whole.requests[CDX]
    pages_read = 2 * math.ceil(5_000 / 50)  # articles and their Summary: pages, 50 a request
    kept = math.ceil(5_000 * 126_711 * 0.20 / 236_000)  # with a summary and references (the paper's)
    assert sliced.requests[MEDIAWIKI] == 1 + 100 + (100 + 20) + pages_read + 3 * math.ceil(kept / 50)


def test_a_dry_run_that_lists_articles_counts_the_listing_requests_it_made(site):
    from wikihowqa.collect.estimate import count_articles

    # Home and Garden → Gardening → Herbs: one categorymembers request per category.
    counted = asyncio.run(count_articles(settings_for(site, category="Home and Garden")))
    assert (counted.articles, counted.listing_requests) == (3, 3)
    settings = settings_for(site)
    listed = estimate(3, settings, listing_requests=counted.listing_requests)
    assert listed.requests[MEDIAWIKI] - estimate(3, settings).requests[MEDIAWIKI] == 3 - 1


def test_a_failed_dry_run_names_the_attempts_it_made_and_promises_no_saved_work(
    corpus_dir, tmp_path, monkeypatch, capsys
):
    from wikihowqa.cli import main
    from wikihowqa.replay import EndpointFaults, Faults, ReplaySite

    with ReplaySite(corpus_dir, faults=Faults(mediawiki=EndpointFaults(error_p=1.0))) as broken:
        argv = ["wikihowqa", "build", str(tmp_path / "x"), *_site_args(broken), "--dry-run"]
        monkeypatch.setattr("sys.argv", [*argv, "--retries", "1", "--mediawiki-rate", "0"])
        with pytest.raises(SystemExit) as info:
            main()
        requests = broken.stats()["mediawiki"]["requests"]
    assert info.value.code == 2
    note, err = capsys.readouterr().err.strip().splitlines()  # the note: the articles are listed
    assert note.startswith("note: listing") and err.startswith("error:")
    assert "HTTP 503 after 2 attempts" in err and requests == 2
    assert "saved" not in err and "run the same command again" not in err


def test_the_estimate_divides_requests_by_the_configured_rates():
    settings = BuildSettings(http=HttpSettings(rates={MEDIAWIKI: 2.0, CDX: 0.4, PLAYBACK: 8.0}))
    est = estimate(236_000, settings)
    for lane, rate in ((MEDIAWIKI, 2.0), (CDX, 0.4), (PLAYBACK, 8.0)):
        assert est.seconds[lane] == pytest.approx(est.requests[lane] / rate)
    assert est.total_s == pytest.approx(est.seconds[MEDIAWIKI] + max(est.seconds[CDX], est.seconds[PLAYBACK]))
    # ~25k kept articles × 8 citations: the CDX lookups at 0.4/s dominate, taking days.
    assert est.requests[CDX] > 150_000 and est.total_s > 4 * 86_400


def test_fresh_forgets_the_saved_state(site, tmp_path):
    out = tmp_path / "ds"
    args = [
        "build",
        str(out),
        *_site_args(site),
        "--mediawiki-rate",
        "0",
        "--cdx-rate",
        "0",
        "--playback-rate",
        "0",
    ]
    assert runner.invoke(app, args).exit_code == 0
    site.reset_stats()
    assert runner.invoke(app, [*args, "--fresh"]).exit_code == 0
    first = site.stats()["cdx"]["requests"]
    assert first >= EXPECTED_FUNNEL["references"]["unique_urls"]  # every URL asked for again
    site.reset_stats()
    assert runner.invoke(app, args).exit_code == 0
    assert site.stats()["cdx"]["requests"] == 0  # and kept: a plain rerun asks nothing


def test_the_demo_step_builds_the_dataset_and_checks_the_funnel(corpus_dir, tmp_path):
    from wikihowqa.demo.run import DemoContext, build_dataset

    expected = {
        "articles": EXPECTED_FUNNEL["articles"],
        "references": EXPECTED_FUNNEL["references"],
        "rejections": EXPECTED_REJECTIONS,
    }
    (corpus_dir / "expected.json").write_text(json.dumps(expected))
    try:
        ctx = DemoContext(out=tmp_path, settings={"corpus": str(corpus_dir)})
        build_dataset(ctx)
    finally:
        (corpus_dir / "expected.json").unlink()
    assert (tmp_path / "dataset" / "qa.jsonl").is_file()
    assert ctx.produced and "2 questions, 4 documents" in ctx.produced[0][2]


def test_the_demo_step_fails_loudly_when_the_funnel_disagrees(corpus_dir, tmp_path):
    from wikihowqa.demo.run import FunnelMismatch, build_dataset

    wrong = {"articles": {}, "references": {}, "rejections": {}}
    (corpus_dir / "expected.json").write_text(json.dumps(wrong))
    try:
        with pytest.raises(FunnelMismatch):
            build_dataset(SimpleNamespace(out=tmp_path, settings={"corpus": str(corpus_dir)}, record=None))
    finally:
        (corpus_dir / "expected.json").unlink()


@pytest.mark.skipif(
    not (corpus_path() / "expected.json").is_file(), reason="the demo corpus is not rendered on this branch"
)
def test_on_the_demo_corpus_the_funnel_and_the_chosen_snapshots_are_the_expected_ones(tmp_path):
    from wikihowqa.collect.build import build
    from wikihowqa.replay import ReplaySite

    corpus = corpus_path()
    expected = json.loads((corpus / "expected.json").read_text())
    chosen: dict[str, dict[str, str]] = {}
    for time in ("modified", "created"):
        with ReplaySite(corpus) as site:
            result = build(tmp_path / time, settings_for(site, reference_time=time))
        if time == "modified":
            assert result.manifest["funnel"] == {k: expected[k] for k in ("articles", "references")}
            assert result.manifest["rejections"] == expected["rejections"]
        for doc in result.folder.documents():
            chosen.setdefault(doc.original_url, {})[time] = doc.archive_url.split("/web/")[1].split("/")[0]
        for line in (tmp_path / time / "rejections.jsonl").read_text().splitlines():
            row = json.loads(line)
            if row["kind"] == "reference" and "archive_url" in row:
                chosen.setdefault(row["url"], {})[time] = row["archive_url"].split("/web/")[1].split("/")[0]
    assert chosen == expected["closest_snapshot"]
