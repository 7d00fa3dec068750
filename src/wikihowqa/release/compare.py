"""``hydrate --compare``: a hydration measured against the released document part.

Users who hold the document part under its agreement can see how close the hydrated text is: per document,
the word F1 of the hydrated ``parsed_text`` against the released text (bag of words, ``\\w+`` tokens, case
kept: :func:`wikihowqa.parse.metric.page_counts` with 1-token shingles), its mean over the documents both
have, the released documents not recovered, and the worst documents with the released passages that the
hydrated text lacks (typically boilerplate the release's parser kept: cookie notices, sign-up boxes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikihowqa.core.files import write_json
from wikihowqa.core.records import Document
from wikihowqa.dataset.readers import read_documents
from wikihowqa.parse.metric import page_counts, shingles

COMPARE_FILE = "compare.json"
#: A released passage is missing from the hydration when less than this share of its 4-word shingles is there.
MISSING_BELOW = 0.5


def word_f1(released: str, hydrated: str) -> tuple[float, float, float]:
    """Precision, recall and F1 of the hydrated words against the released ones."""
    counts = page_counts(released, hydrated, n=1)
    p, r = counts.precision, counts.recall
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _text(doc: Document) -> str:
    return "\n\n".join(doc.passages) if doc.passages else doc.parsed_text


def _missing(released: Document, hydrated: str) -> list[str]:
    """Released passages most of whose 4-word shingles are absent from the hydrated text."""
    present = shingles(hydrated)
    out = []
    for passage in released.passages:
        mine = shingles(passage)
        total = sum(mine.values())
        if total and sum((mine & present).values()) / total < MISSING_BELOW:
            out.append(passage)
    return out


@dataclass(frozen=True)
class Comparison:
    documents: list[dict[str, Any]]  # per released document, worst first
    summary: dict[str, Any]


def compare(hydrated: list[Document], released: list[Document], *, worst: int = 10) -> Comparison:
    """Match documents by question and original URL (else by archive URL) and score each; a released
    document listed twice (the same question and archive URL) is scored and counted once."""
    unique: dict[tuple[int, str], Document] = {}
    for doc in released:
        unique.setdefault((doc.article_id, doc.archive_url), doc)
    repeated, released = len(released) - len(unique), list(unique.values())
    by_key = {(d.article_id, d.original_url): d for d in hydrated}
    by_archive = {(d.article_id, d.archive_url): d for d in hydrated}
    rows: list[dict[str, Any]] = []
    for doc in released:
        mine = by_key.get((doc.article_id, doc.original_url)) or by_archive.get(
            (doc.article_id, doc.archive_url)
        )
        row: dict[str, Any] = {"article_id": doc.article_id, "archive_url": doc.archive_url}
        if mine is None:
            rows.append({**row, "recovered": False})
            continue
        p, r, f1 = word_f1(_text(doc), mine.parsed_text)
        row.update(recovered=True, precision=p, recall=r, f1=f1)
        rows.append(row)
    scored = sorted((r for r in rows if r["recovered"]), key=lambda r: (r["f1"], r["archive_url"]))
    released_by = {(d.article_id, d.archive_url): d for d in released}
    for row in scored[:worst]:
        doc = released_by[(row["article_id"], row["archive_url"])]
        mine = by_key.get((doc.article_id, doc.original_url)) or by_archive[(doc.article_id, doc.archive_url)]
        row["released_passages_missing"] = _missing(doc, mine.parsed_text)
    n = len(scored)
    summary = {
        "released": len(released),
        "released_repeated": repeated,  # rows of the released part that list a document a second time
        "recovered": n,
        "not_recovered": len(rows) - n,
        "mean_f1": sum(r["f1"] for r in scored) / n if n else None,
        "mean_precision": sum(r["precision"] for r in scored) / n if n else None,
        "mean_recall": sum(r["recall"] for r in scored) / n if n else None,
        "worst": [r["archive_url"] for r in scored[:worst]],
    }
    return Comparison(scored + [r for r in rows if not r["recovered"]], summary)


def compare_files(hydrated_path: Path, released_path: Path, out: Path, *, worst: int = 10) -> Comparison:
    """:func:`compare` of a hydrated documents file against a released one; writes ``out``
    (``compare.json``). The previous report goes first: a comparison that fails leaves none, never one
    of an earlier hydration that reads as this one's."""
    from wikihowqa.parse.passages import split_passages

    Path(out).unlink(missing_ok=True)
    released = read_documents(Path(released_path), split_passages=split_passages)
    result = compare(read_documents(Path(hydrated_path)), released, worst=worst)
    write_json(out, {"summary": result.summary, "documents": result.documents})
    return result
