"""Writing JSONL and Parquet rows through a temporary file and a rename."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import atomic_write
from wikihowqa.core.records import Document, Example, Prediction
from wikihowqa.dataset.codecs import (
    document_to_dict,
    example_to_dict,
    prediction_to_dict,
)


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    count = 0
    with atomic_write(path) as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False))
            fh.write("\n")
            count += 1
    return count


def _parquet_columns(path: Path, rows: list[Mapping[str, Any]], first_row: int = 1) -> dict[str, Any]:
    """One Arrow array per field of any row (``from_pylist`` would keep only the first row's fields).

    A field whose values Arrow cannot put in one column (``1`` in one row, ``"a"`` in another) is a
    user error naming the field, not an ``ArrowInvalid`` traceback (``first_row``: the number of
    ``rows[0]`` in the file, for a chunk of it).
    """
    import pyarrow as pa

    columns: dict[str, Any] = {}
    for key in dict.fromkeys(k for row in rows for k in row):
        values = [row.get(key) for row in rows]
        try:
            columns[key] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            first: dict[str, int] = {}
            for number, value in enumerate(values, start=first_row):
                if value is not None:
                    first.setdefault(type(value).__name__, number)
            # Mixed top-level types say it all; otherwise (e.g. mixed list items) Arrow's reason does.
            why = (
                ", ".join(f"{name} in row {number}" for name, number in first.items())
                if len(first) > 1
                else str(exc)
            )
            raise DatasetError(
                f"{path.name}: field {key!r} mixes value types ({why}), which one Parquet column cannot "
                "hold; give it one type in every row, or write --format jsonl"
            ) from None
    return columns


def write_parquet(path: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    rows = list(rows)
    table = pa.table(_parquet_columns(path, rows)) if rows else pa.table({})
    with atomic_write(path, "wb") as fh:
        pq.write_table(table, fh)
    return int(table.num_rows)


def write_rows(path: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    path = Path(path)
    if path.suffix == ".parquet":
        return write_parquet(path, rows)
    if path.suffix == ".jsonl":
        return write_jsonl(path, rows)
    raise DatasetError(f"{path}: unsupported file type (expected .jsonl or .parquet)")


def write_examples(path: Path, examples: Iterable[Example]) -> int:
    return write_rows(path, (example_to_dict(e) for e in examples))


def write_documents(path: Path, documents: Iterable[Document]) -> int:
    return write_rows(path, (document_to_dict(d) for d in documents))


def write_predictions(path: Path, predictions: Iterable[Prediction]) -> int:
    return write_rows(path, (prediction_to_dict(p) for p in predictions))
