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

A row that is not a benchmark row is refused with ``file:line``: an empty question, a blank gold answer, an
``article_id`` seen before. A URL one question cites twice is kept once (it would count twice in retrieval
and grounding), and counted. Values are otherwise kept exactly, with one exception on request: some
released answers carry backslash-escaped quotes (``friend\\'s``), an artefact of the release's export that
is counted always and repaired only with ``clean`` (:func:`without_escapes`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from wikihowqa import __version__
from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.codecs import RowError, document_from_dict, example_from_dict
from wikihowqa.dataset.folder import DatasetFolder, write_dataset_folder
from wikihowqa.dataset.readers import iter_records, read_documents, row_location
from wikihowqa.parse.passages import split_passages
from wikihowqa.release.hub_fetch import fetch_qa

_SPLIT_IN_NAME = re.compile(r"(?:^|[-_.])(train|validation|valid|test)(?:[-_.]|$)")


def split_from_filename(path: Path) -> str | None:
    match = _SPLIT_IN_NAME.search(path.name.lower())
    if not match:
        return None
    return "validation" if match.group(1) == "valid" else match.group(1)


def split_from_repo_path(path: str) -> str | None:
    """The split a file's place in a repository names: its file name (``wiki_how_nfqa-valid.parquet``),
    else its nearest folder that is a split's name (``default/valid/0000.parquet``, the Hub's layout)."""
    posix = PurePosixPath(path)
    return next(
        (s for part in (posix.name, *reversed(posix.parent.parts)) if (s := split_from_filename(Path(part)))),
        None,
    )


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


class ReleaseRow(NamedTuple):
    example: Example
    documents: list[Document]  # the documents the row embeds (its document-enriched form)
    repeated: int  # values of the URL list dropped because the row cited them already


def _benchmark_example(row: Mapping[str, Any]) -> Example:
    """The row's example; a question and a gold answer are what every benchmark row must have."""
    example = example_from_dict(row)
    for name, value in (("question", example.question), ("answer", example.answer)):
        if not value.strip():
            what = "the question" if name == "question" else "the gold answer"
            state = "empty" if not value else "blank (only whitespace)"
            raise RowError(f"field {name!r} ({what}) is {state}")
    return example


def release_row(row: Mapping[str, Any]) -> ReleaseRow:
    """One QA row of the release, in either form: its example, the documents it embeds, and how many
    repeated citations were dropped from its URL list (the first citation of a URL is kept)."""
    values = row.get(URLS_FIELD)
    if hasattr(values, "tolist"):
        values = values.tolist()
    if not isinstance(values, list | tuple):
        # The reader's own message for a missing or odd field.
        return ReleaseRow(_benchmark_example(row), [], 0)
    article_id = example_from_dict({**row, URLS_FIELD: []}).article_id
    urls: list[str] = []
    cited: set[str] = set()
    documents: list[Document] = []
    repeated = 0
    for index, value in enumerate(values):
        document = _enriched_document(value, article_id, index)
        url = value if document is None else document.archive_url
        if url in cited:
            repeated += 1
            continue
        cited.add(url)
        urls.append(url)
        if document is not None:
            documents.append(document)
    return ReleaseRow(_benchmark_example({**row, URLS_FIELD: urls}), documents, repeated)


# --------------------------------------------------------------------------- release artefacts

#: Backslashes before a quote (``friend\'s``): prose never has them; the release's export left them.
ESCAPED_QUOTE = re.compile(r"\\+(?=['\"])")
#: The fields of a QA row that are checked and repaired (the human-written text).
TEXT_FIELDS = ("question", "answer")


def escapes_in(example: Example) -> dict[str, int]:
    """How many backslash-escaped quotes each text field of ``example`` carries (none: left out)."""
    counts = {name: len(ESCAPED_QUOTE.findall(getattr(example, name))) for name in TEXT_FIELDS}
    return {name: n for name, n in counts.items() if n}


def without_escapes(example: Example) -> Example:
    """``example`` with the backslashes before quotes removed from its text fields, nothing else changed."""
    return dataclasses.replace(
        example, **{name: ESCAPED_QUOTE.sub("", getattr(example, name)) for name in TEXT_FIELDS}
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclasses.dataclass(frozen=True)
class Release:
    """The release's records, and what was found in them on the way."""

    examples: list[Example]
    documents: list[Document]
    documents_in_qa_part: int
    repeated_citations: int  # URL-list values dropped: the question cited that URL already
    questions_with_repeated_citations: int
    escapes: dict[str, int]  # text field → backslash-escaped quotes found in it (all rows)
    rows_with_escapes: int
    cleaned: bool  # whether those escapes were repaired


def load_release(
    qa_paths: Sequence[Path],
    document_paths: Sequence[Path],
    *,
    qa_splits: Mapping[Path, str | None] | None = None,
    clean: bool = False,
) -> Release:
    """Examples and documents of the given release files, checked row by row and for repeated ids.

    ``qa_splits`` gives the split of a QA file's rows that have none (by default it comes from the file's
    name); ``clean`` removes the backslashes of escaped quotes from questions and answers.
    """
    if not qa_paths:
        raise DatasetError("no QA file given")
    examples: list[Example] = []
    documents: list[Document] = []
    seen: dict[int, str] = {}
    repeated = with_repeats = with_escapes = 0
    escapes: Counter[str] = Counter()
    for path in map(Path, qa_paths):
        inferred = qa_splits[path] if qa_splits and path in qa_splits else split_from_filename(path)
        for number, (example, embedded, dropped) in iter_records(path, release_row):
            where = row_location(path, number)
            if example.article_id in seen:
                first = seen[example.article_id]
                raise DatasetError(
                    f"{where}: article_id {example.article_id} appears twice (first at {first})"
                )
            seen[example.article_id] = where
            documents.extend(embedded)
            repeated += dropped
            with_repeats += bool(dropped)
            found = escapes_in(example)
            if found:
                escapes.update(found)
                with_escapes += 1
                if clean:
                    example = without_escapes(example)
            if example.split is None and inferred is not None:
                example = dataclasses.replace(example, split=inferred)
            examples.append(example)
    embedded_count = len(documents)
    for path in map(Path, document_paths):
        documents.extend(read_documents(path, split_passages=split_passages))
    return Release(
        examples=examples,
        documents=documents,
        documents_in_qa_part=embedded_count,
        repeated_citations=repeated,
        questions_with_repeated_citations=with_repeats,
        escapes=dict(escapes),
        rows_with_escapes=with_escapes,
        cleaned=clean,
    )


def _source(path: Path, part: str) -> dict[str, Any]:
    return {"path": str(Path(path).resolve()), "sha256": _sha256(Path(path)), "part": part}


def import_release(
    qa_paths: Sequence[Path],
    document_paths: Sequence[Path],
    out: Path,
    *,
    fmt: str = "jsonl",
    overwrite: bool = False,
    clean: bool = False,
    qa_splits: Mapping[Path, str | None] | None = None,
    origin: Mapping[str, Any] | None = None,
) -> tuple[DatasetFolder, dict[str, Any]]:
    """Write a dataset folder from release files; returns the folder and its manifest.

    ``origin`` (where the files came from, e.g. a Hub repository and commit) is recorded in the manifest.
    """
    release = load_release(qa_paths, document_paths, qa_splits=qa_splits, clean=clean)
    examples, documents = release.examples, release.documents
    known = {e.article_id for e in examples}
    orphans = sorted({d.article_id for d in documents} - known)
    manifest: dict[str, Any] = {
        "kind": "import",
        "tool": {"name": "wikihowqa", "version": __version__},
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "sources": [
            _source(p, part)
            for part, paths in (("qa", qa_paths), ("documents", document_paths))
            for p in paths
        ],
        "counts": {
            "questions": len(examples),
            "documents": len(documents),
            "documents_in_qa_part": release.documents_in_qa_part,
            "splits": dict(Counter(e.split or "none" for e in examples)),
            "documents_without_question": len(orphans),
            "repeated_citations_removed": release.repeated_citations,
            "questions_with_repeated_citations": release.questions_with_repeated_citations,
        },
        "release_artefacts": {
            "escaped_quotes": {
                "rows": release.rows_with_escapes,
                "escapes": sum(release.escapes.values()),
                "by_field": release.escapes,
                "cleaned": release.cleaned,
            }
        },
    }
    if origin:
        manifest["origin"] = dict(origin)
    folder = write_dataset_folder(out, examples, documents, manifest, overwrite=overwrite, fmt=fmt)
    return folder, manifest


def import_hub(
    repo_id: str,
    out: Path,
    *,
    revision: str | None = None,
    document_paths: Sequence[Path] = (),
    fmt: str = "jsonl",
    overwrite: bool = False,
    clean: bool = False,
    cache_dir: Path | None = None,
) -> tuple[DatasetFolder, dict[str, Any]]:
    """Fetch the QA part of a Hub dataset repository (:func:`wikihowqa.release.hub_fetch.fetch_qa`) and
    import it
    as local files are; the manifest's ``origin`` names the repository, the revision and its commit."""
    fetched = fetch_qa(repo_id, revision, cache_dir=cache_dir)
    paths = [local for _, local in fetched.files]
    origin = {
        "hub": {
            "repo_id": fetched.repo_id,
            "repo_type": "dataset",
            "revision": fetched.revision,
            "commit": fetched.commit,
            "endpoint": fetched.endpoint,
            "form": fetched.form,
            "files": [in_repo for in_repo, _ in fetched.files],
        }
    }
    splits = {local: split_from_repo_path(in_repo) for in_repo, local in fetched.files}
    return import_release(
        paths,
        document_paths,
        out,
        fmt=fmt,
        overwrite=overwrite,
        clean=clean,
        qa_splits=splits,
        origin=origin,
    )
