"""The stage over many snapshots: parallel, in order, time-limited, surviving a crashed worker; re-parsing a
dataset folder from a folder of raw files, resumably."""

from __future__ import annotations

import json
import os
import time

from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.folder import DatasetFolder, write_dataset_folder
from wikihowqa.dataset.readers import read_documents
from wikihowqa.parse import ParseSettings
from wikihowqa.parse import stage as stage_module
from wikihowqa.parse.stage import FolderSnapshots, RawSnapshot, parse_one, parse_snapshots, reparse_folder

ARTICLE = (
    "<html><head><title>Pressing Flowers</title></head><body><article><h1>Pressing Flowers</h1><p>{}</p>"
    "</article></body></html>"
)


class Ticks:
    """A progress sink that records what the stage reports."""

    def __init__(self) -> None:
        self.totals: dict[str, int | None] = {}
        self.done: dict[str, int] = {}

    def phase(self, name: str, total: int | None) -> None:
        self.totals[name] = total

    def advance(self, name: str, n: int = 1) -> None:
        self.done[name] = self.done.get(name, 0) + n


def snap(key: str, text: str) -> RawSnapshot:
    return RawSnapshot(
        key,
        f"https://flowers.example/{key}",
        f"https://web.archive.org/web/20200101000000id_/https://flowers.example/{key}",
        ARTICLE.format(text).encode(),
        {"Content-Type": "text/html; charset=utf-8"},
    )


def test_parallel_results_come_back_in_input_order():
    items = [
        snap(
            f"k{i}",
            f"Pressed flower number {i} keeps its colour when dried between heavy books for two weeks.",
        )
        for i in range(12)
    ] + [RawSnapshot("empty", "https://x.example/", "a", b"")]
    ticks = Ticks()
    results = list(parse_snapshots(items, workers=2, chunk_size=3, progress=ticks))
    assert [key for key, _ in results] == [item.key for item in items]
    assert all(f"number {i} " in page.text for i, (_, page) in enumerate(results[:12]))
    assert results[-1][1].rejection == "empty_body" and ticks.done == {"pages": len(items)}


def test_a_page_that_takes_too_long_is_rejected_as_timeout(monkeypatch):
    def slow(*args, **kwargs):
        time.sleep(5)

    monkeypatch.setattr(stage_module, "parse_html", slow)
    started = time.perf_counter()
    page = parse_one(snap("slow", "x"), ParseSettings(timeout_s=0.2))
    assert page.rejection == "timeout" and time.perf_counter() - started < 2


def test_a_parse_that_runs_past_the_limit_inside_the_parser_is_a_timeout_not_a_parse_error(monkeypatch):
    import wikihowqa.parse.html as extraction

    real = extraction.extract

    def slow_extract(root, *args, **kwargs):
        time.sleep(3)
        return real(root, *args, **kwargs)

    monkeypatch.setattr(extraction, "extract", slow_extract)
    started = time.perf_counter()
    page = parse_one(snap("slow", "Pressed petals."), ParseSettings(timeout_s=0.2))
    assert (page.rejection, page.detail) == ("timeout", "over 0.2 s") and time.perf_counter() - started < 2


def test_parse_html_itself_applies_no_time_limit(monkeypatch):
    """As documented: the limit is the stage's; a library call runs to the end and leaves signals alone."""
    import signal

    import wikihowqa.parse.html as extraction
    from wikihowqa.parse import parse_html

    real = extraction.extract

    def slow_extract(root, *args, **kwargs):
        time.sleep(0.3)
        return real(root, *args, **kwargs)

    monkeypatch.setattr(extraction, "extract", slow_extract)
    before = signal.getsignal(signal.SIGALRM)
    item = snap("slow", "Pressed petals keep for years in a dry album.")
    page = parse_html(item.body, item.url, item.headers, ParseSettings(timeout_s=0.05))
    assert page.ok and "Pressed petals" in page.text and signal.getsignal(signal.SIGALRM) is before


def test_a_worker_crash_costs_only_the_page_that_caused_it(monkeypatch):
    real = stage_module.parse_html

    def crashy(body, url, headers=None, settings=None):
        if b"CRASH" in body:
            os._exit(1)  # like a segfault inside a C parser
        return real(body, url, headers, settings)

    monkeypatch.setattr(stage_module, "parse_html", crashy)  # forked workers inherit the patch
    items = [
        snap(f"k{i}", f"Flower {i} dries flat in a week under a stack of old telephone books.")
        for i in range(4)
    ]
    items.insert(2, snap("bad", "CRASH"))
    results = dict(parse_snapshots(items, workers=2, chunk_size=2))
    assert results["bad"].rejection == "parse_error" and "crashed" in results["bad"].detail
    assert all(results[f"k{i}"].ok for i in range(4))


def test_a_page_stuck_inside_c_code_is_stopped_at_the_limit(monkeypatch):
    """A timer signal's handler runs only between bytecodes: a loop inside C code (here ``sum`` over a
    range, ~20 s) runs to its end past it. The stage's worker is killed at the limit (pebble: SIGTERM, then
    SIGKILL 3 s later) and the next page gets a fresh one."""
    real = stage_module.parse_html

    def stuck(body, url, headers=None, settings=None):
        if b"STUCK" in body:
            sum(range(10**9))  # one C call: no signal handler runs until it returns
        return real(body, url, headers, settings)

    monkeypatch.setattr(stage_module, "parse_html", stuck)
    items = [snap("stuck", "STUCK"), snap("after", "Pressed petals keep for years in a dry album.")]
    started = time.perf_counter()
    results = dict(parse_snapshots(items, ParseSettings(timeout_s=0.5), workers=1))
    assert (results["stuck"].rejection, results["stuck"].detail) == ("timeout", "over 0.5 s")
    assert results["after"].ok and time.perf_counter() - started < 10


def test_with_one_worker_a_crash_still_costs_only_its_page(monkeypatch):
    """One worker is a process of its own too: a parser crash never takes the stage (and its finished
    pages) down with it."""
    real = stage_module.parse_html

    def crashy(body, url, headers=None, settings=None):
        if b"CRASH" in body:
            os._exit(1)
        return real(body, url, headers, settings)

    monkeypatch.setattr(stage_module, "parse_html", crashy)
    items = [snap("before", "Dry the petals flat."), snap("bad", "CRASH"), snap("after", "Then frame them.")]
    ticks = Ticks()
    results = list(parse_snapshots(items, workers=1, progress=ticks))
    assert [key for key, _ in results] == ["before", "bad", "after"] and ticks.done == {"pages": 3}
    pages = dict(results)
    assert pages["before"].ok and pages["after"].ok and pages["bad"].rejection == "parse_error"


def test_a_page_past_the_memory_cap_is_too_large_and_the_next_one_parses(monkeypatch):
    real = stage_module.parse_html

    def greedy(body, url, headers=None, settings=None):
        if b"GREEDY" in body:
            # 16 GiB, far past the worker's 512 MB address space: a smaller block could come from free
            # heap the forked worker inherited from a long-lived test process, needing no new addresses
            bytearray(16 * 1024**3)
        return real(body, url, headers, settings)

    monkeypatch.setattr(stage_module, "parse_html", greedy)
    items = [snap("greedy", "GREEDY"), snap("after", "Pressed petals keep for years in a dry album.")]
    results = dict(parse_snapshots(items, ParseSettings(max_memory_mb=512), workers=1))
    assert results["greedy"].rejection == "too_large" and "512 MB" in results["greedy"].detail
    assert results["after"].ok


def make_dataset(tmp_path, pages: dict[str, bytes]):
    raw = tmp_path / "raw"
    raw.mkdir()
    rows, docs = [], []
    for i, (name, body) in enumerate(pages.items()):
        url = f"https://site.example/{name}"
        archive = f"https://web.archive.org/web/2019010100000{i}/{url}"
        (raw / f"{name}.html").write_bytes(body)
        rows.append(
            {
                "file": f"{name}.html",
                "url": url,
                "archive_url": archive,
                "headers": {"Content-Type": "text/html"},
            }
        )
        docs.append(Document(1, url, archive, parsed_text="old text", passages=("old text",)))
    docs.append(
        Document(
            1,
            "https://site.example/gone",
            "https://web.archive.org/web/20190101000009/https://site.example/gone",
            parsed_text="kept as it was",
        )
    )
    (raw / "index.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    example = Example(
        1, "How to press flowers?", "Use books.", tuple(d.archive_url for d in docs), "train", 0
    )
    folder = write_dataset_folder(tmp_path / "ds", [example], docs, {"tool": "test"})
    return folder, raw


def test_reparse_folder_rewrites_documents_and_counts_rejections(tmp_path, fixture_bytes):
    folder, raw = make_dataset(
        tmp_path,
        {"kettle": fixture_bytes("blog_with_comments.html"), "shell": fixture_bytes("app_shell.html")},
    )
    ticks = Ticks()
    report = reparse_folder(folder.path, FolderSnapshots(raw), ParseSettings(), workers=1, progress=ticks)
    assert (report.parsed, report.unchanged, report.rejected, report.comments_removed) == (
        1,
        1,
        {"empty_text": 1},
        1,
    )
    # every page to do is counted, the gone page (no snapshot) as it is kept as it was
    assert ticks.totals == {"pages": 3} and ticks.done == {"pages": 3}
    docs = {d.original_url: d for d in read_documents(folder.documents_path)}
    kettle = docs["https://site.example/kettle"]
    assert "limescale" in kettle.parsed_text and "worked brilliantly" not in kettle.parsed_text
    assert kettle.title == "How to Descale a Kettle With Citric Acid" and kettle.parsed_md.count("## ") == 2
    assert kettle.passages and kettle.extra["parse"]["flags"] == ["comments_removed"]
    assert docs["https://site.example/gone"].parsed_text == "kept as it was"
    assert "https://site.example/shell" not in docs
    assert DatasetFolder(folder.path).manifest()["parse"]["report"]["rejected"] == {"empty_text": 1}
    assert not (folder.path / stage_module.PROGRESS_FILE).exists()


def test_reparse_resumes_from_the_progress_of_an_interrupted_run(tmp_path, fixture_bytes):
    folder, raw = make_dataset(tmp_path, {"kettle": fixture_bytes("blog_with_comments.html")})
    settings = ParseSettings()
    archive = json.loads((raw / "index.jsonl").read_text().splitlines()[0])["archive_url"]
    done = {
        "settings": stage_module._settings_key(settings),
        "archive_url": archive,
        "rejection": None,
        "text": "resumed text",
        "markdown": "resumed",
        "title": "R",
        "passages": ["resumed text"],
        "info": {"flags": []},
    }
    (folder.path / stage_module.PROGRESS_FILE).write_text(json.dumps(done) + "\n" + '{"cut sho')
    report = reparse_folder(folder.path, FolderSnapshots(raw), settings, workers=1)
    assert report.resumed == 1 and report.parsed == 1
    assert read_documents(folder.documents_path)[0].parsed_text == "resumed text"


def test_a_rerun_after_a_torn_line_keeps_every_row_it_resumes_and_parses(tmp_path):
    pages = {
        f"p{i}": ARTICLE.format(f"Page {i} says to press flowers for {i} weeks.").encode() for i in range(3)
    }
    folder, raw = make_dataset(tmp_path, pages)
    settings = ParseSettings()
    first = json.loads((raw / "index.jsonl").read_text().splitlines()[0])["archive_url"]
    done = {
        "settings": stage_module._settings_key(settings),
        "archive_url": first,
        "rejection": None,
        "text": "resumed text",
        "markdown": "resumed",
        "title": "R",
        "passages": ["resumed text"],
        "info": {"flags": []},
    }
    (folder.path / stage_module.PROGRESS_FILE).write_text(json.dumps(done) + "\n" + '{"cut sho')
    report = reparse_folder(folder.path, FolderSnapshots(raw), settings, workers=1)
    texts = [d.parsed_text for d in read_documents(folder.documents_path)]
    assert (report.resumed, report.parsed) == (1, 3)
    assert texts[0] == "resumed text" and "1 weeks" in texts[1] and "2 weeks" in texts[2]


class CountingSource(FolderSnapshots):
    """Snapshots handed out, against pages the stage has finished (its progress)."""

    def __init__(self, folder, ticks: Ticks) -> None:
        super().__init__(folder)
        self.ticks, self.handed, self.most_ahead = ticks, 0, 0

    def get(self, archive_url):
        self.handed += 1
        self.most_ahead = max(self.most_ahead, self.handed - self.ticks.done.get("pages", 0))
        return super().get(archive_url)


def test_reparse_reads_raw_snapshots_as_the_pool_takes_them_not_all_first(tmp_path):
    pages = {f"p{i}": ARTICLE.format(f"Page {i} on pressing flowers.").encode() for i in range(30)}
    folder, raw = make_dataset(tmp_path, pages)
    ticks = Ticks()
    source = CountingSource(raw, ticks)
    reparse_folder(folder.path, source, ParseSettings(), workers=1, progress=ticks)
    assert source.handed == 31  # 30 pages and the gone one
    assert source.most_ahead <= 6  # the pool's bounded queue (4 per worker) and the page being read


def test_paginated_documents_are_joined_from_the_raw_folder(tmp_path, fixture_bytes):
    base = "https://breadcraft.example/guides/sourdough-basics"
    raw = tmp_path / "raw"
    raw.mkdir()
    rows = []
    for n, url in enumerate([base, f"{base}?page=2", f"{base}?page=3"], 1):
        (raw / f"p{n}.html").write_bytes(fixture_bytes(f"paginated_p{n}.html"))
        rows.append({"file": f"p{n}.html", "url": url, "timestamp": f"2018010100000{n}", "statuscode": "200"})
    (raw / "cdx.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    doc = Document(5, base, f"https://web.archive.org/web/20180101000001/{base}", "old")
    folder = write_dataset_folder(
        tmp_path / "ds", [Example(5, "q", "a", (doc.archive_url,), "train", 0)], [doc], {}
    )
    report = reparse_folder(folder.path, FolderSnapshots(raw), ParseSettings(), workers=1)
    assert report.joined == 1
    text = read_documents(folder.documents_path)[0].parsed_text
    assert "wild yeast" in text and "Fold the dough" in text and "covered pot" in text
    report = reparse_folder(folder.path, FolderSnapshots(raw), ParseSettings(pagination="flag"), workers=1)
    assert report.flagged == 1 and "covered pot" not in read_documents(folder.documents_path)[0].parsed_text


def test_continuation_pages_come_from_the_capture_closest_to_the_first_page(tmp_path, fixture_bytes):
    base = "https://breadcraft.example/guides/sourdough-basics"
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "p1.html").write_bytes(fixture_bytes("paginated_p1.html"))
    (raw / "old-p2.html").write_bytes(
        fixture_bytes("paginated_p2.html").replace(b"Fold the dough", b"OLD fold")
    )
    (raw / "new-p2.html").write_bytes(fixture_bytes("paginated_p2.html"))
    rows = [
        {"file": "p1.html", "url": base, "timestamp": "20180601000000"},
        {"file": "old-p2.html", "url": f"{base}?page=2", "timestamp": "20120101000000"},
        {"file": "new-p2.html", "url": f"{base}?page=2", "timestamp": "20180602000000"},
    ]
    (raw / "cdx.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    source = FolderSnapshots(raw)
    assert b"OLD fold" in source.find(f"{base}?page=2", "20120301").body
    first = parse_one(source.get(f"https://web.archive.org/web/20180601000000/{base}"), ParseSettings())
    joined = stage_module.complete_pagination(
        first, source, ParseSettings(), f"https://web.archive.org/web/20180601000000/{base}"
    )
    assert "Fold the dough" in joined.text and "OLD fold" not in joined.text


def test_reparse_keeps_a_truncated_page_and_counts_it(tmp_path, fixture_bytes):
    whole = fixture_bytes("table_article.html")
    cut = whole[: whole.index(b"Checklist before you buy") + 10]
    folder, raw = make_dataset(tmp_path, {"whole": whole, "cut": cut})
    report = reparse_folder(folder.path, FolderSnapshots(raw), ParseSettings(), workers=1)
    assert (report.parsed, report.truncated) == (2, 1)
    docs = {d.original_url.rsplit("/", 1)[1]: d for d in read_documents(folder.documents_path)}
    assert "truncated" in docs["cut"].extra["parse"]["flags"] and docs["cut"].parsed_text
    assert "truncated" not in docs["whole"].extra["parse"]["flags"]
    assert DatasetFolder(folder.path).manifest()["parse"]["report"]["truncated"] == 1
