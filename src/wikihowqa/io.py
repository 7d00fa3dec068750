"""The dataset folder on disk: JSONL and Parquet in the official WikiHowNFQA fields.

Readers validate every row and fail with ``file:line: problem`` so a user can fix the file; writers
go through a temporary file (or folder) and a rename, so a crash never leaves a half-written output.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import decimal
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from wikihowqa.errors import DatasetError
from wikihowqa.records import Document, Example, Prediction, UsedPassage, normalise_split
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

QA_FILE = "qa.jsonl"
MANIFEST_FILE = "manifest.json"

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

R = TypeVar("R")


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


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


def read_predictions(path: Path) -> list[Prediction]:
    return read_records(path, prediction_from_dict)


def _renamed(exc: OSError, old: str | Path, new: str | Path) -> OSError:
    """``exc`` with ``old`` (a temporary sibling) replaced by ``new`` (what the user asked for) in its paths,
    and ``new`` as its path when it has none (a failed ``write()``/``fsync()`` names no file)."""

    def swap(name: Any) -> Any:
        if name is None:
            return None
        text, prefix = os.fspath(name), os.fspath(old)
        if text == prefix or text.startswith(prefix + os.sep):
            return os.fspath(new) + text[len(prefix) :]
        return name

    if exc.errno is None:
        return exc
    filename = swap(exc.filename) if exc.filename is not None else os.fspath(new)
    renamed = OSError(exc.errno, exc.strerror, filename, None, swap(exc.filename2))
    renamed.__cause__ = exc
    return renamed


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """OS errors in the block that name no file name ``path`` (a full disk fails ``write()`` nameless)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise _renamed(exc, path, path) from exc


@contextlib.contextmanager
def atomic_write(path: Path, mode: str = "w") -> Iterator[Any]:
    """Open a temporary sibling of ``path``; it replaces ``path`` only if the block finishes.

    An OS error (full disk, read-only folder) names ``path``, not the temporary file.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise _renamed(exc, exc.filename or path, path) from exc
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; the result should have ordinary permissions
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _renamed(exc, tmp, path) from exc
        raise


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> int:
    count = 0
    with atomic_write(path) as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False))
            fh.write("\n")
            count += 1
    return count


def _parquet_columns(path: Path, rows: list[Mapping[str, Any]]) -> dict[str, Any]:
    """One Arrow array per field of any row (``from_pylist`` would keep only the first row's fields).

    A field whose values Arrow cannot put in one column (``1`` in one row, ``"a"`` in another) is a
    user error naming the field, not an ``ArrowInvalid`` traceback.
    """
    import pyarrow as pa

    columns: dict[str, Any] = {}
    for key in dict.fromkeys(k for row in rows for k in row):
        values = [row.get(key) for row in rows]
        try:
            columns[key] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            first: dict[str, int] = {}
            for number, value in enumerate(values, start=1):
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


def write_json(path: Path, obj: Any) -> None:
    with atomic_write(path) as fh:
        json.dump(obj, fh, ensure_ascii=False, indent=2, sort_keys=False)
        fh.write("\n")


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

    def documents_by_article(self, articles: Collection[int] | None = None) -> dict[int, list[Document]]:
        """Documents grouped by article; ``articles``: only theirs (a split's), read one document at a
        time, so a stage that needs a split holds that split's documents, not the corpus's."""
        grouped: dict[int, list[Document]] = {}
        for doc in iter_documents(self.documents_path):
            if articles is None or doc.article_id in articles:
                grouped.setdefault(doc.article_id, []).append(doc)
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


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); ``False`` where unsupported.

    The stdlib has no atomic exchange; two renames leave a moment with no folder at all.
    """
    import ctypes
    import ctypes.util
    import errno
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):  # file system or kernel without it
        return False
    raise OSError(code, os.strerror(code), os.fspath(b))


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # a file system without hard links: a copy costs space, a link does not
        shutil.copy2(src, dst)


def _carry_over(old: Path, staging: Path) -> None:
    """Put every entry of ``old`` that the new content does not have into ``staging``, by hard link."""
    for entry in old.iterdir():
        target = staging / entry.name
        if target.exists() or target.is_symlink():
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry), target)
        elif entry.is_dir():
            shutil.copytree(entry, target, symlinks=True, copy_function=_link_or_copy)
        else:
            _link_or_copy(str(entry), str(target))


@contextlib.contextmanager
def atomic_folder(out: Path, *, keep_others: bool = False) -> Iterator[Path]:
    """Yield an empty staging folder beside ``out``; it replaces ``out`` only if the block finishes.

    With ``keep_others`` the entries of an existing ``out`` that the block did not write are kept (hard
    links, so the old folder stays whole until the swap). Where the system can, old and new are
    exchanged in one step. An OS error names ``out`` (and the file in it), not the staging folder.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    except OSError as exc:
        raise _renamed(exc, exc.filename or out, out) from exc
    try:
        os.chmod(staging, 0o777 & ~_UMASK)
        yield staging
        if out.is_dir() and keep_others:
            _carry_over(out, staging)
        if out.exists():
            if _exchange(staging, out):
                shutil.rmtree(staging, ignore_errors=True)  # now the old folder
                return
            trash = out.with_name(f".{out.name}.old-{os.getpid()}")
            os.replace(out, trash)
            os.replace(staging, out)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            os.replace(staging, out)
    except BaseException as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(exc, OSError):
            raise _renamed(exc, staging, out) from exc
        raise


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
