"""Archives that answer as pywb does, Memento, and safety: no request leaves the configured hosts."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from tests.collect.collect_corpus import (
    EMPTY,
    EXPECTED_FUNNEL,
    EXPECTED_REJECTIONS,
    GONE,
    NEVER,
    NEVER2,
    PDF,
    PNG,
    SHELL,
)
from tests.collect.scripted_server import fast_settings, settings_for
from tests.collect.test_build import normalised, rejections_by_url
from tests.components import PYWB, require
from wikihowqa.collect.build import BuildSettings, build
from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings
from wikihowqa.replay import EndpointFaults, Faults, ReplaySite
from wikihowqa.replay.archive_api import Archive
from wikihowqa.replay.corpus import load_corpus


def pywb_style(site: ReplaySite, **overrides) -> BuildSettings:
    return settings_for(site, cdx_url=site.cdx_url, playback_url=site.playback_url, **overrides)


def memento(site: ReplaySite, **overrides) -> BuildSettings:
    values = {
        "api_url": site.mediawiki_url,
        "memento_timegate": f"{site.url}/web/",
        "memento_timemap": f"{site.url}/web/timemap/link/{{url}}",
        "http": fast_settings(concurrency=4),
    }
    return BuildSettings(**{**values, **overrides})


@pytest.mark.parametrize("lookup", ["cdx", "playback"])
def test_an_archive_answering_as_pywb_gives_the_same_benchmark(
    lookup, corpus_dir, clean_build, site, tmp_path
):
    """pywb's CDX dialect, its fuzzy non-200 rows and its live redirect locations change nothing."""
    with ReplaySite(corpus_dir, archive_style="pywb") as pywb:
        result = build(tmp_path / "out", pywb_style(pywb, lookup=lookup))
        assert normalised(tmp_path / "out", pywb) == normalised(clean_build, site)
    assert result.manifest["funnel"] == EXPECTED_FUNNEL
    assert result.manifest["rejections"] == EXPECTED_REJECTIONS


def test_fuzzy_rows_of_another_status_are_no_capture_of_the_url(corpus_dir, tmp_path):
    with ReplaySite(corpus_dir, archive_style="pywb") as pywb:
        import httpx

        params = {"url": GONE, "output": "json", "filter": "statuscode:200", "limit": "1"}
        answer = httpx.get(pywb.cdx_url, params=params, timeout=10).text
        build(tmp_path / "out", pywb_style(pywb))
    assert '"is_fuzzy": "1"' in answer and '"status": "404"' in answer
    # Not taken for a capture: the lookup goes on to GONE's 301 capture, whose target is not archived.
    assert rejections_by_url(tmp_path / "out")[GONE]["reason"] == "redirect_unresolved"


@pytest.mark.parametrize("lookup", ["cdx", "playback", "memento"])
def test_each_lookup_chooses_the_captures_of_the_per_url_cdx_lookup(
    lookup, corpus_dir, clean_build, site, tmp_path
):
    settings = memento(site) if lookup == "memento" else settings_for(site, lookup=lookup)
    result = build(tmp_path / "out", settings)
    assert normalised(tmp_path / "out", site) == normalised(clean_build, site)
    assert result.manifest["funnel"] == EXPECTED_FUNNEL
    assert result.manifest["settings"]["lookup"] == lookup


def test_the_playback_lookup_asks_the_cdx_server_only_when_the_archive_cannot_tell(corpus_dir, tmp_path):
    with ReplaySite(corpus_dir) as fresh:
        build(tmp_path / "out", settings_for(fresh, lookup="playback"))
        stats = fresh.stats()
    # Only the URLs whose closest capture is no 200 of theirs need CDX: BREW (a 404 is nearer than its
    # 2019 capture) and GONE (404 and 301 only), and GONE's redirect target; never-archived ones do not.
    assert stats["cdx"]["requests"] <= 6


# --------------------------------------------------------------------------- safety


class LiveWeb:
    """A loopback stand-in for the live web: any request to it is a request the build must not make."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.hits: list[str] = []
        hits = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<html><body><p>TODAYS LIVE PAGE, not the archived one.</p></body></html>")

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def live():
    running = LiveWeb()
    yield running
    running.close()


def corpus_redirecting_to(corpus_dir: Path, target: str, tmp_path: Path) -> Path:
    """The test corpus with GONE's 301 capture pointing at ``target`` (a "live" page)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    cdx = corpus / "archive" / "cdx.jsonl"
    rows = [json.loads(line) for line in cdx.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row.get("location") == "https://gone.example/new":
            row["location"] = target
            row["headers"] = {**row["headers"], "Location": target}
    cdx.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return corpus


def _assert_followed_inside_the_archive(out: Path, target: str) -> None:
    gone = rejections_by_url(out)[GONE]
    assert gone["reason"] == "redirect_unresolved"  # the target was looked up in the archive: not there
    assert gone["detail"] == f"redirect captures lead to {target}: never archived"
    assert gone["redirects"] == [{"from": GONE, "timestamp": "20180101000000", "status": 301, "to": target}]


def test_a_redirect_capture_pointing_at_the_live_web_never_reaches_it(live, corpus_dir, tmp_path):
    target = f"{live.url}/new"
    corpus = corpus_redirecting_to(corpus_dir, target, tmp_path)
    for lookup in ("cdx", "playback"):
        with ReplaySite(corpus, archive_style="pywb") as pywb:
            out = tmp_path / lookup
            manifest = build(out, pywb_style(pywb, lookup=lookup)).manifest
        assert manifest["funnel"] == EXPECTED_FUNNEL
        _assert_followed_inside_the_archive(out, target)
    assert live.hits == [], "a request went to a host that is not the wiki's or the archive's"


def test_a_redirect_capture_in_real_pywb_never_reaches_the_live_web(live, corpus_dir, tmp_path):
    from wikihowqa.replay.pywb import PywbServer, pywb_missing

    require(PYWB, pywb_missing())
    target = f"{live.url}/new"
    corpus = corpus_redirecting_to(corpus_dir, target, tmp_path)
    with PywbServer(corpus, tmp_path / "pywb") as pywb, ReplaySite(corpus) as wiki:
        for lookup in ("cdx", "playback"):
            out = tmp_path / lookup
            settings = settings_for(wiki, cdx_url=pywb.cdx_url, playback_url=pywb.playback_url, lookup=lookup)
            manifest = build(out, settings).manifest
            assert manifest["funnel"] == EXPECTED_FUNNEL
            _assert_followed_inside_the_archive(out, target)
    assert live.hits == [], "a request went to a host that is not the wiki's or the archive's"


# --------------------------------------------------------------------------- 429s (issue 17, item 14)


def test_an_unpaced_build_against_a_server_throttling_every_fifth_cdx_request_finishes(demo_corpus, tmp_path):
    """With ``--cdx-rate 0`` and the default throttle settings (a 120 s host pause), a server answering
    every fifth CDX request with a 429 used to pause the build again and again; AIMD lowers the rate,
    ``Retry-After`` is honoured, and the build finishes with the demo's funnel."""
    expected = json.loads((demo_corpus / "expected.json").read_text(encoding="utf-8"))
    faults = Faults(cdx=EndpointFaults(throttle_every=5, retry_after_s=0))
    http = HttpSettings(concurrency=8, rates={MEDIAWIKI: None, CDX: None, PLAYBACK: None}, timeout_s=10.0)
    with ReplaySite(demo_corpus, faults=faults) as throttling:
        t0 = time.monotonic()
        manifest = build(tmp_path / "out", settings_for(throttling, http=http)).manifest
        took = time.monotonic() - t0
        throttled = throttling.stats()["cdx"]["injected"]["throttled"]
    assert throttled >= 20
    assert manifest["funnel"]["references"] == expected["references"]
    events = manifest["run"]["events"]
    assert any("rate lowered to" in e for e in events)
    assert not any("pausing the host" in e for e in events)
    assert took < 90  # one 120 s pause alone would exceed it


# --------------------------------------------------------------------------- every rejection its reason

CHAIN = [f"https://chain.example/{i}" for i in range(1, 5)]


def corpus_with_quirks(corpus_dir: Path, tmp_path: Path, notice: str) -> Path:
    """The test corpus with an archive that fails each way but the network's: a 200 row played back as a
    404 (PNG), a playback without Memento-Datetime (SHELL), a playback redirecting out of the archive
    (EMPTY, to ``notice``), a URL archived only as 404 (GONE, its 301 removed), redirect captures in a
    loop (NEVER2) and a chain longer than the collector follows (NEVER)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(corpus_dir, corpus)
    cdx = corpus / "archive" / "cdx.jsonl"
    rows = [json.loads(line) for line in cdx.read_text(encoding="utf-8").splitlines()]
    quirks = {PNG: {"status": 404}, SHELL: {"memento": False}, EMPTY: {"location": notice}}
    rows = [r for r in rows if not (r["url"] == GONE and r["statuscode"] == "301")]
    for row in rows:
        if row["url"] in quirks:
            row["playback"] = quirks[row["url"]]

    def redirect(url: str, to: str) -> dict:
        headers = {"Content-Type": "text/html", "Location": to}
        return {"url": url, "timestamp": "20170101000000", "statuscode": "301", "mimetype": "text/html",
                "location": to, "headers": headers}  # fmt: skip

    rows += [redirect(NEVER2, "https://never2.example/y"), redirect("https://never2.example/y", NEVER2)]
    rows += [redirect(a, b) for a, b in zip([NEVER, *CHAIN], CHAIN, strict=False)]
    cdx.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return corpus


QUIRK_REASONS = {
    PNG: "capture_not_200",
    SHELL: "capture_unverified",
    EMPTY: "redirect_outside_archive",
    GONE: "no_200_capture",
    NEVER2: "redirect_limit",
    NEVER: "redirect_limit",
    PDF: "non_html",
}


@pytest.mark.parametrize("style", ["ia", "pywb"])
@pytest.mark.parametrize("lookup", ["cdx", "playback", "memento"])
def test_each_way_a_capture_fails_has_its_own_reason_in_the_funnel(style, lookup, live, corpus_dir, tmp_path):
    corpus = corpus_with_quirks(corpus_dir, tmp_path, f"{live.url}/access-notice")
    with ReplaySite(corpus, archive_style=style) as archive:
        if lookup == "memento":
            settings = memento(archive)
        elif style == "pywb":
            settings = pywb_style(archive, lookup=lookup)
        else:
            settings = settings_for(archive, lookup=lookup)
        m = build(tmp_path / "out", settings).manifest
    reasons = dict(QUIRK_REASONS)
    if lookup == "memento":
        # A TimeMap has no index row saying 200: a capture played back as a 404 is all the method sees.
        reasons[PNG] = "no_200_capture"
    rejected = rejections_by_url(tmp_path / "out")
    assert {url: r["reason"] for url, r in rejected.items()} == reasons
    counts = {reason: list(reasons.values()).count(reason) for reason in set(reasons.values())}
    assert {k: v for k, v in m["rejections"].items() if k.startswith("reference_") and v} == {
        f"reference_{reason}": n for reason, n in counts.items()
    }
    not_found = counts.get("no_200_capture", 0) + counts["redirect_limit"]
    not_confirmed = len(reasons) - not_found - 1  # less the PDF, fetched and rejected by the parser
    refs = m["funnel"]["references"]
    assert refs["snapshot_found"] == refs["unique_urls"] - not_found
    assert refs["fetched"] == refs["snapshot_found"] - not_confirmed
    assert refs["kept"] == 3
    assert live.hits == [], "the notice outside the archive was fetched"
    assert "loop back" in rejected[NEVER2]["detail"] and len(rejected[NEVER2]["redirects"]) == 1
    assert rejected[NEVER]["detail"] == "more than 3 redirect captures in a row"
    assert [hop["to"] for hop in rejected[NEVER]["redirects"]] == CHAIN[:3]
    assert "archive_url" in rejected[SHELL] and rejected[SHELL]["failed_at"] == "playback"
    if lookup != "memento":
        assert rejected[GONE]["detail"] == "archived only with status 404"
        assert rejected[PNG]["detail"] == "the CDX row says 200, the playback HTTP 404"


def test_retry_failed_asks_again_for_captures_whose_playback_did_not_confirm_them(
    live, corpus_dir, clean_build, site, tmp_path
):
    corpus = corpus_with_quirks(corpus_dir, tmp_path, f"{live.url}/access-notice")
    with ReplaySite(corpus) as archive:
        out = tmp_path / "out"
        first = build(out, settings_for(archive)).manifest["rejections"]
        assert first["reference_capture_not_200"] == first["reference_capture_unverified"] == 1
        # The archive mends its playback (the same endpoints): a plain rerun keeps the verdicts, and
        # --retry-failed asks again for exactly those three captures.
        clean = load_corpus(corpus_dir)
        archive.app.archive = Archive(clean.captures, clean.snapshots)
        assert build(out, settings_for(archive)).manifest["rejections"] == first
        archive.reset_stats()
        healed = build(out, settings_for(archive, retry_failed=True)).manifest["rejections"]
        stats = archive.stats()
    assert healed["reference_capture_not_200"] == healed["reference_capture_unverified"] == 0
    assert healed["reference_redirect_outside_archive"] == 0
    assert healed["reference_empty_body"] == 1 and healed["reference_redirect_limit"] == 2  # not asked again
    assert stats["playback"]["requests"] == 3 and stats["cdx"]["requests"] == 0


# --------------------------------------------------------------------------- a TimeMap alone


def test_a_timemap_alone_finds_the_captures_of_the_per_url_cdx_lookup(clean_build, site, tmp_path):
    """Without a TimeGate the TimeMap decides (it used to be never asked: every page "not archived")."""
    settings = memento(site, memento_timegate=None)
    assert settings.archive_lookup == "memento" and settings.endpoints.timegate_url is None
    result = build(tmp_path / "out", settings)
    assert normalised(tmp_path / "out", site) == normalised(clean_build, site)
    assert result.manifest["funnel"] == EXPECTED_FUNNEL


def test_a_wrong_timemap_is_one_line_naming_the_timemap_and_its_option(site, tmp_path):
    from wikihowqa.collect.references import ArchiveError

    wrong = f"{site.url}/no-such-collection/timemap/link/{{url}}"
    with pytest.raises(ArchiveError) as info:
        build(tmp_path / "out", memento(site, memento_timegate=None, memento_timemap=wrong))
    line = str(info.value)
    assert line.startswith(f"{wrong}: none of the ") and "--memento-timemap" in line, line
    assert "None" not in line and "--cdx-url" not in line and "\n" not in line
    assert not (tmp_path / "out" / "qa.jsonl").exists()


def test_a_wrong_timegate_beside_a_timemap_names_both_and_their_options(site, tmp_path):
    from wikihowqa.collect.references import ArchiveError

    gate, timemap = f"{site.url}/nowhere/", f"{site.url}/nowhere/timemap/link/{{url}}"
    with pytest.raises(ArchiveError) as info:
        build(tmp_path / "out", memento(site, memento_timegate=gate, memento_timemap=timemap))
    line = str(info.value)
    assert gate in line and timemap in line, line
    assert "--memento-timegate" in line and "--memento-timemap" in line and "--cdx-url" not in line
