"""A small dataset folder with every split, an unsplit question, extra fields and a build manifest."""

from __future__ import annotations

import pytest

from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.folder import write_dataset_folder

MANIFEST = {
    "stage": "build",
    "tool": {"name": "wikihowqa", "version": "0.1.0"},
    "sources": {
        "mediawiki": {"api_url": "https://www.wikihow.com/api.php", "sitename": "wikiHow"},
        "wayback": {"base_url": "https://web.archive.org"},
    },
    "funnel": {
        "articles": {"seen": 12, "with_summary": 9, "with_references": 8, "with_usable_document": 7},
        "references": {"citations": 30, "unique_urls": 28, "kept": 14},
    },
    "rejections": {"article_no_summary": 3, "reference_no_snapshot": 4},
    "dates": {"started": "2024-01-08T09:00:00Z", "finished": "2024-01-09T17:30:00Z"},
    "split": {"settings": {"model": "all-MiniLM-L6-v2", "seed": 0}, "clusters": 2},
}
SPLIT_OF = ["train", "train", "train", "validation", "test", "test", None]


@pytest.fixture
def small_dataset(tmp_path):
    examples, documents = [], []
    for i, split in enumerate(SPLIT_OF):
        topic = ["figs", "fences", "floors", "bread", "roses", "bikes", "tents"][i]
        examples.append(
            Example(
                100 + i,
                f"How to Care for {topic.title()}",
                f"To care for {topic}, clean the {topic} weekly. Keep the {topic} dry and out of the sun.",
                (f"http://web.archive.org/web/2020/https://{topic}.example/a", f"http://x/{topic}/b"),
                split,
                0 if split == "train" else -1,
                "Home and Garden",
                extra={"categories": ["Care", topic]},
            )
        )
        for d in range(2):
            documents.append(
                Document(
                    100 + i,
                    f"https://{topic}.example/{d}",
                    f"http://web.archive.org/web/2020/https://{topic}.example/{d}",
                    f"Clean your {topic} every week with a damp cloth.\n\nStore {topic} somewhere dry.",
                    f"# {topic}\n\n- Clean your {topic} every week.",
                    f"All about {topic}",
                    (f"Clean your {topic} every week with a damp cloth.", f"Store {topic} somewhere dry."),
                    extra={"parse": {"flags": [], "pages": 1}},  # a struct: no Croissant type
                )
            )
    documents.append(Document(999, "https://orphan.example", "http://a/orphan", "An orphan page."))
    return write_dataset_folder(tmp_path / "my-benchmark", examples, documents, MANIFEST).path


def with_flaws(dataset):
    """``dataset`` (the small one) with the gold answer of question 104 (test) emptied and the documents of
    question 105 (test) removed: what an export must warn about (and refuse, for the first)."""
    from dataclasses import replace

    from wikihowqa.dataset.folder import DatasetFolder
    from wikihowqa.dataset.writers import write_documents

    folder = DatasetFolder(dataset)
    folder.write_examples([replace(e, answer="") if e.article_id == 104 else e for e in folder.examples()])
    write_documents(folder.documents_path, [d for d in folder.documents() if d.article_id != 105])
    return dataset
