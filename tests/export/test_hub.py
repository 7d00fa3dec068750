"""export-hub: Parquet shards per split that `datasets` loads, a card from the manifest, and Croissant
metadata that mlcroissant validates and reads back record for record."""

from __future__ import annotations

import json

import pytest
import yaml

from wikihowqa.dataset.codecs import example_to_dict
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.export.hub import CROISSANT_FILE, HubSettings, export_hub, load_records


@pytest.fixture
def exported(small_dataset, tmp_path):
    out = tmp_path / "hub"
    return export_hub(small_dataset, out, HubSettings(shard_rows=2, license="cc-by-nc-sa-3.0")), small_dataset


def test_parquet_shards_per_split_load_with_datasets(exported):
    import datasets

    export, source = exported
    out = export.out
    assert export.files["qa"]["train"] == [
        "data/qa/train-00000-of-00002.parquet",
        "data/qa/train-00001-of-00002.parquet",
    ]
    assert export.rows["qa"] == {"train": 3, "validation": 1, "test": 2, "unsplit": 1}
    assert export.rows["documents"] == {"train": 6, "validation": 2, "test": 4, "unsplit": 2}
    assert export.documents_without_question == 1
    qa = datasets.load_dataset(str(out))
    assert {s: len(qa[s]) for s in qa} == {"train": 3, "validation": 1, "test": 2, "unsplit": 1}
    expected = {e.article_id: example_to_dict(e) for e in DatasetFolder(source).examples()}
    for split in qa:
        for row in qa[split]:
            assert row == expected[row["article_id"]]
    docs = datasets.load_dataset(str(out), "documents")
    assert sorted(docs["test"]["article_id"]) == [104, 104, 105, 105]
    assert docs["train"][0]["passages"][1].startswith("Store ")


def test_croissant_validates_and_reads_back_every_record(exported):
    import mlcroissant as mlc

    export, source = exported
    metadata = json.loads((export.out / CROISSANT_FILE).read_text())
    assert metadata["conformsTo"] == "http://mlcommons.org/croissant/1.1"
    dataset = mlc.Dataset(jsonld=str(export.out / CROISSANT_FILE))  # raises on an invalid document
    assert not dataset.metadata.issues.errors
    records = load_records(export.out, "qa")
    want = {e.article_id: e for e in DatasetFolder(source).examples()}
    assert sorted(r["article_id"] for r in records) == sorted(want)
    for r in records:
        e = want[r["article_id"]]
        assert (r["question"], r["answer"], r["split"]) == (e.question, e.answer, e.split)
        assert r["related_document_urls_wayback_snapshots"] == list(e.related_document_urls_wayback_snapshots)
        assert r["categories"] == e.extra["categories"]
    documents = load_records(export.out, "documents")
    assert len(documents) == 14 and all(len(d["passages"]) == 2 for d in documents)
    assert export.skipped_columns == {"qa": [], "documents": ["parse"]}


def test_a_broken_croissant_document_is_refused_by_the_validator(exported, tmp_path):
    import mlcroissant as mlc

    export, _ = exported
    metadata = json.loads((export.out / CROISSANT_FILE).read_text())
    del metadata["recordSet"][0]["field"][0]["dataType"]
    broken = export.out / "broken.json"
    broken.write_text(json.dumps(metadata))
    with pytest.raises(mlc.ValidationError, match="dataType"):
        mlc.Dataset(jsonld=str(broken))


def test_card_tells_what_how_licences_and_citation(exported):
    export, _ = exported
    card = (export.out / "README.md").read_text()
    header = yaml.safe_load(card.split("---")[1])
    assert header["license"] == "cc-by-nc-sa-3.0" and header["pretty_name"] == "my-benchmark"
    assert header["configs"][0] == {
        "config_name": "qa",
        "data_files": [
            {"split": s, "path": f"data/qa/{s}-*.parquet"} for s in ("train", "validation", "test", "unsplit")
        ],
        "default": True,
    }
    assert "collected from 2024-01-08T09:00:00Z to 2024-01-09T17:30:00Z" in card
    assert "articles: seen 12 → with summary 9 → with references 8 → with usable document 7" in card
    assert "mediawiki: api_url `https://www.wikihow.com/api.php`" in card
    assert "licences are left to those owners" in card
    assert "@inproceedings{bolotova-etal-2023-wikihowqa" in card
    assert "1 documents whose question is not in the QA part are left out" in card


def test_the_streamed_shards_hold_what_one_table_of_every_row_holds(small_dataset, tmp_path, monkeypatch):
    """Documents shuffled (not grouped by article), two rows converted at a time (so the schema is fixed
    over chunks whose ``extra`` fields differ): every shard equals, schema and values, the slice of one
    Arrow table of all the part's rows, taken per split in file order, as the export made it before."""
    import random
    from dataclasses import replace

    import pyarrow as pa
    import pyarrow.parquet as pq

    from wikihowqa.dataset.codecs import document_to_dict
    from wikihowqa.dataset.writers import _parquet_columns, write_documents
    from wikihowqa.export import hub

    folder = DatasetFolder(small_dataset)
    documents = folder.documents()
    random.Random(2).shuffle(documents)
    documents[-1] = replace(documents[-1], extra={**documents[-1].extra, "late": 1.5})  # a field only last
    write_documents(folder.documents_path, documents)
    monkeypatch.setattr(hub, "CHUNK_ROWS", 2)
    export = export_hub(small_dataset, tmp_path / "hub", HubSettings(shard_rows=3))

    split_of = {e.article_id: e.split or "unsplit" for e in folder.examples()}
    parts = {
        "qa": [example_to_dict(e) for e in folder.examples()],
        "documents": [document_to_dict(d) for d in documents if d.article_id in split_of],
    }
    for part, rows in parts.items():
        table = pa.table(_parquet_columns(tmp_path / part, rows))
        assert "late" in table.column_names or part == "qa"
        for split, shards in export.files[part].items():
            taken = table.take([k for k, row in enumerate(rows) if split_of[row["article_id"]] == split])
            assert len(shards) == -(-taken.num_rows // 3)
            for k, shard in enumerate(shards):
                pq.write_table(taken.slice(3 * k, 3), tmp_path / "expected.parquet")  # as before
                expected = pq.read_table(tmp_path / "expected.parquet")
                written = pq.read_table(export.out / shard)
                assert written.equals(expected, check_metadata=True), (part, shard)
                assert written.num_rows == min(3, taken.num_rows - 3 * k)


def test_a_field_of_two_types_in_different_chunks_is_named(small_dataset, tmp_path, monkeypatch):
    from dataclasses import replace

    from wikihowqa.core.errors import DatasetError
    from wikihowqa.dataset.writers import write_documents
    from wikihowqa.export import hub

    folder = DatasetFolder(small_dataset)
    documents = folder.documents()
    documents[0] = replace(documents[0], extra={"rank": 1})
    documents[-2] = replace(documents[-2], extra={"rank": "first"})
    write_documents(folder.documents_path, documents)
    monkeypatch.setattr(hub, "CHUNK_ROWS", 2)
    with pytest.raises(DatasetError, match=r"documents.parquet: a field mixes value types.*rank"):
        export_hub(small_dataset, tmp_path / "hub")
    assert not (tmp_path / "hub").exists()


def test_the_export_s_peak_memory_does_not_grow_with_the_corpus(tmp_path, monkeypatch):
    """A synthetic corpus of 10 questions and 80 documents, and the same corpus four times over (new
    article ids): the export's peak traced memory stays within 1.25x; one table of every row grew 2.7x."""
    import dataclasses
    import tracemalloc

    from wikihowqa.dataset.folder import write_dataset_folder
    from wikihowqa.export import hub
    from wikihowqa.synthetic import generate_corpus

    monkeypatch.setattr(hub, "CHUNK_ROWS", 8)  # chunks much smaller than the corpus, as at scale
    examples, documents = generate_corpus(10, 80, seed=3)
    examples = [
        dataclasses.replace(e, split=("train", "validation", "test")[i % 3]) for i, e in enumerate(examples)
    ]

    def copies(k):
        move = [100 * c for c in range(k)]
        return (
            [dataclasses.replace(e, article_id=e.article_id + m) for m in move for e in examples],
            [dataclasses.replace(d, article_id=d.article_id + m) for m in move for d in documents],
        )

    warm = write_dataset_folder(tmp_path / "warm", examples, documents, {})
    export_hub(warm.path, tmp_path / "hub-warm")  # imports and the Croissant validator's first use
    peaks = []
    for k in (1, 4):
        folder = write_dataset_folder(tmp_path / f"ds{k}", *copies(k), {})
        tracemalloc.start()
        export = export_hub(folder.path, tmp_path / f"hub{k}", HubSettings(shard_rows=50))
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert sum(export.rows["documents"].values()) == 80 * k
    assert peaks[1] < 1.25 * peaks[0], peaks
