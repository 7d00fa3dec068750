"""The leakage audit: nearest train question per evaluation question, thresholds, titles, clusters."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Example
from wikihowqa.release.importer import import_release
from wikihowqa.split.audit import (
    AUDIT_FILE,
    audit_dataset,
    audit_examples,
    crossing_clusters,
    load_audit,
    normalise_title,
)


def ex(i, question, split, cluster=-1):
    return Example(i, question, "a", ("u",), split=split, cluster=cluster)


def test_normalised_titles_ignore_case_punctuation_how_to_and_articles():
    assert normalise_title("How To Seal Concrete Floors") == "seal concrete floors"
    assert normalise_title("How to Seal the Concrete Floors!") == "seal concrete floors"
    assert normalise_title("How do I seal your concrete floors?") == "seal concrete floors"
    assert normalise_title("Seal concrete floors") == "seal concrete floors"
    assert normalise_title("How to Seal Concrete Walls") != "seal concrete floors"


def test_nearest_train_question_and_similarity_match_brute_force():
    rng = np.random.default_rng(0)
    splits = ["train"] * 12 + ["validation"] * 4 + ["test"] * 5
    examples = [ex(i, f"question {i}", s) for i, s in enumerate(splits)]
    emb = rng.normal(size=(len(examples), 8))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    result = audit_examples(examples, emb, threshold=0.5, block=3)
    assert len(result.pairs) == 9
    for pair in result.pairs:
        i = pair.article_id
        sims = [float(emb[i] @ emb[j]) for j in range(12)]
        assert pair.nearest_article_id == int(np.argmax(sims))
        assert pair.similarity == pytest.approx(max(sims), abs=1e-5)
    summary = result.summary()
    expected_above = sum(1 for p in result.pairs if p.similarity >= 0.5)
    assert summary["splits"]["all"]["above_threshold"] == expected_above
    assert sum(summary["splits"]["test"]["histogram"]) == 5
    assert summary["splits"]["validation"]["questions"] == 4


def test_same_titles_and_clusters_across_splits_are_reported():
    examples = [
        ex(0, "How to Dry Figs", "train", 3),
        ex(1, "How To Dry the Figs?", "test", -1),
        ex(2, "How to Knit", "validation", 3),
        ex(3, "How to Sew", "train", 4),
    ]
    emb = np.eye(4)
    result = audit_examples(examples, emb)
    same = {p.article_id: p.same_title for p in result.pairs}
    assert same == {1: True, 2: False}
    assert result.crossing_clusters == [3] == crossing_clusters(examples)
    assert result.clustered_in_evaluation == 1
    assert (
        audit_examples(examples, emb, lexical=False).summary()["splits"]["all"]["same_normalised_title"]
        is None
    )


def test_a_dataset_without_splits_is_a_clear_error():
    with pytest.raises(DatasetError, match="no splits"):
        audit_examples([ex(0, "q", None)], np.eye(1))


def test_audit_of_the_imported_official_instances(tmp_path, real_examples_dir):
    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "r"
    )
    result = audit_dataset(folder, threshold=0.9)
    assert [p.question for p in result.pairs] == ["How To Dry Figs"]
    assert result.pairs[0].nearest_question in {
        "How To Seal Concrete Floors",
        "How To Convince Your Parents to Let You Spend the Night",
    }
    assert 0 < result.pairs[0].similarity < 0.9
    saved = json.loads((folder.path / AUDIT_FILE).read_text())
    assert saved["splits"]["test"]["questions"] == 1 and saved["pairs"][0]["question"] == "How To Dry Figs"
    assert load_audit(folder, folder.examples(), "all-MiniLM-L6-v2") is not None
    assert load_audit(folder, folder.examples()[:2], "all-MiniLM-L6-v2") is None  # other questions: stale
