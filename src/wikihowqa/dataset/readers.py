"""Reading JSONL and Parquet rows: every row validated, every failure ``file:line: problem``."""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import re
import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Document, Example, Prediction
from wikihowqa.dataset.codecs import (
    _RowError,
    document_from_dict,
    example_from_dict,
    prediction_from_dict,
)

R = TypeVar("R")

# --------------------------------------------------------------------------- files


#: A ``\\uD800``–``\\uDFFF`` escape: only then can a decoded string hold a lone surrogate.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(value: Any, where: str = "") -> str | None:
    """Where in ``value`` a string holds a lone surrogate (``field 'x'``, ``field 'x'[2]``), if anywhere."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"{where or 'a string'} (character {exc.start + 1}: \\u{ord(value[exc.start]):04x})"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = _lone_surrogate(key, f"a key of {where or 'the line'}") or _lone_surrogate(
                item, f"field {key!r}" if not where else f"{where}[{key!r}]"
            )
            if found:
                return found
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if found := _lone_surrogate(item, f"{where}[{i}]"):
                return found
    return None


def _decode_line(line: str) -> Any:
    """One JSON line; every way a valid-looking line can fail is a ``_RowError`` saying why."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _RowError(f"invalid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise _RowError(
            f"JSON nested too deeply (more than about {sys.getrecursionlimit()} levels of [ and {{)"
        ) from None
    except ValueError as exc:  # Python refuses integers of more than sys.get_int_max_str_digits() digits
        if "digits" not in str(exc):
            raise
        raise _RowError(
            f"an integer with more than {sys.get_int_max_str_digits()} digits, which Python does not read; "
            "write it as a string"
        ) from None
    if _SURROGATE_ESCAPE.search(line) and (where := _lone_surrogate(obj)):
        raise _RowError(
            f"{where} holds a lone surrogate, which is not Unicode text (an escape from a broken UTF-16 "
            "conversion); fix or remove it"
        )
    return obj


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line_number, object)`` for each non-blank line; a bad line raises with file and line."""
    path = Path(path)
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    seen = False
    # Binary lines, decoded one by one: a text-mode reader decodes ahead and would blame the wrong line.
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            try:
                # a byte order mark opens files some editors and Windows tools save: not part of the JSON
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise DatasetError(f"{path}:{lineno}: not valid UTF-8 ({exc.reason})") from None
            if not line.strip():
                continue
            if line.startswith("\ufeff"):
                raise DatasetError(
                    f"{path}:{lineno}: a byte order mark (U+FEFF) starts this line, not the file (were files "
                    "joined?); remove it"
                )
            try:
                obj = _decode_line(line)
            except _RowError as exc:
                raise DatasetError(f"{path}:{lineno}: {exc}") from None
            if not isinstance(obj, dict):
                raise DatasetError(f"{path}:{lineno}: expected a JSON object, got {type(obj).__name__}")
            seen = True
            yield lineno, obj
    if not seen:
        raise DatasetError(f"{path}: empty file (no JSON lines)")


def _json_value(value: Any) -> Any:
    """An Arrow value JSON has no type for, as text that keeps it exactly (see ``_iter_parquet``)."""
    if isinstance(value, datetime.datetime | datetime.date | datetime.time):
        return value.isoformat()  # a pandas Timestamp (nanosecond column) keeps its nanoseconds
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, datetime.timedelta):
        return _iso_duration(value)
    if isinstance(value, dict):
        return {k: _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    return value


def _iso_duration(value: datetime.timedelta) -> str:
    """ISO 8601 ``PT<seconds>S`` with every digit (a pandas Timedelta keeps its nanoseconds)."""
    nanos = getattr(value, "value", None)  # pandas.Timedelta: integer nanoseconds
    if not isinstance(nanos, int):
        nanos = ((value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds) * 1_000
    sign, nanos = ("-" if nanos < 0 else ""), abs(nanos)
    whole, frac = divmod(nanos, 1_000_000_000)
    seconds = f"{whole}.{frac:09d}".rstrip("0").rstrip(".")
    return f"{sign}PT{seconds}S"


def _needs_text(kind: Any) -> bool:
    """Does an Arrow type hold (at any depth) values JSON has no type for?"""
    import pyarrow as pa
    import pyarrow.types as t

    if (
        t.is_temporal(kind)
        or t.is_decimal(kind)
        or t.is_binary(kind)
        or t.is_large_binary(kind)
        or t.is_fixed_size_binary(kind)
    ):
        return True
    if isinstance(kind, pa.DictionaryType):
        return _needs_text(kind.value_type)
    return any(_needs_text(kind.field(i).type) for i in range(kind.num_fields))


def _iter_parquet(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows of a Parquet file as JSON values.

    Columns of types JSON lacks are kept exactly, as text: timestamps, dates and times as ISO 8601
    (with the column's time zone offset, and nanoseconds where the column has them), durations as
    ISO 8601 ``PT…S``, decimals as their digits, binary as base64. Written back to Parquet they stay text.
    """
    import pyarrow.parquet as pq

    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises many types for a corrupt file
        raise DatasetError(f"{path}: not a readable Parquet file ({exc})") from None
    if table.num_rows == 0:
        raise DatasetError(f"{path}: empty file (no rows)")
    as_text = [f.name for f in table.schema if _needs_text(f.type)]
    try:
        rows = table.to_pylist()
    except (ValueError, TypeError) as exc:  # e.g. nanosecond timestamps without pandas to hold them
        raise DatasetError(f"{path}: a column cannot be read as Python values ({exc})") from None
    for number, row in enumerate(rows, start=1):
        for name in as_text:
            row[name] = _json_value(row[name])
        yield number, row


def iter_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows of a JSONL or Parquet file, chosen by suffix; the number is a line or row number."""
    path = Path(path)
    if path.suffix == ".parquet":
        return _iter_parquet(path)
    if path.suffix in {".jsonl", ".json", ".ndjson"}:
        return iter_jsonl(path)
    raise DatasetError(f"{path}: unsupported file type (expected .jsonl or .parquet)")


def row_location(path: Path, number: int) -> str:
    """How a reader names a row: ``file:line`` in JSONL, ``file: row N`` in Parquet."""
    path = Path(path)
    return f"{path}: row {number}" if path.suffix == ".parquet" else f"{path}:{number}"


def iter_records(path: Path, convert: Callable[[Mapping[str, Any]], R]) -> Iterator[tuple[int, R]]:
    """``(line or row number, record)``; a row ``convert`` refuses (``RowError``) raises with its place."""
    path = Path(path)
    for number, row in iter_rows(path):
        try:
            record = convert(row)
        except _RowError as exc:
            raise DatasetError(f"{row_location(path, number)}: {exc}") from None
        yield number, record


def read_records(path: Path, convert: Callable[[Mapping[str, Any]], R]) -> list[R]:
    return [record for _, record in iter_records(path, convert)]


def read_examples(path: Path) -> list[Example]:
    return read_records(path, example_from_dict)


def read_documents(path: Path, *, split_passages: Callable[[str], list[str]] | None = None) -> list[Document]:
    return read_records(path, lambda row: document_from_dict(row, split_passages=split_passages))


def iter_documents(path: Path) -> Iterator[Document]:
    """Documents one at a time, for a stage that must not hold a whole file (a paper-scale document part)."""
    return (document for _, document in iter_records(path, document_from_dict))


def jsonl_line_offsets(path: Path, lines: Collection[int]) -> dict[int, int]:
    """The byte offset at which each of ``lines`` (1-based line numbers) starts in a JSONL file."""
    offsets: dict[int, int] = {}
    position = 0
    with Path(path).open("rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if lineno in lines:
                offsets[lineno] = position
            position += len(raw)
    return offsets


def documents_at(path: Path, offsets: Iterable[int]) -> Iterator[Document]:
    """The documents on the JSONL lines starting at ``offsets`` (lines a full read has already checked),
    read by seeking: an index's way to a file's documents in any order, one at a time."""
    with Path(path).open("rb") as fh:
        for offset in offsets:
            fh.seek(offset)
            raw = fh.readline()
            yield document_from_dict(_decode_line(raw.decode("utf-8-sig" if offset == 0 else "utf-8")))


def read_predictions(path: Path) -> list[Prediction]:
    return read_records(path, prediction_from_dict)
