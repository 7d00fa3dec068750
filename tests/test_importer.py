"""Importing the official release: the three real instances survive every conversion exactly."""

from __future__ import annotations

import json

import pytest

from wikihowqa.errors import DatasetError
from wikihowqa.importer import import_release, split_from_filename
from wikihowqa.io import DatasetFolder


def rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_real_examples_round_trip_jsonl_parquet_jsonl(tmp_path, real_examples_dir):
    src_qa, src_docs = real_examples_dir / "qa.jsonl", real_examples_dir / "documents.jsonl"
    first, _ = import_release([src_qa], [src_docs], tmp_path / "jsonl")
    as_parquet, _ = import_release(
        [first.qa_path], [first.documents_path], tmp_path / "parquet", fmt="parquet"
    )
    assert as_parquet.qa_path.suffix == ".parquet"
    back, _ = import_release([as_parquet.qa_path], [as_parquet.documents_path], tmp_path / "back")

    assert rows(back.qa_path) == rows(first.qa_path) == rows(src_qa)
    assert rows(back.documents_path) == rows(first.documents_path)
    # Every field the release file had is kept with its exact value; parsed_text is added.
    for original, imported in zip(rows(src_docs), rows(first.documents_path), strict=True):
        assert {k: imported[k] for k in original} == original
        assert imported["parsed_text"] == "\n\n".join(original["passages"])


def test_split_comes_from_the_file_name_when_rows_lack_it(tmp_path):
    path = tmp_path / "wiki_how_nfqa-valid.jsonl"
    path.write_text(
        json.dumps(
            {"article_id": 1, "question": "q", "answer": "a", "related_document_urls_wayback_snapshots": []}
        )
        + "\n"
    )
    folder, manifest = import_release([path], [], tmp_path / "ds")
    assert [e.split for e in folder.examples()] == ["validation"]
    assert manifest["counts"]["splits"] == {"validation": 1}
    assert split_from_filename(tmp_path / "0000.parquet") is None
    assert split_from_filename(tmp_path / "wiki_how_nfqa-test.parquet") == "test"


def test_duplicate_article_ids_are_refused(tmp_path, real_examples_dir):
    with pytest.raises(DatasetError, match="appears twice"):
        import_release([real_examples_dir / "qa.jsonl", real_examples_dir / "qa.jsonl"], [], tmp_path / "ds")
    assert not (tmp_path / "ds").exists()


def test_imported_folder_loads_with_hugging_face_datasets(tmp_path, real_examples_dir):
    datasets = pytest.importorskip("datasets")
    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "ds"
    )
    qa = datasets.load_dataset(
        "json", data_files=str(folder.qa_path), split="train", cache_dir=str(tmp_path / "cache")
    )
    docs = datasets.load_dataset(
        "json", data_files=str(folder.documents_path), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert qa.num_rows == 3 and set(qa.column_names) >= {
        "article_id",
        "question",
        "answer",
        "split",
        "cluster",
    }
    assert sorted(qa["split"]) == ["test", "train", "train"]
    assert docs.num_rows == 16 and isinstance(docs[0]["passages"], list)
    assert DatasetFolder(folder.path).examples()[0].question == qa[0]["question"]


# --------------------------------------------------------------------------- the document-enriched form


def enriched(real_examples_dir, *, urls_inside: bool = True, keep_url_of: int = 0) -> list[dict]:
    """The three real instances as public research code reads them: every value of the URL list a JSON
    string of its document, with ``parsed_text`` an object ``{title, passages}`` (the last ``keep_url_of``
    values of each left as plain URLs)."""
    docs = {(d["article_id"], d["archive_url"]): d for d in rows(real_examples_dir / "documents.jsonl")}
    out = []
    for example in rows(real_examples_dir / "qa.jsonl"):
        urls = example["related_document_urls_wayback_snapshots"]
        values = []
        for i, url in enumerate(urls):
            if i >= len(urls) - keep_url_of:
                values.append(url)
                continue
            doc = docs[(example["article_id"], url)]
            inner = {"parsed_text": {"title": doc["title"], "passages": doc["passages"]}}
            if urls_inside:
                inner = {"original_url": doc["original_url"], "archive_url": url, **inner}
            values.append(json.dumps(inner, ensure_ascii=False))
        out.append({**example, "related_document_urls_wayback_snapshots": values})
    return out


def write_rows(path, items):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
    return path


def _by_place(path):
    return sorted(rows(path), key=lambda d: (d["article_id"], d["archive_url"]))


@pytest.mark.parametrize("keep_url_of", [0, 2])
def test_the_document_enriched_form_of_the_real_instances_imports_their_documents(
    tmp_path, real_examples_dir, keep_url_of
):
    """It imported "3 questions and 0 documents" and kept the JSON strings as if they were URLs."""
    src = write_rows(tmp_path / "enriched.jsonl", enriched(real_examples_dir, keep_url_of=keep_url_of))
    plain, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "plain"
    )
    folder, manifest = import_release([src], [], tmp_path / "from-enriched")
    assert rows(folder.qa_path) == rows(plain.qa_path)  # the URL list is the release's again
    expected = [d for d in _by_place(plain.documents_path)]
    if keep_url_of:  # documents the QA part left as plain URLs are not in it
        qa = {e["article_id"]: e["related_document_urls_wayback_snapshots"] for e in rows(plain.qa_path)}
        expected = [d for d in expected if d["archive_url"] not in qa[d["article_id"]][-keep_url_of:]]
    assert _by_place(folder.documents_path) == expected
    assert manifest["counts"]["documents"] == manifest["counts"]["documents_in_qa_part"] == len(expected)


def test_enriched_documents_without_an_address_get_a_tag_uri_not_a_made_up_url(tmp_path, real_examples_dir):
    src = write_rows(tmp_path / "enriched.jsonl", enriched(real_examples_dir, urls_inside=False))
    folder, _ = import_release([src], [], tmp_path / "ds")
    documents = folder.documents_by_article()
    first = folder.examples()[0]
    ids = first.related_document_urls_wayback_snapshots
    assert ids[0] == f"tag:wikihowqa,2023:document/{first.article_id}/0"
    assert [d.archive_url for d in documents[first.article_id]] == list(ids)
    real = {d["archive_url"]: d for d in rows(real_examples_dir / "documents.jsonl")}
    original = real[rows(real_examples_dir / "qa.jsonl")[0]["related_document_urls_wayback_snapshots"][0]]
    doc = documents[first.article_id][0]
    assert (doc.title, list(doc.passages)) == (original["title"], original["passages"])
    assert doc.parsed_text == "\n\n".join(original["passages"]) and doc.original_url == ""


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("not a url", r"\[1\] is neither a URL nor a document: 'not a url'"),
        ("web.archive.org/web/2020/x.org", r"\[1\] is neither a URL nor a document: 'web\.archive"),
        ('{"parsed_text": {"title": "t"', r"\[1\] is neither a URL nor a document \(invalid JSON: "),
        ("[1, 2]", r"\[1\] is neither a URL nor a document: '\[1, 2\]'"),
        ('{"parsed_text": {"title": "t", "passages": "one"}}', r"\[1\]: field 'passages' must be a list of"),
        (
            '{"parsed_text": {"title": "t", "passages": []}}',
            r"\[1\]: field 'parsed_text' is an object without",
        ),
        ('{"title": "t"}', r"\[1\]: a document without 'parsed_text'"),
        ('{"archive_url": "n/a", "passages": ["p"]}', r"\[1\]: the document's address 'n/a' is not a URL"),
    ],
)
def test_a_value_that_is_neither_a_url_nor_a_document_is_refused_with_file_and_line(
    tmp_path, real_examples_dir, value, problem
):
    examples = enriched(real_examples_dir)
    values = examples[1]["related_document_urls_wayback_snapshots"]
    examples[1]["related_document_urls_wayback_snapshots"] = [values[0], value, *values[2:]]
    src = write_rows(tmp_path / "enriched.jsonl", examples)
    with pytest.raises(
        DatasetError, match=rf"enriched\.jsonl:2: related_document_urls_wayback_snapshots{problem}"
    ):
        import_release([src], [], tmp_path / "ds")
    assert not (tmp_path / "ds").exists()


def test_a_document_part_with_parsed_text_as_an_object_is_read(tmp_path, real_examples_dir):
    docs = rows(real_examples_dir / "documents.jsonl")
    shaped = [
        {**{k: v for k, v in d.items() if k not in ("title", "passages")},
         "parsed_text": {"title": d["title"], "passages": d["passages"], "lang": "en"}}
        for d in docs
    ]  # fmt: skip
    src = write_rows(tmp_path / "documents.jsonl", shaped)
    folder, _ = import_release([real_examples_dir / "qa.jsonl"], [src], tmp_path / "ds")
    plain, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "plain"
    )
    got = rows(folder.documents_path)
    assert [{k: v for k, v in d.items() if k != "parsed_text_fields"} for d in got] == rows(
        plain.documents_path
    )
    assert got[0]["parsed_text_fields"] == {"lang": "en"}


def test_the_enriched_form_in_parquet_imports_the_same(tmp_path, real_examples_dir):
    import pyarrow as pa
    import pyarrow.parquet as pq

    items = enriched(real_examples_dir)
    pq.write_table(pa.Table.from_pylist(items), tmp_path / "enriched.parquet")
    from_jsonl, _ = import_release([write_rows(tmp_path / "e.jsonl", items)], [], tmp_path / "a")
    from_parquet, _ = import_release([tmp_path / "enriched.parquet"], [], tmp_path / "b")
    assert rows(from_parquet.qa_path) == rows(from_jsonl.qa_path)
    assert rows(from_parquet.documents_path) == rows(from_jsonl.documents_path)
