"""Fetching the release's QA part from the Hub: a loopback stand-in for the Hub, never the real one."""

from __future__ import annotations

import json
import socket

import pytest

from tests.hub_server import (
    LOADING_SCRIPT,
    PARQUET_REVISION,
    REPO,
    HubServer,
    go_offline,
    go_online,
    release_repo,
)
from wikihowqa.core.errors import HubError
from wikihowqa.release.hub_fetch import fetch_qa


@pytest.fixture
def qa_rows(real_examples_dir):
    return [json.loads(line) for line in (real_examples_dir / "qa.jsonl").read_text().splitlines()]


@pytest.fixture
def hub(real_examples_dir, qa_rows, monkeypatch, tmp_path):
    conversion = {"train": [r for r in qa_rows if r["split"] == "train"]}
    conversion["test"] = [r for r in qa_rows if r["split"] == "test"]
    repo = release_repo((real_examples_dir / "qa.jsonl").read_bytes(), conversion)
    with HubServer({REPO: repo}) as server:
        go_online(monkeypatch, server.url, tmp_path / "cache")
        yield server


def test_main_gives_the_jsonl_at_its_commit_and_the_loading_script_is_never_fetched(
    hub, tmp_path, real_examples_dir
):
    fetched = fetch_qa(REPO, cache_dir=tmp_path / "cache")
    assert (fetched.revision, fetched.commit, fetched.form) == ("main", hub.commit(REPO, "main"), "jsonl")
    [(in_repo, local)] = fetched.files
    assert in_repo == "WikiHowNFQA.jsonl"
    assert local.read_bytes() == (real_examples_dir / "qa.jsonl").read_bytes()
    assert f"/api/datasets/{REPO}/revision/main" in hub.paths()
    assert not [p for p in hub.paths() if "/resolve/" in p and not p.endswith("WikiHowNFQA.jsonl")]
    assert all(LOADING_SCRIPT not in p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file())


def test_the_parquet_conversion_is_fetched_with_its_revision_url_encoded(hub, tmp_path):
    fetched = fetch_qa(REPO, PARQUET_REVISION, cache_dir=tmp_path / "cache")
    assert fetched.form == "parquet" and fetched.commit == hub.commit(REPO, PARQUET_REVISION)
    assert [in_repo for in_repo, _ in fetched.files] == [
        "default/test/0000.parquet",
        "default/train/0000.parquet",
    ]
    assert f"/api/datasets/{REPO}/revision/refs%2Fconvert%2Fparquet" in hub.paths()
    assert not [p for p in hub.paths() if "refs/convert" in p]


def test_offline_a_revision_fetched_before_comes_from_the_cache_with_its_commit(hub, tmp_path, monkeypatch):
    online = fetch_qa(REPO, PARQUET_REVISION, cache_dir=tmp_path / "cache")
    asked = len(hub.requests)
    go_offline(monkeypatch)
    offline = fetch_qa(REPO, PARQUET_REVISION, cache_dir=tmp_path / "cache")
    assert offline == online and len(hub.requests) == asked


@pytest.mark.parametrize(
    ("repo", "revision", "offline", "cause"),
    [
        (REPO, "v9", False, "no such revision on http://127.0.0.1:"),
        ("Lurunchik/NoSuchRepo", None, False, "no such dataset repository on http://127.0.0.1:"),
        (REPO, None, True, "offline (HF_HUB_OFFLINE is set) and no cached copy of this revision in "),
    ],
    ids=["unknown revision", "unknown repository", "offline without a cached copy"],
)
def test_a_failed_fetch_is_one_line_naming_the_repository_and_the_cause(
    hub, tmp_path, monkeypatch, repo, revision, offline, cause
):
    if offline:
        go_offline(monkeypatch)
    with pytest.raises(HubError) as caught:
        fetch_qa(repo, revision, cache_dir=tmp_path / "cache")
    message = str(caught.value)
    assert message.startswith(f"{repo} (revision {revision or 'main'}): ") and cause in message
    assert "\n" not in message


def test_an_unreachable_hub_is_named_with_the_connection_error(tmp_path, monkeypatch):
    with socket.socket() as closed:  # bound, never listening: every connection to it is refused
        closed.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{closed.getsockname()[1]}"
        go_online(monkeypatch, url, tmp_path / "cache")
        cause = rf"^{REPO} \(revision main\): cannot reach {url} \(.*\) and no cached copy"
        with pytest.raises(HubError, match=cause):
            fetch_qa(REPO, cache_dir=tmp_path / "cache")


def test_a_revision_without_a_qa_file_is_refused(real_examples_dir, tmp_path, monkeypatch):
    with HubServer({REPO: {"main": {"README.md": b"# card\n", "WikiHowNFQA.py": LOADING_SCRIPT}}}) as server:
        go_online(monkeypatch, server.url, tmp_path / "cache")
        with pytest.raises(
            HubError, match=r"holds neither WikiHowNFQA.jsonl nor Parquet files under default/"
        ):
            fetch_qa(REPO, cache_dir=tmp_path / "cache")


def test_a_malformed_repository_id_is_named(hub, tmp_path):
    with pytest.raises(
        HubError, match=r"^'Lurunchik/WikiHowNFQA/extra': not a Hub repository id \(HFValidation"
    ):
        fetch_qa("Lurunchik/WikiHowNFQA/extra", cache_dir=tmp_path / "cache")
