"""The build's parsed documents stay in the state store and are read one at a time, in the funnel's order."""

from __future__ import annotations

import pytest

from wikihowqa.collect.documents import StoredDocuments, StoredVerdicts
from wikihowqa.collect.funnel import KeptReference, documents
from wikihowqa.collect.store import StateStore


def parsed(text: str) -> dict:
    return {
        "rejection": None,
        "text": text,
        "markdown": text,
        "title": "T",
        "passages": [text],
        "info": {"flags": []},
    }


def test_stored_documents_read_each_document_from_the_store_when_asked(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        store.put_result("document", "a", parsed("first"))
        store.put_result("document", "b", parsed("second"))
        docs = StoredDocuments(store, ["a", "b"])
        store.put_result("document", "a", parsed("rewritten"))  # read when asked, not when made
        assert docs["a"]["text"] == "rewritten" and list(docs) == ["a", "b"] and len(docs) == 2
        assert docs.get("unknown") is None
        with pytest.raises(KeyError):
            docs["unknown"]


def test_stored_verdicts_give_each_documents_rejection_and_detail_alone_read_when_asked(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        store.put_result("document", "a", parsed("kept"))
        verdicts = StoredVerdicts(StoredDocuments(store, ["a", "b"]))
        store.put_result("document", "b", {"rejection": "empty_text", "detail": "no paragraphs"})
        assert verdicts["a"] == {"rejection": None, "detail": None}
        assert verdicts["b"] == {"rejection": "empty_text", "detail": "no paragraphs"}
        assert verdicts.get("unknown") is None and list(verdicts) == ["a", "b"]


def test_a_state_store_lists_a_stages_result_keys_without_their_values(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        store.put_result("document", "a", parsed("x"))
        store.put_result("reference", "r", {"status": "fetched"})
        assert store.result_keys("document") == {"a"} and store.result_keys("none") == set()


def test_documents_come_in_the_order_of_the_kept_references_with_their_redirects(tmp_path):
    with StateStore(tmp_path / "s.sqlite") as store:
        store.put_result("document", "w/b", parsed("bee"))
        store.put_result("document", "w/a", parsed("ay"))
        kept = [KeptReference(2, "https://b", "w/b"), KeptReference(1, "https://a", "w/a", [{"from": "x"}])]
        got = list(documents(kept, StoredDocuments(store, ["w/a", "w/b"])))
    assert [(d.article_id, d.parsed_text) for d in got] == [(2, "bee"), (1, "ay")]
    assert (
        got[1].extra == {"parse": {"flags": []}, "redirects": [{"from": "x"}]}
        and "redirects" not in got[0].extra
    )
