"""The demo step splits the demo dataset and writes both reports."""

from __future__ import annotations

from wikihowqa.demo.run import DemoContext, split_and_describe
from wikihowqa.importer import import_release
from wikihowqa.io import DatasetFolder, write_dataset_folder
from wikihowqa.synthetic import generate_corpus


def test_demo_step_splits_and_describes(tmp_path, real_examples_dir):
    ctx = DemoContext(out=tmp_path)
    examples, documents = generate_corpus(20, 45, seed=9)  # stands in for the built demo corpus
    write_dataset_folder(tmp_path / "dataset", examples, documents, {})
    import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "real-examples"
    )
    split_and_describe(ctx)
    assert all(e.split for e in DatasetFolder(tmp_path / "dataset").examples())
    assert (tmp_path / "dataset" / "stats" / "stats.md").is_file()  # where `wikihowqa stats` writes
    assert (tmp_path / "real-examples" / "stats" / "stats.md").is_file()
    assert ctx.produced[0][0].startswith("leakage-free split")
    assert len(ctx.produced) == 3
