"""The dataset folder: official fields in, the same fields out, and one clear error per broken input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from wikihowqa.core.errors import DatasetError
from wikihowqa.core.files import atomic_write
from wikihowqa.core.records import Document, Example, Prediction, UsedPassage
from wikihowqa.dataset.folder import DatasetFolder, write_dataset_folder
from wikihowqa.dataset.readers import read_documents, read_examples, read_predictions
from wikihowqa.dataset.writers import write_examples, write_predictions

GOOD = {
    "article_id": 7,
    "question": "How to Test",
    "answer": "Write a failing test first.",
    "related_document_urls_wayback_snapshots": ["http://web.archive.org/web/2020/https://x.org/"],
    "split": "train",
    "cluster": 3,
}


def write_lines(path: Path, *lines: str) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_reads_official_qa_fields(tmp_path):
    [example] = read_examples(write_lines(tmp_path / "qa.jsonl", json.dumps(GOOD)))
    assert example == Example(
        7,
        "How to Test",
        "Write a failing test first.",
        (GOOD["related_document_urls_wayback_snapshots"][0],),
        "train",
        3,
    )


@pytest.mark.parametrize("alias", ["valid", "VALID", "val", "dev", "validation"])
def test_validation_split_aliases_become_validation(tmp_path, alias):
    [example] = read_examples(write_lines(tmp_path / "qa.jsonl", json.dumps({**GOOD, "split": alias})))
    assert example.split == "validation"


GOOD_DOCUMENT = {
    "article_id": 7,
    "original_url": "https://x.org/",
    "archive_url": "http://web.archive.org/web/2020/https://x.org/",
    "parsed_text": "Step one.\n\nStep two.",
    "parsed_md": None,
    "title": "X",
    "passages": ["Step one.", "Step two."],
}

#: The two parts of a release: the file name a user would have, its reader and a valid row.
PARTS = {
    "qa": ("qa.jsonl", read_examples, GOOD),
    "documents": ("documents.jsonl", read_documents, GOOD_DOCUMENT),
}


def without(row: dict, key: str) -> dict:
    return {k: v for k, v in row.items() if k != key}


@pytest.mark.parametrize(
    ("part", "line", "message"),
    [
        # bad JSON and non-object lines
        ("qa", '{"article_id": 1, "question": "q"', "invalid JSON"),
        ("qa", json.dumps([1, 2]), "expected a JSON object, got list"),
        ("documents", '{"article_id": 1, "original_url": "u"', "invalid JSON"),
        ("documents", json.dumps("text"), "expected a JSON object, got str"),
        # missing and null fields
        ("qa", json.dumps(without(GOOD, "answer")), "missing field 'answer'"),
        ("documents", json.dumps(without(GOOD_DOCUMENT, "article_id")), "missing field 'article_id'"),
        ("documents", json.dumps(without(GOOD_DOCUMENT, "original_url")), "missing field 'original_url'"),
        ("documents", json.dumps(without(GOOD_DOCUMENT, "archive_url")), "missing field 'archive_url'"),
        ("documents", json.dumps({**GOOD_DOCUMENT, "archive_url": None}), "field 'archive_url' is null"),
        (
            "documents",
            json.dumps(without(without(GOOD_DOCUMENT, "passages"), "parsed_text")),
            r"missing field 'parsed_text' \(and no 'passages' to rebuild it from\)",
        ),
        (
            "documents",
            json.dumps({**GOOD_DOCUMENT, "parsed_text": None, "passages": []}),
            r"field 'parsed_text' is null \(and no 'passages' to rebuild it from\)",
        ),
        # wrong types
        ("qa", json.dumps({**GOOD, "article_id": "7"}), "field 'article_id' must be an integer, got str"),
        ("qa", json.dumps({**GOOD, "article_id": True}), "field 'article_id' must be an integer, got bool"),
        ("qa", json.dumps({**GOOD, "answer": 5}), "field 'answer' must be a string, got int"),
        (
            "qa",
            json.dumps({**GOOD, "related_document_urls_wayback_snapshots": "http://x"}),
            "field 'related_document_urls_wayback_snapshots' must be a list of strings, got str",
        ),
        ("qa", json.dumps({**GOOD, "split": "holdout"}), "unknown split 'holdout'"),
        (
            "documents",
            json.dumps({**GOOD_DOCUMENT, "article_id": 7.5}),
            "field 'article_id' must be an integer, got float 7.5",
        ),
        (
            "documents",
            json.dumps({**GOOD_DOCUMENT, "original_url": 5}),
            "field 'original_url' must be a string",
        ),
        (
            "documents",
            json.dumps({**GOOD_DOCUMENT, "parsed_text": ["a"]}),
            "field 'parsed_text' must be a string",
        ),
        ("documents", json.dumps({**GOOD_DOCUMENT, "parsed_md": 3}), "field 'parsed_md' must be a string"),
        ("documents", json.dumps({**GOOD_DOCUMENT, "title": 3}), "field 'title' must be a string"),
        (
            "documents",
            json.dumps({**GOOD_DOCUMENT, "passages": "Step one."}),
            "field 'passages' must be a list of strings, got str",
        ),
        (
            "documents",
            json.dumps({**GOOD_DOCUMENT, "passages": ["Step one.", 2]}),
            "field 'passages' must be a list of strings, got a list holding int",
        ),
    ],
)
def test_a_broken_line_is_reported_with_file_and_line(tmp_path, part, line, message):
    name, read, good = PARTS[part]
    path = write_lines(tmp_path / name, json.dumps(good), line)
    with pytest.raises(DatasetError, match=rf"{re.escape(name)}:2: {message}"):
        read(path)


@pytest.mark.parametrize("part", PARTS)
def test_empty_and_missing_files_are_clear_errors(tmp_path, part):
    name, read, _ = PARTS[part]
    with pytest.raises(DatasetError, match=rf"{re.escape(name)}: empty file \(no JSON lines\)"):
        read(write_lines(tmp_path / name, "", "   "))
    (tmp_path / "zero.jsonl").write_bytes(b"")
    with pytest.raises(DatasetError, match=r"zero\.jsonl: empty file"):
        read(tmp_path / "zero.jsonl")
    with pytest.raises(DatasetError, match="no such file"):
        read(tmp_path / "absent.jsonl")
    with pytest.raises(DatasetError, match="unsupported file type"):
        read(write_lines(tmp_path / "part.csv", "a,b"))


@pytest.mark.parametrize("part", PARTS)
def test_an_empty_parquet_file_is_a_clear_error(tmp_path, part):
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, read, good = PARTS[part]
    pq.write_table(pa.Table.from_pylist([good]).slice(0, 0), tmp_path / "part.parquet")
    with pytest.raises(DatasetError, match=r"part\.parquet: empty file \(no rows\)"):
        read(tmp_path / "part.parquet")


@pytest.mark.parametrize("part", PARTS)
def test_invalid_utf8_is_reported_with_line(tmp_path, part):
    name, read, good = PARTS[part]
    path = tmp_path / name
    path.write_bytes(json.dumps(good).encode() + b"\n" + b'{"title": "caf\xe9"}\n')
    with pytest.raises(DatasetError, match=rf"{re.escape(name)}:2: not valid UTF-8"):
        read(path)


@pytest.mark.parametrize("part", PARTS)
def test_corrupt_parquet_is_a_clear_error(tmp_path, part):
    _, read, _ = PARTS[part]
    path = tmp_path / "part.parquet"
    path.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(DatasetError, match="not a readable Parquet file"):
        read(path)


@pytest.mark.parametrize(("part", "field"), [("qa", "question"), ("documents", "original_url")])
def test_parquet_rows_are_reported_by_row_number(tmp_path, part, field):
    import pyarrow as pa
    import pyarrow.parquet as pq

    _, read, good = PARTS[part]
    pq.write_table(pa.Table.from_pylist([good, {**good, field: None}]), tmp_path / "part.parquet")
    with pytest.raises(DatasetError, match=rf"part\.parquet: row 2: field '{field}' is null"):
        read(tmp_path / "part.parquet")


def test_unknown_fields_survive_a_round_trip(tmp_path):
    row = {**GOOD, "category": "Health", "created": "2019-01-02T00:00:00Z", "nested": {"a": [1, 2]}}
    [example] = read_examples(write_lines(tmp_path / "in.jsonl", json.dumps(row)))
    assert example.category == "Health"
    write_examples(tmp_path / "out.jsonl", [example])
    assert json.loads((tmp_path / "out.jsonl").read_text()) == row


def test_parquet_keeps_fields_that_only_later_rows_have(tmp_path):
    rows = [GOOD, {**GOOD, "article_id": 8, "created": "2019-01-02T00:00:00Z"}]
    write_examples(
        tmp_path / "qa.parquet", read_examples(write_lines(tmp_path / "in.jsonl", *map(json.dumps, rows)))
    )
    assert [e.extra.get("created") for e in read_examples(tmp_path / "qa.parquet")] == [
        None,
        "2019-01-02T00:00:00Z",
    ]


@pytest.mark.parametrize(
    ("first", "second", "why"),
    [
        (1, "a", r"int in row 1, str in row 2"),
        ([1], ["a"], r"Could not convert 'a'"),
    ],
)
def test_an_extra_field_of_mixed_types_is_a_clear_parquet_error(tmp_path, first, second, why):
    examples = read_examples(
        write_lines(
            tmp_path / "in.jsonl",
            json.dumps({**GOOD, "x": first}),
            json.dumps({**GOOD, "article_id": 8, "x": second}),
        )
    )
    write_dataset_folder(tmp_path / "ds", [Example(1, "old", "a", ())], [], {"n": 1})
    with pytest.raises(DatasetError, match=rf"qa\.parquet: field 'x' mixes value types \({why}"):
        write_dataset_folder(tmp_path / "ds", examples, [], {"n": 2}, overwrite=True, fmt="parquet")
    # The failed write changed nothing: the old folder is whole and no staging folder is left.
    assert [e.question for e in DatasetFolder(tmp_path / "ds").examples()] == ["old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ds", "in.jsonl"]


def test_document_with_passages_only_gets_its_text_from_them(tmp_path):
    row = {
        "article_id": 1,
        "original_url": "https://a.org",
        "archive_url": "http://w/a",
        "passages": ["One.", "Two."],
    }
    [doc] = read_documents(write_lines(tmp_path / "d.jsonl", json.dumps(row)))
    assert doc.parsed_text == "One.\n\nTwo." and doc.passages == ("One.", "Two.")


def test_document_with_text_only_is_cut_into_passages_when_asked(tmp_path):
    row = {
        "article_id": 1,
        "original_url": "u",
        "archive_url": "a",
        "parsed_text": "First para.\nSecond para.",
        "parsed_md": None,
    }
    [doc] = read_documents(
        write_lines(tmp_path / "d.jsonl", json.dumps(row)), split_passages=lambda t: t.split("\n")
    )
    assert doc.passages == ("First para.", "Second para.")
    with pytest.raises(DatasetError, match="missing field 'parsed_text'"):
        read_documents(
            write_lines(
                tmp_path / "e.jsonl", json.dumps({"article_id": 1, "original_url": "u", "archive_url": "a"})
            )
        )


def test_predictions_round_trip(tmp_path):
    pred = Prediction(
        3, "bm25+lead", "Do it.", (UsedPassage("http://w/a", 2, 1, "Do it now.", 1.5),), {"k": 3}
    )
    write_predictions(tmp_path / "p.jsonl", [pred])
    assert read_predictions(tmp_path / "p.jsonl") == [pred]


def test_atomic_write_leaves_the_old_file_when_the_writer_crashes(tmp_path):
    target = tmp_path / "qa.jsonl"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_write(target) as fh:
        fh.write("half of the new")
        raise RuntimeError("crash")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["qa.jsonl"]


def test_dataset_folder_is_written_whole_or_not_at_all(tmp_path):
    def broken_documents():
        yield Document(1, "u", "a", "text")
        raise RuntimeError("crash while writing")

    with pytest.raises(RuntimeError):
        write_dataset_folder(tmp_path / "ds", [Example(1, "q", "a", ())], broken_documents(), {})
    assert not (tmp_path / "ds").exists()
    assert list(tmp_path.iterdir()) == []


def test_written_files_get_ordinary_permissions(tmp_path):
    import os
    import stat

    folder = write_dataset_folder(tmp_path / "ds", [Example(1, "q", "a", ())], [], {})
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(folder.qa_path.stat().st_mode) == 0o666 & ~umask
    assert stat.S_IMODE(folder.path.stat().st_mode) == 0o777 & ~umask


def test_dataset_folder_refuses_to_overwrite_unless_asked(tmp_path):
    write_dataset_folder(tmp_path / "ds", [Example(1, "q", "a", ())], [], {"n": 1})
    with pytest.raises(DatasetError, match="not empty"):
        write_dataset_folder(tmp_path / "ds", [Example(2, "q", "a", ())], [], {})
    folder = write_dataset_folder(tmp_path / "ds", [Example(2, "q", "a", ())], [], {"n": 2}, overwrite=True)
    assert [e.article_id for e in folder.examples()] == [2]
    assert folder.manifest() == {"n": 2}


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_regular_file_as_dataset_folder_is_refused_and_kept(tmp_path, overwrite):
    target = tmp_path / "notes.txt"
    target.write_text("mine\n")
    with pytest.raises(DatasetError, match=r"notes\.txt: exists and is a file, not a folder"):
        write_dataset_folder(target, [Example(1, "q", "a", ())], [], {}, overwrite=overwrite)
    assert target.read_text() == "mine\n"
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_dataset_folder_filters_by_split_and_groups_documents(tmp_path):
    folder = write_dataset_folder(
        tmp_path / "ds",
        [Example(1, "q1", "a", (), "train"), Example(2, "q2", "a", (), "test")],
        [Document(2, "u1", "a1", "t1"), Document(1, "u2", "a2", "t2"), Document(2, "u3", "a3", "t3")],
        {},
    )
    assert [e.article_id for e in folder.examples("test")] == [2]
    assert [d.original_url for d in folder.documents_by_article()[2]] == ["u1", "u3"]
    only_test = folder.documents_by_article({2})  # a split's documents, read one at a time
    assert list(only_test) == [2] and [d.original_url for d in only_test[2]] == ["u1", "u3"]
    with pytest.raises(DatasetError, match="no such dataset folder"):
        DatasetFolder(tmp_path / "nope").examples()


# --------------------------------------------------------------------------- valid inputs that crashed


def _parquet_with(tmp_path, column, kind, value):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({**{k: [v] for k, v in GOOD.items()}, column: pa.array([value], type=kind)})
    pq.write_table(table, tmp_path / "qa.parquet")
    return tmp_path / "qa.parquet"


@pytest.mark.parametrize(
    ("kind", "value", "text"),
    [
        (
            "timestamp[us, tz=UTC]",
            "2020-01-02T03:04:05.123456+00:00",
            "2020-01-02T03:04:05.123456+00:00",
        ),
        ("timestamp[ns]", 1577934245123456789, "2020-01-02T03:04:05.123456789"),
        ("date32", "2020-01-02", "2020-01-02"),
        ("decimal128(20, 6)", "12.345600", "12.345600"),
        ("binary", b"\x00\xffab", "AP9hYg=="),
        ("duration[ms]", 3005, "PT3.005S"),
    ],
)
def test_parquet_columns_json_has_no_type_for_are_kept_exactly_as_text(tmp_path, kind, value, text):
    """A timestamp, decimal or binary extra column was "not JSON serializable" at write time."""
    import base64
    import datetime
    import decimal

    import pyarrow as pa

    types = {
        "timestamp[us, tz=UTC]": pa.timestamp("us", tz="UTC"),
        "timestamp[ns]": pa.timestamp("ns"),
        "date32": pa.date32(),
        "decimal128(20, 6)": pa.decimal128(20, 6),
        "binary": pa.binary(),
        "duration[ms]": pa.duration("ms"),
    }
    convert = {
        "timestamp[us, tz=UTC]": datetime.datetime.fromisoformat,
        "date32": datetime.date.fromisoformat,
        "decimal128(20, 6)": decimal.Decimal,
    }
    raw = convert.get(kind, lambda v: v)(value)
    [example] = read_examples(_parquet_with(tmp_path, "extra_col", types[kind], raw))
    assert example.extra["extra_col"] == text
    write_examples(tmp_path / "out.jsonl", [example])
    assert json.loads((tmp_path / "out.jsonl").read_text())["extra_col"] == text
    if kind == "binary":
        assert base64.b64decode(text) == value
    if kind == "decimal128(20, 6)":
        assert decimal.Decimal(text) == raw and text == str(raw)


def test_a_nested_parquet_column_is_converted_inside_lists_and_structs(tmp_path):
    import datetime

    import pyarrow as pa

    kind = pa.list_(pa.struct([("at", pa.timestamp("s")), ("n", pa.int64())]))
    value = [{"at": datetime.datetime(2021, 5, 6, 7, 8, 9), "n": 3}]
    [example] = read_examples(_parquet_with(tmp_path, "events", kind, value))
    assert example.extra["events"] == [{"at": "2021-05-06T07:08:09", "n": 3}]


@pytest.mark.parametrize(
    ("tail", "message"),
    [
        ('"x": "ok \\ud800 broken"', r"field 'x' \(character 4: \\ud800\) holds a lone surrogate"),
        ('"x": ["a", {"y": "\\udfff"}]', r"field 'x'\[1\]\['y'\] \(character 1: \\udfff\) holds a lone"),
        ('"x": ' + "9" * 5000, "an integer with more than 4300 digits, which Python does not read"),
        ('"x": ' + "[" * 100_000 + "]" * 100_000, "JSON nested too deeply"),
    ],
)
def test_json_lines_python_cannot_hold_are_refused_with_file_and_line(tmp_path, tail, message):
    line = json.dumps(GOOD)[:-1] + ", " + tail + "}"
    path = write_lines(tmp_path / "qa.jsonl", json.dumps(GOOD), line)
    with pytest.raises(DatasetError, match=rf"qa\.jsonl:2: {message}"):
        read_examples(path)


def test_a_valid_surrogate_pair_and_an_escaped_backslash_u_are_read_as_text(tmp_path):
    line = json.dumps({**GOOD, "x": "\U0001f642", "y": "\\ud800"})  # the emoji is written as a pair
    assert "\\ud83d\\ude42" in line
    [example] = read_examples(write_lines(tmp_path / "qa.jsonl", line))
    assert example.extra == {"x": "\U0001f642", "y": "\\ud800"}


def test_documents_are_read_back_at_the_byte_offsets_of_their_lines(tmp_path):
    """A file with a byte order mark, a blank line and non-ASCII text: each document read by seeking to its
    line's offset is the one the whole-file reader gives on that line, in whatever order asked."""
    from wikihowqa.dataset.codecs import document_from_dict
    from wikihowqa.dataset.readers import documents_at, iter_records, jsonl_line_offsets

    path = tmp_path / "documents.jsonl"
    rows = [
        {
            "article_id": 1,
            "original_url": "https://a.example",
            "archive_url": "http://w/a",
            "parsed_text": "Été.",
        },
        {
            "article_id": 2,
            "original_url": "https://b.example",
            "archive_url": "http://w/b",
            "parsed_text": "B.",
        },
        {
            "article_id": 1,
            "original_url": "https://c.example",
            "archive_url": "http://w/c",
            "parsed_text": "C ✓.",
        },
    ]
    lines = [
        json.dumps(rows[0], ensure_ascii=False),
        "",
        json.dumps(rows[1]),
        json.dumps(rows[2], ensure_ascii=False),
    ]
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode() + b"\n")
    read = dict(iter_records(path, document_from_dict))
    assert sorted(read) == [1, 3, 4]
    offsets = jsonl_line_offsets(path, {1, 4})
    assert offsets == {1: 0, 4: len(b"\xef\xbb\xbf" + "\n".join(lines[:3]).encode() + b"\n")}
    assert list(documents_at(path, [offsets[4], offsets[1]])) == [read[4], read[1]]


def test_a_split_s_documents_can_be_read_for_their_passages_alone(tmp_path):
    docs = [
        Document(7, "https://a.example/", "https://web.archive.org/web/1/https://a.example/", "Text one.",
                 "# One", "One", ("Passage one.",), {"parse": {"page_type": "article"}}),
        Document(8, "https://b.example/", "https://web.archive.org/web/1/https://b.example/", "Text two.",
                 passages=("Passage two.",)),
    ]  # fmt: skip
    ex = [Example(7, "How to a", "A.", (), split="test"), Example(8, "How to b", "B.", (), split="train")]
    folder = write_dataset_folder(tmp_path / "d", ex, docs, {})
    slim = folder.documents_by_article({7}, texts=False)
    assert list(slim) == [7]
    (doc,) = slim[7]
    assert doc.passages == ("Passage one.",) and doc.archive_url == docs[0].archive_url
    assert (doc.parsed_text, doc.parsed_md, doc.extra) == ("", None, {})
    assert folder.documents_by_article({7})[7] == [docs[0]]  # by default, whole
