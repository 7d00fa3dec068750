"""Rows <-> records in the official WikiHowNFQA fields, validated by the schema layer so a bad row
says which field is wrong."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wikihowqa.core.records import Document, Example, Prediction, UsedPassage, normalise_split
from wikihowqa.schema.rows import (
    DOCUMENT_ROW,
    EXAMPLE_ROW,
    KINDS,
    PARSED_TEXT,
    PREDICTION_ROW,
    TypeAdapter,
    ValidationError,
    field_problem,
    row_problem,
)

EXAMPLE_FIELDS = (
    "article_id",
    "question",
    "answer",
    "related_document_urls_wayback_snapshots",
    "split",
    "cluster",
)
DOCUMENT_FIELDS = (
    "article_id",
    "original_url",
    "archive_url",
    "parsed_text",
    "parsed_md",
    "title",
    "passages",
)

# --------------------------------------------------------------------------- row checks


class _RowError(ValueError):
    """A problem with one row; the reader adds file and line."""


#: For converters outside this module (``read_records``): raise it and the reader adds file and line.
RowError = _RowError


def _checked(adapter: TypeAdapter[Any], row: Mapping[str, Any]) -> Any:
    """``row`` checked by its row model (:mod:`wikihowqa.schema.rows`); a problem is a ``_RowError``."""
    try:
        return adapter.validate_python(row)
    except ValidationError as exc:
        raise _RowError(row_problem(row, exc.errors()[0])) from None


# --------------------------------------------------------------------------- record <-> dict


def example_from_dict(row: Mapping[str, Any]) -> Example:
    checked = _checked(EXAMPLE_ROW, row)
    try:
        split = normalise_split(checked.get("split"))
    except ValueError as exc:
        raise _RowError(str(exc)) from None
    known = {*EXAMPLE_FIELDS, "category"}
    return Example(
        article_id=checked["article_id"],
        question=checked["question"],
        answer=checked["answer"],
        related_document_urls_wayback_snapshots=tuple(checked["related_document_urls_wayback_snapshots"]),
        split=split,
        cluster=checked.get("cluster"),
        category=checked.get("category"),
        extra={k: v for k, v in row.items() if k not in known},
    )


def example_to_dict(example: Example) -> dict[str, Any]:
    row: dict[str, Any] = {
        "article_id": example.article_id,
        "question": example.question,
        "answer": example.answer,
        "related_document_urls_wayback_snapshots": list(example.related_document_urls_wayback_snapshots),
        "split": example.split,
        "cluster": example.cluster,
    }
    if example.category is not None:
        row["category"] = example.category
    row.update(example.extra)
    return row


def document_from_dict(
    row: Mapping[str, Any], *, split_passages: Callable[[str], list[str]] | None = None
) -> Document:
    """A document row; the site's passage-only shape gets its text from the passages, and vice versa.

    ``parsed_text`` may also be the document-enriched release's object ``{"title": ..., "passages": [...]}``:
    its title and passages become the document's (the row's own, if it has them, win), its text their join.
    """
    if isinstance(row.get("parsed_text"), Mapping):
        row = _unfold_parsed_text(row)
    checked = _checked(DOCUMENT_ROW, row)
    passages = tuple(checked.get("passages") or ())
    text = checked.get("parsed_text")
    if text is None:
        if not passages:
            problem = "field 'parsed_text' is null" if "parsed_text" in row else "missing field 'parsed_text'"
            raise _RowError(f"{problem} (and no 'passages' to rebuild it from)")
        text = "\n\n".join(passages)
    elif not passages and split_passages is not None:
        passages = tuple(split_passages(text))
    return Document(
        article_id=checked["article_id"],
        original_url=checked["original_url"],
        archive_url=checked["archive_url"],
        parsed_text=text,
        parsed_md=checked.get("parsed_md"),
        title=checked.get("title"),
        passages=passages,
        extra={k: v for k, v in row.items() if k not in DOCUMENT_FIELDS},
    )


def _unfold_parsed_text(row: Mapping[str, Any]) -> dict[str, Any]:
    parsed = row["parsed_text"]
    try:
        checked = PARSED_TEXT.validate_python(parsed)
    except ValidationError as exc:
        key = str(exc.errors()[0]["loc"][0])
        name = "passages" if key == "passages" else f"parsed_text.{key}"
        raise _RowError(field_problem(name, parsed[key], KINDS.get(key, "str"))) from None
    inner = checked.get("passages")
    if not inner:
        raise _RowError("field 'parsed_text' is an object without 'passages' (a list of strings)")
    unfolded = {**row, "parsed_text": None}
    if row.get("passages") is None:
        unfolded["passages"] = list(inner)
    if row.get("title") is None and "title" in parsed:
        unfolded["title"] = checked.get("title")
    others = {k: v for k, v in parsed.items() if k not in ("title", "passages")}
    if others:  # kept, beside the fields they came with
        unfolded["parsed_text_fields"] = others
    return unfolded


def document_to_dict(doc: Document) -> dict[str, Any]:
    row: dict[str, Any] = {
        "article_id": doc.article_id,
        "original_url": doc.original_url,
        "archive_url": doc.archive_url,
        "parsed_text": doc.parsed_text,
        "parsed_md": doc.parsed_md,
        "title": doc.title,
        "passages": list(doc.passages),
    }
    row.update(doc.extra)
    return row


def prediction_from_dict(row: Mapping[str, Any]) -> Prediction:
    given = {**row, "passages": row.get("passages") or [], "settings": row.get("settings") or {}}
    try:
        checked = PREDICTION_ROW.validate_python(given)
    except ValidationError as exc:
        raise _RowError(_prediction_problem(given, exc.errors()[0])) from None
    passages = tuple(
        UsedPassage(
            archive_url=p["archive_url"],
            position=p["position"],
            rank=p["rank"],
            text=p["text"],
            score=None if (score := p.get("score")) is None else float(score),
        )
        for p in checked["passages"]
    )
    return Prediction(
        article_id=checked["article_id"],
        system=checked["system"],
        answer=checked["answer"],
        passages=passages,
        settings=checked["settings"],
    )


def _prediction_problem(row: Mapping[str, Any], error: Mapping[str, Any]) -> str:
    loc = error["loc"]
    if loc[0] == "passages" and len(loc) == 1:
        return "field 'passages' must be a list"
    if loc[0] == "passages" and len(loc) == 2:
        return f"passages[{loc[1]}] must be an object"
    if loc[0] == "passages":
        if loc[2] == "score":
            return f"passages[{loc[1]}].score must be a number"
        return row_problem(row["passages"][loc[1]], {**error, "loc": loc[2:]})
    if loc[0] == "settings":
        return "field 'settings' must be an object"
    return row_problem(row, error)


def prediction_to_dict(pred: Prediction) -> dict[str, Any]:
    return {
        "article_id": pred.article_id,
        "system": pred.system,
        "answer": pred.answer,
        "passages": [
            {
                "archive_url": p.archive_url,
                "position": p.position,
                "rank": p.rank,
                "text": p.text,
                "score": p.score,
            }
            for p in pred.passages
        ],
        "settings": dict(pred.settings),
    }
