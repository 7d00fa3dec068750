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
