"""Archives that answer as pywb does, Memento, and safety: no request leaves the configured hosts."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from tests.collect.collect_corpus import EXPECTED_FUNNEL, EXPECTED_REJECTIONS, GONE
from tests.collect.scripted_server import fast_settings, settings_for
from tests.collect.test_build import normalised, rejections_by_url
from wikihowqa.collect.build import BuildSettings, build
from wikihowqa.collect.http import CDX, MEDIAWIKI, PLAYBACK, HttpSettings
from wikihowqa.replay import EndpointFaults, Faults, ReplaySite


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


def test_fuzzy_rows_of_another_status_are_no_snapshot(corpus_dir, tmp_path):
    with ReplaySite(corpus_dir, archive_style="pywb") as pywb:
        import httpx

        params = {"url": GONE, "output": "json", "filter": "statuscode:200", "limit": "1"}
        answer = httpx.get(pywb.cdx_url, params=params, timeout=10).text
        build(tmp_path / "out", pywb_style(pywb))
    assert '"is_fuzzy": "1"' in answer and '"status": "404"' in answer
    assert rejections_by_url(tmp_path / "out")[GONE]["reason"] == "no_snapshot"


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
    assert gone["reason"] == "no_snapshot"  # the target was looked up in the archive: not there
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
    from tests.collect.real_servers import PywbServer, pywb_missing

    if pywb_missing():
        pytest.skip(pywb_missing())
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
