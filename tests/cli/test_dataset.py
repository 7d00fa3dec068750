"""``wikihowqa import`` at the command line: from files or from a (loopback) Hub, with its warnings."""

from __future__ import annotations

import json

import pytest

from tests.hub_server import PARQUET_REVISION, REPO, HubServer, go_offline, go_online, release_repo
from tests.release.test_importer import rows, write_rows


@pytest.fixture
def hub(real_examples_dir, monkeypatch, tmp_path):
    qa = rows(real_examples_dir / "qa.jsonl")
    repo = release_repo((real_examples_dir / "qa.jsonl").read_bytes(), {"train": qa})
    with HubServer({REPO: repo}) as server:
        go_online(monkeypatch, server.url, tmp_path / "cache")
        yield server


def test_import_hub_fetches_the_release_and_names_the_commit(cli, hub, tmp_path, real_examples_dir):
    result = cli("import", tmp_path / "ds", "--hub", REPO)
    assert result.exit_code == 0, result.output
    commit = hub.commit(REPO, "main")
    assert f"fetched {REPO} at main (commit {commit}): WikiHowNFQA.jsonl" in result.stderr
    assert result.stdout.startswith("imported 3 questions and 0 documents into ")
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert manifest["origin"]["hub"]["commit"] == commit
    assert rows(tmp_path / "ds" / "qa.jsonl") == rows(real_examples_dir / "qa.jsonl")
    parquet = cli("import", tmp_path / "pq", "--hub", REPO, "--revision", PARQUET_REVISION)
    assert parquet.exit_code == 0, parquet.output
    assert f"(commit {hub.commit(REPO, PARQUET_REVISION)}): default/train/0000.parquet" in parquet.stderr


def test_import_hub_offline_is_one_line_naming_the_repository_and_the_cause(cli, hub, tmp_path, monkeypatch):
    go_offline(monkeypatch)
    result = cli("import", tmp_path / "ds", "--hub", REPO, "--revision", PARQUET_REVISION)
    assert result.exit_code == 2 and len(result.lines) == 1, result.output
    assert result.lines[0].startswith(f"error: {REPO} (revision {PARQUET_REVISION}): offline (HF_HUB_OFFLINE")
    assert not (tmp_path / "ds").exists() and hub.requests == []


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ([], "give the QA part either as --qa FILE or as --hub REPOSITORY, not both"),
        (
            ["--hub", REPO, "--qa", "qa.jsonl"],
            "give the QA part either as --qa FILE or as --hub REPOSITORY, not both",
        ),
        (["--qa", "qa.jsonl", "--revision", "main"], "--revision applies to --hub only"),
    ],
)
def test_import_takes_the_qa_part_from_one_source(cli, tmp_path, args, problem):
    result = cli("import", tmp_path / "ds", *args)
    assert result.exit_code == 2 and result.lines == [f"error: {problem}"]


def test_import_warns_of_repeated_citations_and_escaped_quotes_and_clean_repairs_them(
    cli, tmp_path, real_examples_dir
):
    items = rows(real_examples_dir / "qa.jsonl")
    urls = items[0]["related_document_urls_wayback_snapshots"]
    items[0]["related_document_urls_wayback_snapshots"] = [*urls, urls[0]]
    src = write_rows(tmp_path / "qa.jsonl", items)
    kept = cli("import", tmp_path / "kept", "--qa", src)
    assert kept.exit_code == 0, kept.output
    assert kept.lines == [
        "warning: 1 question cited a document URL more than once: 1 repeated citations removed (each URL is "
        "kept where it was first cited)",
        "warning: 6 backslash-escaped quotes (\\' for ') in 1 question, an artefact of the release: kept as "
        "released (--clean repairs them)",
    ]
    cleaned = cli("import", tmp_path / "clean", "--qa", src, "--clean")
    assert cleaned.exit_code == 0, cleaned.output
    assert cleaned.lines[-1] == "cleaned: 6 backslash-escaped quotes (\\' for ') in 1 question"
    assert "\\'" not in (tmp_path / "clean" / "qa.jsonl").read_text().replace("\\\\'", "")


def test_import_refuses_a_blank_gold_answer_with_file_and_line(cli, tmp_path, real_examples_dir):
    items = rows(real_examples_dir / "qa.jsonl")
    items[2]["answer"] = ""
    src = write_rows(tmp_path / "qa.jsonl", items)
    result = cli("import", tmp_path / "ds", "--qa", src)
    assert result.exit_code == 2
    assert result.lines == [f"error: {src}:3: field 'answer' (the gold answer) is empty"]
