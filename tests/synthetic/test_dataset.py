"""The synthetic paper-scale corpus: deterministic, the requested sizes, realistic lengths, planted groups."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.synthetic.dataset import generate_corpus, generate_questions


def test_same_seed_same_corpus_and_exact_sizes():
    a = generate_corpus(30, 190, seed=4)
    b = generate_corpus(30, 190, seed=4)
    assert a == b
    examples, documents = a
    assert len(examples) == 30 and len(documents) == 190
    assert {d.article_id for d in documents} == {e.article_id for e in examples}
    assert generate_corpus(30, 190, seed=5)[0] != examples
    assert [e.question for e in examples] == [q.title for q in generate_questions(30, seed=4)]
    urls = {d.archive_url for d in documents}
    assert all(set(e.related_document_urls_wayback_snapshots) <= urls for e in examples)


def test_lengths_and_paraphrase_groups_look_like_the_paper():
    examples, documents = generate_corpus(150, 950, seed=1)
    answer_words = np.array([len(e.answer.split()) for e in examples])
    doc_words = np.array([len(d.parsed_text.split()) for d in documents])
    assert 60 <= np.median(answer_words) <= 120 and np.mean((answer_words >= 45) & (answer_words <= 160)) == 1
    assert 300 <= np.median(doc_words) <= 900 and doc_words.max() > 2000 and doc_words.min() >= 80
    assert all(e.question.startswith("How to ") for e in examples)
    assert len({e.question for e in examples}) == 150
    assert len({e.category for e in examples}) >= 10
    groups: dict[int, list[str]] = {}
    for e in examples:
        if "paraphrase_group" in e.extra:
            groups.setdefault(e.extra["paraphrase_group"], []).append(e.question)
    assert groups and all(2 <= len(g) <= 4 for g in groups.values())
    assert all(d.passages and "\n\n".join(d.passages) == d.parsed_text for d in documents)


def test_module_entry_point_writes_a_dataset_folder(tmp_path):
    out = tmp_path / "syn"
    cmd = [sys.executable, "-m", "wikihowqa.synthetic", str(out), "--questions", "5", "--documents", "9"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    folder = DatasetFolder(out)
    assert len(folder.examples()) == 5 and len(folder.documents()) == 9
    assert "synthetic" in folder.manifest()["source"]
