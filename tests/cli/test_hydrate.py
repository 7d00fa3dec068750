"""``wikihowqa hydrate`` as a user runs it: the release's QA part alone, a local archive, one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wikihowqa.release.importer import import_release
from wikihowqa.replay import ReplaySite
from wikihowqa.replay.release_pages import archive_corpus, release_captures

FAST = ("--cdx-rate", "0", "--playback-rate", "0", "--retries", "0", "--contact", "tests")


@pytest.fixture(scope="module")
def release_site(real_examples_dir: Path):
    documents = [
        json.loads(line) for line in (real_examples_dir / "documents.jsonl").read_text().splitlines()
    ]
    with ReplaySite(corpus=archive_corpus(release_captures(documents))) as site:
        yield site


def _qa_only(real_examples_dir: Path, folder: Path) -> Path:
    import_release([real_examples_dir / "qa.jsonl"], [], folder)
    return folder


def test_hydrate_writes_the_document_part_and_compare_reports_its_word_f1(
    cli, release_site, real_examples_dir, tmp_path
):
    dataset = _qa_only(real_examples_dir, tmp_path / "ds")
    released = real_examples_dir / "documents.jsonl"
    run = cli("hydrate", dataset, "--wayback-url", release_site.wayback_url, "--compare", released, *FAST)
    assert run.exit_code == 0, run.output
    flat = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", run.stdout).split())  # as read, whatever the terminal
    assert "urls: kept" in flat and "mean 0.99" in flat, run.stdout
    rows = (dataset / "documents.jsonl").read_text().splitlines()
    assert len(rows) == 16 and set(json.loads(rows[0])) >= {
        "article_id", "original_url", "archive_url", "parsed_text", "parsed_md", "title", "passages",
    }  # fmt: skip
    summary = json.loads((dataset / "hydration" / "compare.json").read_text())["summary"]
    assert summary["recovered"] == 16 and summary["mean_f1"] >= 0.95
    # a failed comparison leaves no report: the old one would read as this run's
    missing = tmp_path / "no-such-documents.jsonl"
    again = cli("hydrate", dataset, "--wayback-url", release_site.wayback_url, "--compare", missing, *FAST)
    assert again.exit_code == 2 and again.lines[-1] == (
        f"error: {missing}: no such file (--compare takes the released document part)"
    )
    assert not (dataset / "hydration" / "compare.json").exists()


def test_a_dataset_that_holds_released_documents_is_not_overwritten_without_asking(
    cli, release_site, real_examples_dir, tmp_path
):
    dataset = tmp_path / "ds"
    import_release([real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], dataset)
    before = (dataset / "documents.jsonl").read_bytes()
    run = cli("hydrate", dataset, "--wayback-url", release_site.wayback_url, *FAST)
    assert run.exit_code == 2 and run.lines[-1].startswith("error:") and "--out" in run.lines[-1]
    assert (dataset / "documents.jsonl").read_bytes() == before
    beside = cli(
        "hydrate", dataset, "--out", tmp_path / "hydrated", "--wayback-url", release_site.wayback_url, *FAST
    )
    assert beside.exit_code == 0, beside.output
    assert len((tmp_path / "hydrated" / "documents.jsonl").read_text().splitlines()) == 16
    assert (tmp_path / "hydrated" / "qa.jsonl").read_bytes() == (dataset / "qa.jsonl").read_bytes()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--max-shift", "soon"), "max-shift must be a duration"),
        (("--from-warc", "no-such-folder"), "no-such-folder: no such folder"),
        (("--lookup", "guess"), "lookup must be one of"),
        (("--playback-url", "ftp://archive"), "playback-url must be an http(s) URL"),
    ],
)
def test_bad_options_are_one_line_naming_them(cli, real_examples_dir, tmp_path, args, says):
    dataset = _qa_only(real_examples_dir, tmp_path / "ds")
    run = cli("hydrate", dataset, *args, *FAST, cwd=tmp_path)
    assert run.exit_code == 2 and len(run.lines) == 1 and says in run.lines[0], run.output


def test_an_archive_that_answers_like_a_wrong_setting_stops_hydrate_with_one_line(
    cli, real_examples_dir, tmp_path
):
    from tests.collect.real_servers import free_port

    dataset = _qa_only(real_examples_dir, tmp_path / "ds")
    nothing = f"http://127.0.0.1:{free_port()}"
    run = cli("hydrate", dataset, "--wayback-url", nothing, *FAST)
    assert run.exit_code == 2 and run.lines[-1].startswith("error:"), run.output
    assert "the first 3 lookups failed" in run.lines[-1] and "--wayback-url" in run.lines[-1]
    assert not (dataset / "hydration" / "status.jsonl").exists()


def test_a_damaged_warc_file_stops_the_rebuild_with_one_printable_line_and_exit_2(
    cli, release_site, real_examples_dir, tmp_path
):
    from wikihowqa.release.warc_files import WARC_FILE

    written = cli(
        "hydrate", _qa_only(real_examples_dir, tmp_path / "ds"), "--wayback-url", release_site.wayback_url,
        "--warc", tmp_path / "warc", *FAST,
    )  # fmt: skip
    assert written.exit_code == 0, written.output
    warc = tmp_path / "warc" / WARC_FILE
    data = bytearray(warc.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(255 - b for b in data[middle : middle + 64])  # one member corrupted
    warc.write_bytes(bytes(data))
    run = cli("hydrate", _qa_only(real_examples_dir, tmp_path / "again"), "--from-warc", tmp_path / "warc")
    assert run.exit_code == 2, run.output
    assert run.lines[-1].startswith(f"error: {warc}: damaged at byte ") and run.lines[-1].isprintable()
    assert "\x1f\x8b" not in run.output and "\ufffd" not in run.output  # no gzip bytes on the terminal
    assert not (tmp_path / "again" / "hydration" / "status.jsonl").exists()


def test_help_names_the_wait_cap_and_the_size_cap_with_their_units_and_defaults(cli):
    run = cli("hydrate", "--help", env={"COLUMNS": "200", "TERM": "dumb"})
    flat = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", run.stdout).replace("│", " ").split())
    assert "--max-retry-after SECONDS" in flat and "in seconds, that one Retry-After" in flat
    assert "(default 300: 5 minutes)" in flat and "recorded as deferred" in flat
    assert "--max-page-mb MB" in flat and "in MB (10^6 bytes) counted after decompression" in flat
    assert "(default 20," in flat and "recorded as too_large" in flat


def test_a_capture_deferred_by_retry_after_is_noted_and_the_same_command_asks_again(cli, tmp_path):
    from tests.collect.playback_stub import Answer, PlaybackStub, page
    from tests.collect.test_hydrate_limits import LATER, OK, dataset

    with PlaybackStub() as stub:
        stub.script(OK, Answer(200, page("Beans")))
        stub.script(LATER, Answer(503, b"busy", {"Retry-After": "100000"}), Answer(200, page("Later")))
        folder = dataset(tmp_path / "ds", OK, LATER)
        where = ("--playback-url", stub.playback_url, "--cdx-url", stub.cdx_url, *FAST)
        first = cli("hydrate", folder, "--max-retry-after", "60", *where)
        assert first.exit_code == 0, first.output
        flat = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", first.output).split())
        assert "Retry-After 100000 s, over the 60 s cap: deferred to a later run" in flat, flat
        assert "1 capture deferred" in flat and "run the same command later" in flat
        again = cli("hydrate", folder, *where)
        assert again.exit_code == 0, again.output
    rows = [json.loads(line) for line in (folder / "hydration" / "status.jsonl").read_text().splitlines()]
    assert [r["status"] for r in rows] == ["kept", "kept"] and stub.hits[LATER] == 2
