"""The QA part alone, as `import --qa` writes it (an empty documents.jsonl), is scored without grounding."""

from __future__ import annotations

from wikihowqa.evaluate.without_documents import has_documents
from wikihowqa.release.importer import import_release


def test_an_imported_qa_part_without_documents_has_none(real_examples_dir, tmp_path):
    qa_only, _ = import_release([real_examples_dir / "qa.jsonl"], [], tmp_path / "qa-only")
    with_docs, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "both"
    )
    assert not has_documents(qa_only.path)  # its documents.jsonl is there, and empty
    assert has_documents(with_docs.path)
