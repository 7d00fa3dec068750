"""The full report: the real release instances and a synthetic corpus with categories."""

from __future__ import annotations

import json

import pytest

from wikihowqa.dataset.folder import DatasetFolder, write_dataset_folder
from wikihowqa.release.importer import import_release
from wikihowqa.stats.report import describe
from wikihowqa.synthetic.dataset import generate_corpus

PNG = b"\x89PNG\r\n\x1a\n"


def test_the_three_real_instances_give_the_full_report(tmp_path, real_examples_dir):
    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "r"
    )
    report = describe(folder, tmp_path / "out", audit=True)
    md = (tmp_path / "out" / "stats.md").read_text()
    for heading in (
        "Table 1",
        "Categories",
        "Table 2",
        "Coverage, density, compression",
        "Leakage audit",
        "Figures",
    ):
        assert f"## {heading}" in md
    assert "spaCy" in md and "tok-tok" in md and "nupunkt" in md  # the report names its tokenizers
    saved = json.loads((tmp_path / "out" / "stats.json").read_text())
    assert saved["table1"]["all"]["questions"] == 3 and saved["table1"]["all"]["documents"] == 16
    assert saved["table1"]["test"]["questions"] == 1
    per_question = (tmp_path / "out" / "stats_per_question.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in per_question]
    assert sum(len(r["document_words"]) for r in rows) == 16
    mean_cov = sum(r["coverage"] for r in rows) / 3
    assert saved["fragments"]["all"]["coverage"]["mean"] == pytest.approx(mean_cov)
    assert 0.5 < mean_cov < 1 and saved["fragments"]["all"]["compression"]["mean"] > 10
    assert saved["audit"]["splits"]["test"]["questions"] == 1 and "_similarities" not in saved["audit"]
    figures = sorted(p.name for p in (tmp_path / "out" / "figures").iterdir())
    assert figures == ["answer_lengths.png", "audit_similarity.png", "document_lengths.png"]
    assert all((tmp_path / "out" / "figures" / f).read_bytes().startswith(PNG) for f in figures)
    assert report.table2["all"]["novel_1grams_percent"] < report.table2["all"]["novel_4grams_percent"]
    assert report.to_json() == {**saved, "seconds": {**saved["seconds"], "write": report.seconds["write"]}}


def test_without_a_current_audit_the_report_says_how_to_make_it_and_loads_no_encoder(
    tmp_path, real_examples_dir, monkeypatch
):
    import wikihowqa.stats.report as report_module

    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "r"
    )
    monkeypatch.setattr(report_module, "audit_dataset", lambda *a, **k: pytest.fail("the audit ran unasked"))
    report = describe(folder, tmp_path / "out", workers=1)
    assert report.audit is None
    assert "wikihowqa audit" in report.audit_note and "--run-audit" in report.audit_note
    assert "Not in this report: no current audit" in (tmp_path / "out" / "stats.md").read_text()
    assert json.loads((tmp_path / "out" / "stats.json").read_text())["audit_note"] == report.audit_note


def test_categories_are_counted_and_drawn(tmp_path):
    examples, documents = generate_corpus(12, 30, seed=2)
    folder = write_dataset_folder(tmp_path / "syn", examples, documents, {})
    report = describe(DatasetFolder(folder.path), tmp_path / "out", audit=False, workers=1)
    assert sum(report.categories["all"].values()) == 12
    assert list(report.table1) == ["unsplit", "all"] and report.audit is None
    assert (tmp_path / "out" / "figures" / "categories.png").read_bytes().startswith(PNG)
    assert "Not run" in (tmp_path / "out" / "stats.md").read_text()


def test_the_cited_page_types_are_counted_from_the_parse_stage_record(tmp_path):
    from dataclasses import replace

    examples, documents = generate_corpus(6, 12, seed=3)
    kinds = ["forum", "article", "product"]
    typed = [
        replace(doc, extra={**doc.extra, "parse": {"page_type": kinds[i % 3]}}) if i % 4 else doc
        for i, doc in enumerate(documents)
    ]
    folder = write_dataset_folder(tmp_path / "syn", examples, typed, {})
    report = describe(DatasetFolder(folder.path), tmp_path / "out", audit=False, workers=1)
    cited = [d for d in typed if d.article_id in {e.article_id for e in examples}]
    expected: dict[str, int] = {}
    for i, doc in enumerate(typed):
        if doc in cited:
            kind = kinds[i % 3] if i % 4 else "unknown"
            expected[kind] = expected.get(kind, 0) + 1
    assert report.page_types == expected  # equal as mappings; listed most frequent first:
    assert list(report.page_types.values()) == sorted(expected.values(), reverse=True)
    assert sum(report.page_types.values()) == report.table1["all"]["documents"]
    md = (tmp_path / "out" / "stats.md").read_text()
    assert "## Cited page types" in md and "| forum |" in md and "| unknown |" in md


def _shuffled(folder: DatasetFolder, seed: int = 1) -> DatasetFolder:
    """``folder`` with its documents.jsonl lines shuffled: documents no longer grouped by article."""
    import random

    path = folder.documents_path
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    path.write_text("".join(lines), encoding="utf-8")
    return folder


def test_the_streamed_report_equals_the_one_computed_from_every_document_in_memory(
    tmp_path, real_examples_dir
):
    """The three real instances with their documents shuffled (not grouped by article), and a question
    cited twice: the per-question file is byte for byte what the statistics of each question's documents,
    all held in memory, give, and the tables and cited page types are theirs."""
    from dataclasses import replace

    from wikihowqa.dataset.writers import write_jsonl
    from wikihowqa.stats import corpus
    from wikihowqa.stats.report import page_types

    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "r"
    )
    examples = folder.examples()
    folder.write_examples([*examples, replace(examples[0], split="test")])
    folder = _shuffled(folder)
    report = describe(folder, tmp_path / "out", audit=False)

    examples = folder.examples()
    grouped = folder.documents_by_article()
    held = corpus.batch_stats([(e, [d.parsed_text for d in grouped.get(e.article_id, [])]) for e in examples])
    write_jsonl(tmp_path / "expected.jsonl", (s.to_dict() for s in held))
    produced = (tmp_path / "out" / "stats_per_question.jsonl").read_bytes()
    assert produced == (tmp_path / "expected.jsonl").read_bytes()
    assert len(produced.splitlines()) == 4
    assert json.dumps(report.table1) == json.dumps(corpus.table1(held))
    assert json.dumps(report.table2) == json.dumps(corpus.table2(held))
    assert json.dumps(report.fragments) == json.dumps(corpus.fragment_scores(held))
    cited = page_types(d for e in examples for d in grouped.get(e.article_id, []))
    assert list(report.page_types.items()) == list(cited.items())


@pytest.mark.parametrize("order", ["grouped", "shuffled"])
def test_the_report_s_peak_memory_does_not_grow_with_the_corpus(tmp_path, monkeypatch, order):
    """A synthetic corpus of 10 questions and 80 documents, and the same corpus four times over (new
    article ids), its documents grouped by article or shuffled (read then at their byte offsets): the
    statistics' peak traced memory stays within 1.25x; reading every document at once grew 2.4x
    (4.4 MB → 14.7 MB)."""
    import dataclasses
    import tracemalloc

    from wikihowqa.stats import corpus
    from wikihowqa.stats.report import build_report

    monkeypatch.setattr(corpus, "CHUNK", 4)  # batches much smaller than the corpus, as at scale
    examples, documents = generate_corpus(10, 80, seed=3)

    def copies(k):
        move = [100 * c for c in range(k)]
        return (
            [dataclasses.replace(e, article_id=e.article_id + m) for m in move for e in examples],
            [dataclasses.replace(d, article_id=d.article_id + m) for m in move for d in documents],
        )

    build_report(write_dataset_folder(tmp_path / "warm", examples, documents, {}), audit=False)  # caches
    peaks = []
    for k in (1, 4):
        folder = write_dataset_folder(tmp_path / f"ds{k}", *copies(k), {})
        if order == "shuffled":
            _shuffled(folder)
        tracemalloc.start()
        report, stats = build_report(folder, audit=False, workers=1)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert report.table1["all"]["documents"] == 80 * k and len(stats) == 10 * k
    assert peaks[1] < 1.25 * peaks[0], peaks
