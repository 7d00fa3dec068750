"""Turn the files of the official WikiHowNFQA release into a dataset folder.

The release ships the QA part as one JSONL file or as per-split Parquet files, and the document part
separately; both load here as they are. A row without a ``split`` takes it from its file's name
(``wiki_how_nfqa-train.parquet``), as the Hugging Face conversion names them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wikihowqa import __version__
from wikihowqa.errors import DatasetError
from wikihowqa.io import DatasetFolder, read_documents, read_examples, write_dataset_folder
from wikihowqa.parse.passages import split_passages
from wikihowqa.records import Document, Example

_SPLIT_IN_NAME = re.compile(r"(?:^|[-_.])(train|validation|valid|test)(?:[-_.]|$)")


def split_from_filename(path: Path) -> str | None:
    match = _SPLIT_IN_NAME.search(path.name.lower())
    if not match:
        return None
    return "validation" if match.group(1) == "valid" else match.group(1)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_release(
    qa_paths: Sequence[Path], document_paths: Sequence[Path]
) -> tuple[list[Example], list[Document]]:
    """Examples and documents of the given release files, checked for duplicate ids."""
    if not qa_paths:
        raise DatasetError("no QA file given")
    examples: list[Example] = []
    seen: dict[int, Path] = {}
    for path in map(Path, qa_paths):
        inferred = split_from_filename(path)
        for example in read_examples(path):
            if example.article_id in seen:
                raise DatasetError(
                    f"{path}: article_id {example.article_id} appears twice "
                    f"(also in {seen[example.article_id]})"
                )
            seen[example.article_id] = path
            if example.split is None and inferred is not None:
                example = dataclasses.replace(example, split=inferred)
            examples.append(example)
    documents: list[Document] = []
    for path in map(Path, document_paths):
        documents.extend(read_documents(path, split_passages=split_passages))
    return examples, documents


def import_release(
    qa_paths: Sequence[Path],
    document_paths: Sequence[Path],
    out: Path,
    *,
    fmt: str = "jsonl",
    overwrite: bool = False,
) -> tuple[DatasetFolder, dict[str, Any]]:
    """Write a dataset folder from release files; returns the folder and its manifest."""
    examples, documents = load_release(qa_paths, document_paths)
    known = {e.article_id for e in examples}
    orphans = sorted({d.article_id for d in documents} - known)
    manifest: dict[str, Any] = {
        "kind": "import",
        "tool": {"name": "wikihowqa", "version": __version__},
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "sources": [
            {"path": str(Path(p).resolve()), "sha256": _sha256(Path(p)), "part": part}
            for part, paths in (("qa", qa_paths), ("documents", document_paths))
            for p in paths
        ],
        "counts": {
            "questions": len(examples),
            "documents": len(documents),
            "splits": dict(Counter(e.split or "none" for e in examples)),
            "documents_without_question": len(orphans),
        },
    }
    folder = write_dataset_folder(out, examples, documents, manifest, overwrite=overwrite, fmt=fmt)
    return folder, manifest
