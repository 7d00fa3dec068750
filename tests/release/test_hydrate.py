"""``hydrate`` against pywb 2.10 on loopback, holding the three real release instances' captures.

pywb holds a capture at the exact URL and timestamp of each of the 16 documents the three real instances
name (pages whose article is the released passages, inside site chrome), except two, which test the
archive's ways: tipnut.com's named capture is gone and one two days later is there (the archive serves
the closest), and recordonline.com's named capture is a redirect to the article's new address, captured
seconds later. Two synthetic questions add the other cases: a capture shifted by three hours, one four years
away, a URL archived only as a 404, two URLs never archived and a value that names no capture at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.collect.scripted_server import fast_settings
from tests.components import PYWB, require
from wikihowqa.collect.archive_settings import ArchiveSettings
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.dataset.readers import read_documents
from wikihowqa.demo.paths import real_examples_path
from wikihowqa.release.compare import compare
from wikihowqa.release.hydrate import HydrateSettings, hydrate, state_path
from wikihowqa.release.importer import import_release
from wikihowqa.release.warc_files import WARC_FILE
from wikihowqa.replay.release_pages import CaptureSpec, archive_corpus, page_html, release_captures

#: The three real instances (the project site's examples), as the package embeds them.
REAL = real_examples_path()
ROOT = Path(__file__).resolve().parents[2]
SHIFTED = "https://tipnut.com/dry-figs/"  # named 20200909104738, held 2 days later
MOVED = "https://www.recordonline.com/article/20060525/comm0505/60810071"  # named 20210418030554
MOVED_TO = "https://www.recordonline.com/story/news/2006/05/25/my-parents-say-no-to-coed-sleepovers/5251/"
SYNTHETIC = [
    {
        "article_id": 9000001,
        "question": "How to Check That a Hydration Counts Every Case (synthetic)",
        "answer": "Name captures the archive holds in every way it can hold them.",
        "related_document_urls_wayback_snapshots": [
            "http://web.archive.org/web/20190101000000/https://near.example/guide",
            "http://web.archive.org/web/20150101000000/https://far.example/guide",
            "http://web.archive.org/web/20190101000000/https://error.example/guide",
            "http://web.archive.org/web/20190101000000/https://never.example/guide",
        ],
        "split": "test",
    },
    {
        "article_id": 9000002,
        "question": "How to Be Left Without Documents (synthetic)",
        "answer": "Cite pages no archive holds.",
        "related_document_urls_wayback_snapshots": [
            "http://web.archive.org/web/20190101000000/https://never.example/other",
            "https://no-timestamp.example/page",
        ],
        "split": "test",
    },
]
NEAR_TEXT = ["Hydration keeps the text of a capture three hours away from the named one."] * 3
FAR_TEXT = ["Four years later the page says something else entirely, about another topic."] * 3
FILES = ("documents.jsonl", "hydration/status.jsonl", "hydration/questions.jsonl", "hydration/coverage.json")

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def _word_f1(released: str, hydrated: str) -> float:
    want, got = Counter(re.findall(r"\w+", released)), Counter(re.findall(r"\w+", hydrated))
    common = sum((want & got).values())
    if not common:
        return 0.0
    precision, recall = common / sum(got.values()), common / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def _real_documents() -> list[dict]:
    return [json.loads(line) for line in (REAL / "documents.jsonl").read_text(encoding="utf-8").splitlines()]


def archive_specs() -> list[CaptureSpec]:
    specs = []
    for spec in release_captures(_real_documents()):
        if spec.url == SHIFTED:
            spec = CaptureSpec(spec.url, "20200911104738", 200, spec.body)  # two days later
        elif spec.url == MOVED:
            specs.append(CaptureSpec(MOVED_TO, "20210418030600", 200, spec.body))
            spec = CaptureSpec(MOVED, spec.timestamp, 301, b"", location=MOVED_TO)
        specs.append(spec)
    return [
        *specs,
        CaptureSpec(
            "https://near.example/guide",
            "20190101030000",
            200,
            page_html("https://near.example/guide", "Near", NEAR_TEXT),
        ),
        CaptureSpec(
            "https://far.example/guide",
            "20190301000000",
            200,
            page_html("https://far.example/guide", "Far", FAR_TEXT),
        ),
        CaptureSpec(
            "https://error.example/guide", "20190101000000", 404, b"<html><body>Not Found</body></html>"
        ),
    ]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory):
    """pywb holding the release's captures (and the synthetic cases), one instance for the module."""
    from wikihowqa.replay.pywb import PywbServer, pywb_missing

    require(PYWB, pywb_missing())  # skipped here without pywb, failed in CI
    with PywbServer(
        None, tmp_path_factory.mktemp("pywb-release"), corpus=archive_corpus(archive_specs())
    ) as server:
        yield server


def settings_for(server, **overrides) -> HydrateSettings:
    values = {
        "archive": ArchiveSettings(cdx_url=server.cdx_url, playback_url=server.playback_url),
        "http": fast_settings(concurrency=4, timeout_s=20.0),
    }
    values.update(overrides)
    return HydrateSettings(**values)


def qa_only(folder: Path) -> Path:
    """The QA part alone (the real rows and the synthetic ones), imported as a user imports it."""
    qa = folder.parent / f"{folder.name}-qa.jsonl"
    rows = (REAL / "qa.jsonl").read_text(encoding="utf-8") + "".join(json.dumps(r) + "\n" for r in SYNTHETIC)
    qa.write_text(rows, encoding="utf-8")
    import_release([qa], [], folder)
    return folder


@pytest.fixture(scope="module")
def hydrated(archive, tmp_path_factory: pytest.TempPathFactory):
    """The QA part alone, imported, then hydrated from pywb with WARC files written."""
    root = tmp_path_factory.mktemp("hydrated")
    dataset = qa_only(root / "dataset")
    result = hydrate(dataset, settings_for(archive), warc_dir=root / "warc")
    return dataset, result, root / "warc"


def statuses(dataset: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in (dataset / "hydration" / "status.jsonl").read_text().splitlines()]
    return {r["archive_url"]: r for r in rows}


def outputs(folder: Path) -> dict[str, str]:
    return {name: (folder / name).read_text(encoding="utf-8") for name in FILES}


# --------------------------------------------------------------------------- what is recovered


def test_the_qa_part_alone_hydrates_to_every_capturable_document_close_to_the_released_text(hydrated):
    dataset, result, _ = hydrated
    documents = DatasetFolder(dataset).documents()
    released = read_documents(REAL / "documents.jsonl")
    assert {(d.article_id, d.archive_url) for d in released} <= {
        (d.article_id, d.archive_url) for d in documents
    }
    scores = compare(documents, released)
    assert scores.summary["not_recovered"] == 0 and scores.summary["recovered"] == 16
    # Each document's word F1 recounted here (bags of \w+ words, case kept), not read off compare's output.
    hydrated_text = {(d.article_id, d.original_url): d.parsed_text for d in documents}
    recount = {
        d.archive_url: _word_f1("\n\n".join(d.passages), hydrated_text[(d.article_id, d.original_url)])
        for d in released
    }
    assert {r["archive_url"]: r["f1"] for r in scores.documents} == pytest.approx(recount)
    assert scores.summary["mean_f1"] == pytest.approx(sum(recount.values()) / 16)
    assert min(recount.values()) >= 0.85 and sum(recount.values()) / 16 >= 0.95, recount
    # The release kept boilerplate a page shows around its article: the hydration lists it, not imitates it.
    lacking = {
        p
        for row in scores.documents
        if row.get("released_passages_missing")
        for p in row["released_passages_missing"]
    }
    assert any("cookies" in p for p in lacking) and any(
        p.startswith("Sign up to receive posts") for p in lacking
    )
    assert result.hydration.funnel["urls"]["kept"] == 17  # the 16 and the synthetic capture three hours off


def test_a_shifted_capture_is_recorded_with_its_distance_and_a_redirect_capture_is_followed_in_the_archive(
    hydrated,
):
    dataset, _, _ = hydrated
    rows = {r["url"]: r for r in statuses(dataset).values() if "url" in r}
    tipnut = rows[SHIFTED]
    assert (tipnut["status"], tipnut["served_timestamp"], tipnut["shift_s"]) == (
        "kept",
        "20200911104738",
        2 * 86400,
    )
    moved = rows[MOVED]
    assert moved["status"] == "kept" and moved["redirects"][0]["to"] == MOVED_TO and moved["shift_s"] == 6
    document = next(d for d in DatasetFolder(dataset).documents() if d.original_url == MOVED)
    assert document.archive_url.endswith(f"/20210418030554/{MOVED}")  # the release's name of it
    assert document.extra["capture"]["timestamp"] == "20210418030600"


def test_every_other_case_is_counted_under_its_own_reason(hydrated):
    dataset, result, _ = hydrated
    rows = statuses(dataset)
    by_url = {r.get("url", r["archive_url"]): r["status"] for r in rows.values()}
    assert by_url["https://near.example/guide"] == "kept"
    assert by_url["https://far.example/guide"] == "capture_too_far"
    assert by_url["https://error.example/guide"] == "no_200_capture"
    assert by_url["https://never.example/guide"] == by_url["https://never.example/other"] == "no_snapshot"
    assert by_url["https://no-timestamp.example/page"] == "not_a_snapshot_url"
    funnel = result.hydration.funnel
    assert funnel["captures"] == {"exact": 14, "shifted": 3, "refused": 1, "missing": 3}
    assert funnel["urls"] == {
        "named": 22, "unique": 22, "snapshot_urls": 21, "captured": 18, "verified": 18,
        "within_max_shift": 17, "non_empty": 17, "html": 17, "kept": 17,
    }  # fmt: skip
    assert {k: v for k, v in funnel["rejections"].items() if v} == {
        "not_a_snapshot_url": 1, "no_snapshot": 2, "no_200_capture": 1, "capture_too_far": 1,
    }  # fmt: skip


def test_the_coverage_report_counts_questions_years_and_sites(hydrated):
    dataset, _, _ = hydrated
    report = json.loads((dataset / "hydration" / "coverage.json").read_text())
    assert report["questions"]["with_none"] == [9000002]
    questions = {
        json.loads(line)["article_id"]: json.loads(line)
        for line in (dataset / "hydration" / "questions.jsonl").read_text().splitlines()
    }
    assert (questions[704295]["recovered"], questions[930014]["recovered"]) == (5, 6)
    assert questions[9000001]["lost"] == {"capture_too_far": 1, "no_200_capture": 1, "no_snapshot": 1}
    years = {r["year"]: (r["named"], r["recovered"]) for r in report["by_year"]}
    assert years["2016"] == (1, 1) and years["2015"] == (1, 0)
    sites = {r["site"]: (r["named"], r["recovered"]) for r in report["by_site"]}
    assert sites["familyhandyman.com"] == (2, 2) and sites["never.example"] == (2, 0)
    assert (dataset / "hydration" / "coverage.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    manifest = json.loads((dataset / "manifest.json").read_text())
    assert manifest["kind"] == "import" and manifest["hydrate"]["funnel"]["urls"]["kept"] == 17


def test_a_tighter_max_shift_refuses_shifted_captures_without_asking_the_archive_again(
    hydrated, archive, tmp_path
):
    dataset, _, _ = hydrated
    copy = tmp_path / "copy"
    shutil.copytree(dataset, copy)
    again = hydrate(copy, settings_for(archive, max_shift_s=60.0))
    assert sum(lane.get("requests", 0) for lane in again.manifest["hydrate"]["run"]["http"].values()) == 0
    assert again.hydration.funnel["captures"] == {"exact": 14, "shifted": 1, "refused": 3, "missing": 3}


def test_the_memento_options_hydrate_the_same_documents(hydrated, archive, tmp_path):
    dataset, _, _ = hydrated
    memento = ArchiveSettings(memento_timegate=archive.timegate_url, memento_timemap=archive.timemap_url)
    assert memento.archive_lookup == "memento"
    again = qa_only(tmp_path / "memento")
    hydrate(again, settings_for(archive, archive=memento))
    assert (again / "documents.jsonl").read_text() == (dataset / "documents.jsonl").read_text()
    # The same verdict for every URL; only the words of a detail differ ("no memento of status 200").
    assert {k: r["status"] for k, r in statuses(again).items()} == {
        k: r["status"] for k, r in statuses(dataset).items()
    }


# --------------------------------------------------------------------------- WARC out and in


def test_warc_files_rebuild_the_same_output_without_the_network(hydrated, tmp_path):
    dataset, _, warc = hydrated
    from warcio.archiveiterator import ArchiveIterator

    with (warc / WARC_FILE).open("rb") as fh:
        records = [
            (
                r.rec_type,
                r.rec_headers.get_header("WARC-Target-URI"),
                r.http_headers and r.http_headers.statusline,
            )
            for r in ArchiveIterator(fh)
        ]
    responses = {(uri, status.split()[0]) for kind, uri, status in records if kind == "response"}
    served = {uri for uri, status in responses if status == "200"}
    assert len(served) == 18 and SHIFTED in served and MOVED_TO in served  # every capture served
    # … and the captures met on the way: the redirect capture followed, the 404 the archive holds.
    assert responses - {(uri, "200") for uri in served} == {
        (MOVED, "301"),
        ("https://error.example/guide", "404"),
    }
    assert sum(kind == "metadata" for kind, _, _ in records) == 21  # every capture named
    rebuilt = qa_only(tmp_path / "rebuilt")
    offline = HydrateSettings(archive=ArchiveSettings(playback_url="http://127.0.0.1:9/nothing/"))
    hydrate(rebuilt, offline, from_warc=warc)
    assert outputs(rebuilt) == outputs(dataset)


# --------------------------------------------------------------------------- only the archive


def test_no_request_reaches_any_host_but_the_configured_archive(archive, tmp_path, monkeypatch):
    """The pages link to social sites and a redirect capture points at the live web: none is asked."""
    from asyncio.selector_events import BaseSelectorEventLoop

    import aiohttp

    requested: list[str] = []
    connected: list[tuple[str, int]] = []
    request, sock_connect = aiohttp.ClientSession._request, BaseSelectorEventLoop.sock_connect

    async def counting_request(self, method, url, *args, **kwargs):
        requested.append(str(url))
        return await request(self, method, url, *args, **kwargs)

    async def counting_connect(self, sock, address):
        connected.append(tuple(address[:2]))
        return await sock_connect(self, sock, address)

    monkeypatch.setattr(aiohttp.ClientSession, "_request", counting_request)
    monkeypatch.setattr(BaseSelectorEventLoop, "sock_connect", counting_connect)
    result = hydrate(qa_only(tmp_path / "ds"), settings_for(archive))
    assert result.hydration.funnel["urls"]["kept"] == 17
    assert len(requested) >= 21 and {u.split("/")[2] for u in requested} == {f"127.0.0.1:{archive.port}"}
    assert connected and set(connected) == {("127.0.0.1", archive.port)}


# --------------------------------------------------------------------------- killed and resumed


@pytest.mark.slow
def test_a_hydration_killed_with_sigkill_resumes_to_the_same_output(hydrated, archive, tmp_path):
    dataset, _, _ = hydrated
    target = qa_only(tmp_path / "ds")
    command = [
        sys.executable, "-m", "wikihowqa", "hydrate", str(target), "--cdx-url", archive.cdx_url,
        "--playback-url", archive.playback_url, "--cdx-rate", "0", "--retries", "0", "--contact", "tests",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    paced = subprocess.Popen(
        [*command, "--playback-rate", "4"], env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    state, done, deadline = state_path(target), 0, time.monotonic() + 60
    try:
        while done < 5 and time.monotonic() < deadline and paced.poll() is None:
            time.sleep(0.2)
            if state.exists():
                with (
                    sqlite3.connect(f"file:{state}?mode=ro", uri=True) as db,
                    contextlib.suppress(
                        sqlite3.OperationalError  # the file is there, its tables not yet
                    ),
                ):
                    done = db.execute("SELECT COUNT(*) FROM results WHERE stage = 'reference'").fetchone()[0]
    finally:
        os.killpg(paced.pid, signal.SIGKILL)
        paced.wait(timeout=10)
    assert 5 <= done < 21, done  # killed in the middle
    assert not (target / "hydration" / "status.jsonl").exists()
    resumed = subprocess.run(
        [*command, "--playback-rate", "0"], env=env, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert outputs(target) == outputs(dataset)


# --------------------------------------------------------------------------- names and settings


def test_a_release_url_names_its_capture_and_other_values_name_none():
    from wikihowqa.release.snapshot_urls import named_capture

    named = named_capture(
        "http://web.archive.org/web/20160506033836/http://gardeningcentral.org:80/dry_figs/"
    )
    assert (named.timestamp, named.url) == ("20160506033836", "http://gardeningcentral.org:80/dry_figs/")
    assert named_capture("https://web.archive.org/web/2016id_/https://a.example/").partial
    assert named_capture("https://a.example/page") is None


def test_max_shift_reads_durations_and_refuses_anything_else():
    from wikihowqa.core.errors import SettingsError
    from wikihowqa.release.hydrate import parse_shift

    assert [parse_shift(v) for v in ("0", "90", "12h", "90d", "1y")] == [0, 90, 43200, 7776000, 31536000]
    with pytest.raises(SettingsError, match="max-shift must be a duration"):
        parse_shift("-1d")


def test_hydrate_asks_for_the_named_capture_first_unless_told_otherwise():
    assert HydrateSettings().archive.archive_lookup == "playback"
    assert HydrateSettings(ArchiveSettings(lookup="cdx")).archive.archive_lookup == "cdx"
    timegate = ArchiveSettings(memento_timegate="http://127.0.0.1:9/web/")
    assert HydrateSettings(timegate).archive.archive_lookup == "memento"


# --------------------------------------------------------------------------- spellings and partial times

SPELLED = [
    {
        "article_id": 9100001,
        "question": "How to Name One Capture in Four Ways (synthetic)",
        "answer": "Write the archive over https and the original in capitals.",
        "related_document_urls_wayback_snapshots": [
            "http://web.archive.org/web/20190101000000/https://a.example/guide",
            "https://web.archive.org/web/20190101000000/HTTPS://A.EXAMPLE/guide",
            "http://web.archive.org/web/2019/b.example/partial",
            "http://web.archive.org/web/20190101000000/https%3A%2F%2Fc.example%2Fencoded",
        ],
    },
    {
        "article_id": 9100002,
        "question": "How to Cite a Capture Another Question Cites (synthetic)",
        "answer": "Cite it once; it is this question's document too.",
        "related_document_urls_wayback_snapshots": [
            "https://web.archive.org/web/20190101000000id_/https://a.example/guide",
        ],
    },
]


def test_spellings_of_one_capture_are_one_document_and_a_partial_timestamp_is_measured_from_its_middle(
    tmp_path,
):
    from wikihowqa.replay import ReplaySite

    held = {"https://a.example/guide": "20190101000000", "http://b.example/partial": "20190702000000"}
    held["https://c.example/encoded"] = "20190101000000"
    specs = [
        CaptureSpec(url, moment, 200, page_html(url, url[8:9], [f"The page at {url} says it in full."] * 3))
        for url, moment in held.items()
    ]
    qa = tmp_path / "qa.jsonl"
    qa.write_text("".join(json.dumps({**r, "split": "test"}) + "\n" for r in SPELLED), encoding="utf-8")
    dataset = tmp_path / "ds"
    import_release([qa], [], dataset)
    with ReplaySite(corpus=archive_corpus(specs)) as site:
        settings = HydrateSettings(ArchiveSettings(wayback_url=site.wayback_url), http=fast_settings())
        result = hydrate(dataset, settings)
    documents = read_documents(dataset / "documents.jsonl")
    by_question = {q: [d.original_url for d in documents if d.article_id == q] for q in (9100001, 9100002)}
    assert by_question == {
        9100001: ["https://a.example/guide", "http://b.example/partial", "https://c.example/encoded"],
        9100002: ["https://a.example/guide"],
    }
    rows = statuses(dataset)
    assert {r["status"] for r in rows.values()} == {"kept"}
    second = rows["https://web.archive.org/web/20190101000000/HTTPS://A.EXAMPLE/guide"]
    assert second["same_capture_as"] == "http://web.archive.org/web/20190101000000/https://a.example/guide"
    partial = rows["http://web.archive.org/web/2019/b.example/partial"]
    # the middle of 2019 is 2 July, 11:59:59; the capture of 2 July 00:00:00 is 11 h 59 min 59 s from it
    assert (partial["partial_timestamp"], partial["timestamp"]) == ("2019", "20190702115959")
    assert partial["shift_s"] == 11 * 3600 + 59 * 60 + 59
    urls = result.hydration.funnel["urls"]
    assert (urls["named"], urls["unique"], urls["kept"]) == (4, 3, 3)  # a twice in question 1: once
    questions = [json.loads(x) for x in (dataset / "hydration" / "questions.jsonl").read_text().splitlines()]
    assert [(q["named"], q["recovered"]) for q in questions] == [(3, 3), (1, 1)]
