"""The state store keeps responses and results across processes, killed or not."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3

import pytest

from wikihowqa.collect.http import Response
from wikihowqa.collect.store import StateStore, StoredResults, canonical_url, snapshot_source
from wikihowqa.core.errors import DatasetError


def test_a_response_round_trips_with_its_status_headers_and_exact_bytes(tmp_path):
    body = bytes(range(256)) * 40  # large enough to be stored compressed
    with StateStore(tmp_path / "s.sqlite") as store:
        store.put_response("k", Response("http://x/a", 200, {"content-type": "text/html"}, body))
        store.put_response("small", Response("http://x/b", 404, {}, b"no"))
    with StateStore(tmp_path / "s.sqlite") as store:
        got = store.get_response("k")
        assert got is not None and got.from_cache
        assert (got.url, got.status, got.content) == ("http://x/a", 200, body)
        assert got.header("Content-Type") == "text/html"
        assert store.get_response("small").content == b"no"
        assert store.get_response("missing") is None
        assert store.response_count() == 2


def test_the_database_is_in_write_ahead_log_mode(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_results_are_json_values_by_stage_and_key(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        store.put_result("article", "1", {"title": "How to A", "refs": ["u"]})
        store.put_results("reference", [("u1", {"ok": True}), ("u2", {"ok": False})])
        store.put_result("article", "1", {"title": "How to A (again)", "refs": []})  # replaces
        assert store.get_result("article", "1")["title"] == "How to A (again)"
        assert store.results("reference") == {"u1": {"ok": True}, "u2": {"ok": False}}
        store.delete_results("reference", ["u2"])
        assert list(store.results("reference")) == ["u1"]


def _write_then_die(path: str, n: int) -> None:
    store = StateStore(path)
    for i in range(n):
        store.put_response(f"k{i}", Response(f"http://x/{i}", 200, {}, b"x" * 1000))
        store.put_result("stage", str(i), {"i": i})
    os.kill(os.getpid(), signal.SIGKILL)


def test_stored_results_read_each_asked_key_from_the_store_in_the_order_given(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        store.put_results("reference", [("b", {"status": "fetched"}), ("a", {"status": "no_snapshot"})])
        store.put_result("document", "a", {"text": "other stage"})
        view = StoredResults(store, "reference", ["b", "a", "b"])
        assert list(view) == ["b", "a"] and len(view) == 2
        assert [v["status"] for v in view.values()] == ["fetched", "no_snapshot"]
        store.put_result("reference", "a", {"status": "fetched"})  # read when asked, not when made
        assert view["a"] == {"status": "fetched"}
        assert store.result_keys("reference") == {"a", "b"}
        with pytest.raises(KeyError):
            view["c"]  # not among its keys, though a key of another view may be


def test_stored_results_give_the_missing_value_for_a_key_the_store_lacks(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        absent = {"status": "fetch_failed"}
        assert StoredResults(store, "reference", ["x"], missing=absent)["x"] is absent
        with pytest.raises(KeyError):
            StoredResults(store, "reference", ["x"])["x"]


def test_everything_committed_before_a_kill_9_is_there_afterwards(tmp_path):
    path = tmp_path / "s.sqlite"
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=_write_then_die, args=(str(path), 50))
    proc.start()
    proc.join(60)
    assert proc.exitcode == -signal.SIGKILL
    with StateStore(path) as store:
        assert store.response_count() == 50
        assert len(store.results("stage")) == 50
        assert store.get_response("k49").content == b"x" * 1000


def test_closing_folds_the_log_into_one_file(tmp_path):
    path = tmp_path / "s.sqlite"
    with StateStore(path) as store:
        store.put_result("a", "b", 1)
    assert not (tmp_path / "s.sqlite-wal").exists() or (tmp_path / "s.sqlite-wal").stat().st_size == 0
    # The single file is a complete database.
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM results").fetchone()[0] == 1


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path):
    bad = tmp_path / "build.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(DatasetError, match="not a usable build state database"):
        StateStore(bad)


def test_the_parse_stage_finds_raw_snapshots_by_archive_url_and_by_original_url(tmp_path):
    path = tmp_path / "s.sqlite"
    html = b"<html><body><p>hello</p></body></html>"
    with StateStore(path) as store:
        store.put_response("raw1", Response("http://a/web/1id_/x", 200, {"content-type": "text/html"}, html))
        store.put_snapshot(
            "http://a/web/20200101000000/https://www.x.org/p", "https://www.x.org/p", "20200101000000", "raw1"
        )
    source = snapshot_source(path)
    snap = source.get("http://a/web/20200101000000/https://www.x.org/p")
    assert snap is not None and snap.body == html and snap.url == "https://www.x.org/p"
    assert snap.headers["content-type"] == "text/html"
    assert source.find("http://x.org/p/").body == html  # scheme, www. and trailing slash ignored
    assert source.get("http://a/web/1/nothing") is None
    assert [s.archive_url for s in source] == ["http://a/web/20200101000000/https://www.x.org/p"]


def test_canonical_urls_ignore_scheme_www_and_trailing_slash_but_not_the_query():
    assert canonical_url("https://www.Example.org/a/") == canonical_url("http://example.org/a")
    assert canonical_url("http://x.org/a?page=2") != canonical_url("http://x.org/a")


def test_a_results_scalar_fields_are_read_without_the_rest_a_missing_field_as_none(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        store.put_result("document", "a", {"rejection": None, "text": "long text", "detail": "x"})
        assert store.get_fields("document", "a", ("rejection", "detail", "absent")) == {
            "rejection": None,
            "detail": "x",
            "absent": None,
        }
        assert store.get_fields("document", "unknown", ("rejection",)) is None
