"""Row models of the dataset files: ``qa.jsonl``, ``documents.jsonl`` and predictions files.

Each row is checked by pydantic against a ``TypedDict`` (validated to a plain dict, not a model instance,
which costs about half as much as a ``BaseModel`` per row: ``benchmarks/rows.py`` measures the readers
against the hand-written checks they replace). :func:`row_problem` words the first
error as the readers always have (``missing field 'answer'``, ``field 'article_id' must be an integer,
got str '7'``); the reader adds ``file:line``.

Integers are strict (``"7"`` and ``true`` are refused) except whole floats, which Parquet and pandas
round-trips make of integers; lists of strings may come as numpy arrays from Parquet readers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Required

from pydantic import BeforeValidator, Strict, StrictFloat, StrictInt, StrictStr
from pydantic import TypeAdapter as TypeAdapter
from pydantic import ValidationError as ValidationError
from typing_extensions import TypedDict


def _whole(value: Any) -> Any:
    return int(value) if type(value) is float and value.is_integer() else value


def _listed(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") and not isinstance(value, list | tuple) else value


Int = Annotated[int, Strict(), BeforeValidator(_whole)]
Strings = Annotated[list[StrictStr], BeforeValidator(_listed)]
Number = StrictInt | StrictFloat

# Field order is the order of the checks: the first problem of a row is the one reported.


class ExampleRow(TypedDict, total=False):
    """A ``qa.jsonl`` row (the official release's fields; any others are kept by the record)."""

    article_id: Required[Int]
    question: Required[StrictStr]
    answer: Required[StrictStr]
    related_document_urls_wayback_snapshots: Required[Strings]
    split: StrictStr | None
    cluster: Int | None
    category: StrictStr | None


class DocumentRow(TypedDict, total=False):
    """A ``documents.jsonl`` row, once an enriched ``parsed_text`` object is unfolded."""

    passages: Strings | None
    parsed_text: StrictStr | None
    article_id: Required[Int]
    original_url: Required[StrictStr]
    archive_url: Required[StrictStr]
    parsed_md: StrictStr | None
    title: StrictStr | None


class UsedPassageRow(TypedDict, total=False):
    archive_url: Required[StrictStr]
    position: Required[Int]
    rank: Required[Int]
    text: Required[StrictStr]
    score: Number | None


class PredictionRow(TypedDict, total=False):
    """A row of ``predictions/<system>.jsonl`` (a null or empty ``passages``/``settings``: none)."""

    passages: list[UsedPassageRow]
    settings: dict[str, Any]
    article_id: Required[Int]
    system: Required[StrictStr]
    answer: Required[StrictStr]


class ParsedText(TypedDict, total=False):
    """The document-enriched release's ``parsed_text`` object (its other keys are kept by the reader)."""

    passages: Strings | None
    title: StrictStr | None


EXAMPLE_ROW: TypeAdapter[ExampleRow] = TypeAdapter(ExampleRow)
DOCUMENT_ROW: TypeAdapter[DocumentRow] = TypeAdapter(DocumentRow)
PREDICTION_ROW: TypeAdapter[PredictionRow] = TypeAdapter(PredictionRow)
PARSED_TEXT: TypeAdapter[ParsedText] = TypeAdapter(ParsedText)

Kind = Literal["int", "str", "strings", "number", "list", "object"]
#: What each field holds, for the wording of a problem with it.
KINDS: dict[str, Kind] = {
    "article_id": "int",
    "cluster": "int",
    "position": "int",
    "rank": "int",
    "related_document_urls_wayback_snapshots": "strings",
    "passages": "strings",
    "score": "number",
    "settings": "object",
}


def field_problem(key: str, value: Any, kind: Kind) -> str:
    """The readers' words for a field holding the wrong kind of value."""
    got = type(value).__name__
    if kind == "int":
        return f"field {key!r} must be an integer, got {got} {value!r:.40}"
    if kind == "strings":
        if not isinstance(value, list | tuple):
            return f"field {key!r} must be a list of strings, got {got}"
        odd = next(v for v in value if not isinstance(v, str))
        return f"field {key!r} must be a list of strings, got a list holding {type(odd).__name__}"
    if kind == "number":
        return f"field {key!r} must be a number, got {got}"
    if kind == "object":
        return f"field {key!r} must be an object"
    if kind == "list":
        return f"field {key!r} must be a list"
    return f"field {key!r} must be a string, got {got}"


def row_problem(row: Mapping[str, Any], error: Mapping[str, Any], kinds: Mapping[str, Kind] = KINDS) -> str:
    """The first error of a row, in the readers' words: the field is named, and what was wrong with it."""
    key = str(error["loc"][0])
    if error["type"] == "missing":
        return f"missing field {key!r}"
    value = row.get(key)
    if value is None:
        return f"field {key!r} is null"
    return field_problem(key, value, kinds.get(key, "str"))
