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
