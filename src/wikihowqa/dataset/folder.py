"""The dataset folder on disk: ``qa`` and ``documents`` (JSONL or Parquet) and ``manifest.json``."""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import atomic_folder, write_json
from wikihowqa.core.records import Document, Example, normalise_split
from wikihowqa.dataset.readers import (
    iter_documents,
    read_documents,
    read_examples,
)
from wikihowqa.dataset.writers import (
    write_documents,
    write_examples,
)

QA_FILE = "qa.jsonl"
MANIFEST_FILE = "manifest.json"

# --------------------------------------------------------------------------- the folder


@dataclass(frozen=True)
class DatasetFolder:
    """A dataset folder: ``qa`` and ``documents`` (``.jsonl`` or ``.parquet``) and ``manifest.json``."""

    path: Path

    def _find(self, stem: str) -> Path:
        for suffix in (".jsonl", ".parquet"):
            candidate = self.path / f"{stem}{suffix}"
            if candidate.is_file():
                return candidate
        if not self.path.is_dir():
            raise DatasetError(f"{self.path}: no such dataset folder")
        raise DatasetError(f"{self.path}: no {stem}.jsonl or {stem}.parquet in this dataset folder")

    @property
    def qa_path(self) -> Path:
        return self._find("qa")

    @property
    def documents_path(self) -> Path:
        return self._find("documents")

    def examples(self, split: str | None = None) -> list[Example]:
        examples = read_examples(self.qa_path)
        if split is None:
            return examples
        wanted = normalise_split(split)
        return [e for e in examples if e.split == wanted]

    def documents(self) -> list[Document]:
        return read_documents(self.documents_path)

    def documents_by_article(
        self, articles: Collection[int] | None = None, *, texts: bool = True
    ) -> dict[int, list[Document]]:
        """Documents grouped by article; ``articles``: only theirs (a split's), read one document at a
        time, so a stage that needs a split holds that split's documents, not the corpus's. ``texts=False``:
        each without its text, Markdown and ``extra`` (a stage that reads passages holds a third as much)."""
        grouped: dict[int, list[Document]] = {}
        for doc in iter_documents(self.documents_path):
            if articles is None or doc.article_id in articles:
                kept = doc if texts else replace(doc, parsed_text="", parsed_md=None, extra={})
                grouped.setdefault(doc.article_id, []).append(kept)
        return grouped

    def manifest(self) -> dict[str, Any]:
        path = self.path / MANIFEST_FILE
        if not path.is_file():
            return {}
        try:
            manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg})") from None
        return manifest

    def write_examples(self, examples: Iterable[Example]) -> int:
        """Replace the QA part in place (atomically), keeping its format."""
        try:
            target = self.qa_path
        except DatasetError:
            target = self.path / QA_FILE
        return write_examples(target, examples)


def write_dataset_folder(
    out: Path,
    examples: Iterable[Example],
    documents: Iterable[Document],
    manifest: Mapping[str, Any],
    *,
    overwrite: bool = False,
    fmt: str = "jsonl",
) -> DatasetFolder:
    """Write a whole dataset folder into a temporary sibling, then move it into place."""
    out = Path(out)
    if fmt not in {"jsonl", "parquet"}:
        raise DatasetError(f"unknown format {fmt!r} (expected jsonl or parquet)")
    if out.exists() and not out.is_dir():
        # Even with overwrite: replacing a user's file by a folder is never what was meant.
        raise DatasetError(f"{out}: exists and is a file, not a folder (choose a new or empty folder)")
    if out.exists() and any(out.iterdir()) and not overwrite:
        raise DatasetError(f"{out}: folder exists and is not empty (use --overwrite to replace it)")
    with atomic_folder(out) as staging:
        write_examples(staging / f"qa.{fmt}", examples)
        write_documents(staging / f"documents.{fmt}", documents)
        write_json(staging / MANIFEST_FILE, manifest)
    return DatasetFolder(out)


def open_dataset(path: str | os.PathLike[str]) -> DatasetFolder:
    """A dataset folder, checked to hold its QA part (``qa.jsonl`` or ``qa.parquet``): the one door to read a
    dataset from Python. Raises :class:`~wikihowqa.core.errors.DatasetError` naming what is missing."""
    folder = DatasetFolder(Path(path))
    _ = folder.qa_path  # raises when the folder or its QA part is missing
    return folder
