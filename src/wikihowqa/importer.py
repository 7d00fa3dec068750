"""Turn the files of the official WikiHowNFQA release into a dataset folder.

The release ships the QA part as one JSONL file or as per-split Parquet files, and the document part
separately; both load here as they are. A row without a ``split`` takes it from its file's name
(``wiki_how_nfqa-train.parquet``), as the Hugging Face conversion names them.

The *document-enriched* form, which public research code reads, puts the documents into the QA part:
each value of ``related_document_urls_wayback_snapshots`` is then a JSON string (or an object) of one
document whose ``parsed_text`` is ``{"title": ..., "passages": [...]}``. Such documents are imported as
the document part (the URL list keeps their archive URLs, in order); a value that is neither an http(s)
URL nor a document is refused with ``file:line: problem``. A document that names no URL of its own gets a
``tag:`` URI (RFC 4151) as its identifier, since a made-up web address would pass for a real one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from wikihowqa import __version__
from wikihowqa.errors import DatasetError
from wikihowqa.io import (
    DatasetFolder,
    RowError,
    document_from_dict,
    example_from_dict,
    read_documents,
    read_records,
    write_dataset_folder,
)
from wikihowqa.parse.passages import split_passages
from wikihowqa.records import Document, Example

_SPLIT_IN_NAME = re.compile(r"(?:^|[-_.])(train|validation|valid|test)(?:[-_.]|$)")


def split_from_filename(path: Path) -> str | None:
    match = _SPLIT_IN_NAME.search(path.name.lower())
    if not match:
        return None
    return "validation" if match.group(1) == "valid" else match.group(1)


URLS_FIELD = "related_document_urls_wayback_snapshots"
#: Where a document of the enriched form may keep its address (the release's name first).
_URL_KEYS = ("archive_url", "wayback_url", "url")
_WAYBACK = re.compile(r"^https?://web\.archive\.org/web/[0-9a-z_*]+/(.+)$", re.IGNORECASE)


def is_url(value: str) -> bool:
    parts = urlsplit(value.strip())
    return parts.scheme in ("http", "https") and bool(parts.netloc) and not any(c.isspace() for c in value)


def _enriched_document(value: Any, article_id: int, index: int) -> Any:
    """The document a value of the URL list holds, or ``None`` when the value is a URL."""
    if isinstance(value, str):
        if is_url(value):
            return None
        if not value.lstrip().startswith("{"):
            raise RowError(f"{URLS_FIELD}[{index}] is neither a URL nor a document: {value[:60]!r}")
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise RowError(
                f"{URLS_FIELD}[{index}] is neither a URL nor a document (invalid JSON: {str(exc)[:80]})"
            ) from None
    if not isinstance(value, Mapping):
        raise RowError(f"{URLS_FIELD}[{index}] is neither a URL nor a document (a {type(value).__name__})")
    row = dict(value)
    if row.get("article_id", article_id) != article_id:
        other = row["article_id"]
        raise RowError(f"{URLS_FIELD}[{index}]: a document of article_id {other!r}, not {article_id}")
    row["article_id"] = article_id
    url = next((row[k] for k in _URL_KEYS if isinstance(row.get(k), str) and row[k].strip()), None)
    if url is not None and not is_url(url):
        raise RowError(f"{URLS_FIELD}[{index}]: the document's address {url[:60]!r} is not a URL")
    row["archive_url"] = url or f"tag:wikihowqa,2023:document/{article_id}/{index}"
    if not isinstance(row.get("original_url"), str):
        wayback = _WAYBACK.match(url or "")
        row["original_url"] = wayback.group(1) if wayback else (url or "")
    if "parsed_text" not in row and "passages" not in row:
        raise RowError(f"{URLS_FIELD}[{index}]: a document without 'parsed_text' (or 'passages')")
    try:
        return document_from_dict(row, split_passages=split_passages)
    except RowError as exc:
        raise RowError(f"{URLS_FIELD}[{index}]: {exc}") from None


def release_row(row: Mapping[str, Any]) -> tuple[Example, list[Document]]:
    """One QA row of the release, in either form: its example and the documents it embeds."""
    values = row.get(URLS_FIELD)
    if hasattr(values, "tolist"):
        values = values.tolist()
    if not isinstance(values, list | tuple):
        return example_from_dict(row), []  # the reader's own message for a missing or odd field
    article_id = example_from_dict({**row, URLS_FIELD: []}).article_id
    urls: list[str] = []
    documents: list[Document] = []
    for index, value in enumerate(values):
        document = _enriched_document(value, article_id, index)
        if document is None:
            urls.append(value)
        else:
            urls.append(document.archive_url)
            documents.append(document)
    return example_from_dict({**row, URLS_FIELD: urls}), documents


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_release(
    qa_paths: Sequence[Path], document_paths: Sequence[Path]
) -> tuple[list[Example], list[Document], int]:
    """Examples and documents of the given release files, checked for duplicate ids; and how many of the
    documents came inside the QA part (its document-enriched form)."""
    if not qa_paths:
        raise DatasetError("no QA file given")
    examples: list[Example] = []
    documents: list[Document] = []
    seen: dict[int, Path] = {}
    for path in map(Path, qa_paths):
        inferred = split_from_filename(path)
        for example, embedded in read_records(path, release_row):
            documents.extend(embedded)
            if example.article_id in seen:
                raise DatasetError(
                    f"{path}: article_id {example.article_id} appears twice "
                    f"(also in {seen[example.article_id]})"
                )
            seen[example.article_id] = path
            if example.split is None and inferred is not None:
                example = dataclasses.replace(example, split=inferred)
            examples.append(example)
    embedded = len(documents)
    for path in map(Path, document_paths):
        documents.extend(read_documents(path, split_passages=split_passages))
    return examples, documents, embedded


def import_release(
    qa_paths: Sequence[Path],
    document_paths: Sequence[Path],
    out: Path,
    *,
    fmt: str = "jsonl",
    overwrite: bool = False,
) -> tuple[DatasetFolder, dict[str, Any]]:
    """Write a dataset folder from release files; returns the folder and its manifest."""
    examples, documents, embedded = load_release(qa_paths, document_paths)
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
            "documents_in_qa_part": embedded,
            "splits": dict(Counter(e.split or "none" for e in examples)),
            "documents_without_question": len(orphans),
        },
    }
    folder = write_dataset_folder(out, examples, documents, manifest, overwrite=overwrite, fmt=fmt)
    return folder, manifest
