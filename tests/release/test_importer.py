"""Importing the official release: the three real instances survive every conversion exactly."""

from __future__ import annotations

import json

import pytest

from wikihowqa.core.errors import DatasetError
from wikihowqa.dataset.folder import DatasetFolder
from wikihowqa.release.importer import import_release, split_from_filename


def rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_real_examples_round_trip_jsonl_parquet_jsonl(tmp_path, real_examples_dir):
    src_qa, src_docs = real_examples_dir / "qa.jsonl", real_examples_dir / "documents.jsonl"
    first, _ = import_release([src_qa], [src_docs], tmp_path / "jsonl")
    as_parquet, _ = import_release(
        [first.qa_path], [first.documents_path], tmp_path / "parquet", fmt="parquet"
    )
    assert as_parquet.qa_path.suffix == ".parquet"
    back, _ = import_release([as_parquet.qa_path], [as_parquet.documents_path], tmp_path / "back")

    assert rows(back.qa_path) == rows(first.qa_path) == rows(src_qa)
    assert rows(back.documents_path) == rows(first.documents_path)
    # Every field the release file had is kept with its exact value; parsed_text is added.
    for original, imported in zip(rows(src_docs), rows(first.documents_path), strict=True):
        assert {k: imported[k] for k in original} == original
        assert imported["parsed_text"] == "\n\n".join(original["passages"])


def test_split_comes_from_the_file_name_when_rows_lack_it(tmp_path):
    path = tmp_path / "wiki_how_nfqa-valid.jsonl"
    path.write_text(
        json.dumps(
            {"article_id": 1, "question": "q", "answer": "a", "related_document_urls_wayback_snapshots": []}
        )
        + "\n"
    )
    folder, manifest = import_release([path], [], tmp_path / "ds")
    assert [e.split for e in folder.examples()] == ["validation"]
    assert manifest["counts"]["splits"] == {"validation": 1}
    assert split_from_filename(tmp_path / "0000.parquet") is None
    assert split_from_filename(tmp_path / "wiki_how_nfqa-test.parquet") == "test"


def test_duplicate_article_ids_are_refused(tmp_path, real_examples_dir):
    with pytest.raises(DatasetError, match="appears twice"):
        import_release([real_examples_dir / "qa.jsonl", real_examples_dir / "qa.jsonl"], [], tmp_path / "ds")
    assert not (tmp_path / "ds").exists()


def test_imported_folder_loads_with_hugging_face_datasets(tmp_path, real_examples_dir):
    datasets = pytest.importorskip("datasets")
    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "ds"
    )
    qa = datasets.load_dataset(
        "json", data_files=str(folder.qa_path), split="train", cache_dir=str(tmp_path / "cache")
    )
    docs = datasets.load_dataset(
        "json", data_files=str(folder.documents_path), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert qa.num_rows == 3 and set(qa.column_names) >= {
        "article_id",
        "question",
        "answer",
        "split",
        "cluster",
    }
    assert sorted(qa["split"]) == ["test", "train", "train"]
    assert docs.num_rows == 16 and isinstance(docs[0]["passages"], list)
    assert DatasetFolder(folder.path).examples()[0].question == qa[0]["question"]


# --------------------------------------------------------------------------- the document-enriched form


def enriched(real_examples_dir, *, urls_inside: bool = True, keep_url_of: int = 0) -> list[dict]:
    """The three real instances as public research code reads them: every value of the URL list a JSON
    string of its document, with ``parsed_text`` an object ``{title, passages}`` (the last ``keep_url_of``
    values of each left as plain URLs)."""
    docs = {(d["article_id"], d["archive_url"]): d for d in rows(real_examples_dir / "documents.jsonl")}
    out = []
    for example in rows(real_examples_dir / "qa.jsonl"):
        urls = example["related_document_urls_wayback_snapshots"]
        values = []
        for i, url in enumerate(urls):
            if i >= len(urls) - keep_url_of:
                values.append(url)
                continue
            doc = docs[(example["article_id"], url)]
            inner = {"parsed_text": {"title": doc["title"], "passages": doc["passages"]}}
            if urls_inside:
                inner = {"original_url": doc["original_url"], "archive_url": url, **inner}
            values.append(json.dumps(inner, ensure_ascii=False))
        out.append({**example, "related_document_urls_wayback_snapshots": values})
    return out


def write_rows(path, items):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
    return path


def _by_place(path):
    return sorted(rows(path), key=lambda d: (d["article_id"], d["archive_url"]))


@pytest.mark.parametrize("keep_url_of", [0, 2])
def test_the_document_enriched_form_of_the_real_instances_imports_their_documents(
    tmp_path, real_examples_dir, keep_url_of
):
    """It imported "3 questions and 0 documents" and kept the JSON strings as if they were URLs."""
    src = write_rows(tmp_path / "enriched.jsonl", enriched(real_examples_dir, keep_url_of=keep_url_of))
    plain, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "plain"
    )
    folder, manifest = import_release([src], [], tmp_path / "from-enriched")
    assert rows(folder.qa_path) == rows(plain.qa_path)  # the URL list is the release's again
    expected = [d for d in _by_place(plain.documents_path)]
    if keep_url_of:  # documents the QA part left as plain URLs are not in it
        qa = {e["article_id"]: e["related_document_urls_wayback_snapshots"] for e in rows(plain.qa_path)}
        expected = [d for d in expected if d["archive_url"] not in qa[d["article_id"]][-keep_url_of:]]
    assert _by_place(folder.documents_path) == expected
    assert manifest["counts"]["documents"] == manifest["counts"]["documents_in_qa_part"] == len(expected)


def test_enriched_documents_without_an_address_get_a_tag_uri_not_a_made_up_url(tmp_path, real_examples_dir):
    src = write_rows(tmp_path / "enriched.jsonl", enriched(real_examples_dir, urls_inside=False))
    folder, _ = import_release([src], [], tmp_path / "ds")
    documents = folder.documents_by_article()
    first = folder.examples()[0]
    ids = first.related_document_urls_wayback_snapshots
    assert ids[0] == f"tag:wikihowqa,2023:document/{first.article_id}/0"
    assert [d.archive_url for d in documents[first.article_id]] == list(ids)
    real = {d["archive_url"]: d for d in rows(real_examples_dir / "documents.jsonl")}
    original = real[rows(real_examples_dir / "qa.jsonl")[0]["related_document_urls_wayback_snapshots"][0]]
    doc = documents[first.article_id][0]
    assert (doc.title, list(doc.passages)) == (original["title"], original["passages"])
    assert doc.parsed_text == "\n\n".join(original["passages"]) and doc.original_url == ""


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("not a url", r"\[1\] is neither a URL nor a document: 'not a url'"),
        ("web.archive.org/web/2020/x.org", r"\[1\] is neither a URL nor a document: 'web\.archive"),
        ('{"parsed_text": {"title": "t"', r"\[1\] is neither a URL nor a document \(invalid JSON: "),
        ("[1, 2]", r"\[1\] is neither a URL nor a document: '\[1, 2\]'"),
        ('{"parsed_text": {"title": "t", "passages": "one"}}', r"\[1\]: field 'passages' must be a list of"),
        (
            '{"parsed_text": {"title": "t", "passages": []}}',
            r"\[1\]: field 'parsed_text' is an object without",
        ),
        ('{"title": "t"}', r"\[1\]: a document without 'parsed_text'"),
        ('{"archive_url": "n/a", "passages": ["p"]}', r"\[1\]: the document's address 'n/a' is not a URL"),
    ],
)
def test_a_value_that_is_neither_a_url_nor_a_document_is_refused_with_file_and_line(
    tmp_path, real_examples_dir, value, problem
):
    examples = enriched(real_examples_dir)
    values = examples[1]["related_document_urls_wayback_snapshots"]
    examples[1]["related_document_urls_wayback_snapshots"] = [values[0], value, *values[2:]]
    src = write_rows(tmp_path / "enriched.jsonl", examples)
    with pytest.raises(
        DatasetError, match=rf"enriched\.jsonl:2: related_document_urls_wayback_snapshots{problem}"
    ):
        import_release([src], [], tmp_path / "ds")
    assert not (tmp_path / "ds").exists()


def test_a_document_part_with_parsed_text_as_an_object_is_read(tmp_path, real_examples_dir):
    docs = rows(real_examples_dir / "documents.jsonl")
    shaped = [
        {**{k: v for k, v in d.items() if k not in ("title", "passages")},
         "parsed_text": {"title": d["title"], "passages": d["passages"], "lang": "en"}}
        for d in docs
    ]  # fmt: skip
    src = write_rows(tmp_path / "documents.jsonl", shaped)
    folder, _ = import_release([real_examples_dir / "qa.jsonl"], [src], tmp_path / "ds")
    plain, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "plain"
    )
    got = rows(folder.documents_path)
    assert [{k: v for k, v in d.items() if k != "parsed_text_fields"} for d in got] == rows(
        plain.documents_path
    )
    assert got[0]["parsed_text_fields"] == {"lang": "en"}


def test_the_enriched_form_in_parquet_imports_the_same(tmp_path, real_examples_dir):
    import pyarrow as pa
    import pyarrow.parquet as pq

    items = enriched(real_examples_dir)
    pq.write_table(pa.Table.from_pylist(items), tmp_path / "enriched.parquet")
    from_jsonl, _ = import_release([write_rows(tmp_path / "e.jsonl", items)], [], tmp_path / "a")
    from_parquet, _ = import_release([tmp_path / "enriched.parquet"], [], tmp_path / "b")
    assert rows(from_parquet.qa_path) == rows(from_jsonl.qa_path)
    assert rows(from_parquet.documents_path) == rows(from_jsonl.documents_path)


# --------------------------------------------------------------------------- rows that are not benchmark rows


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("question", "", "field 'question' (the question) is empty"),
        ("question", " \t", "field 'question' (the question) is blank (only whitespace)"),
        ("answer", "", "field 'answer' (the gold answer) is empty"),
        ("answer", "\n  ", "field 'answer' (the gold answer) is blank (only whitespace)"),
    ],
)
def test_an_empty_question_or_a_blank_gold_answer_is_refused_with_file_and_line(
    tmp_path, real_examples_dir, field, value, problem
):
    """Both were imported as if they were benchmark rows."""
    items = rows(real_examples_dir / "qa.jsonl")
    items[1][field] = value
    src = write_rows(tmp_path / "qa.jsonl", items)
    with pytest.raises(DatasetError) as caught:
        import_release([src], [], tmp_path / "ds")
    assert str(caught.value) == f"{src}:2: {problem}"
    assert not (tmp_path / "ds").exists()


def test_a_blank_gold_answer_in_parquet_is_refused_with_its_row(tmp_path, real_examples_dir):
    import pyarrow as pa
    import pyarrow.parquet as pq

    items = rows(real_examples_dir / "qa.jsonl")
    items[2]["answer"] = " "
    pq.write_table(pa.Table.from_pylist(items), tmp_path / "qa.parquet")
    with pytest.raises(
        DatasetError, match=r"qa\.parquet: row 3: field 'answer' \(the gold answer\) is blank"
    ):
        import_release([tmp_path / "qa.parquet"], [], tmp_path / "ds")


def test_a_repeated_article_id_names_the_line_of_each_row(tmp_path, real_examples_dir):
    """It named the file only ("qa.jsonl: article_id 7 appears twice")."""
    items = rows(real_examples_dir / "qa.jsonl")
    items.append({**items[0], "question": "How To Seal Concrete Floors Again"})
    src = write_rows(tmp_path / "qa.jsonl", items)
    with pytest.raises(DatasetError) as caught:
        import_release([src], [], tmp_path / "ds")
    assert str(caught.value) == f"{src}:4: article_id 704295 appears twice (first at {src}:1)"


def test_a_url_cited_twice_by_one_question_is_kept_once_and_counted(tmp_path, real_examples_dir):
    """Kept twice, the document counted twice in retrieval and grounding."""
    items = rows(real_examples_dir / "qa.jsonl")
    urls = items[0]["related_document_urls_wayback_snapshots"]
    items[0]["related_document_urls_wayback_snapshots"] = [urls[0], urls[1], urls[0], *urls[2:], urls[1]]
    items[1]["related_document_urls_wayback_snapshots"].append(urls[0])  # another question may cite it
    src = write_rows(tmp_path / "qa.jsonl", items)
    folder, manifest = import_release([src], [], tmp_path / "ds")
    imported = rows(folder.qa_path)
    assert imported[0]["related_document_urls_wayback_snapshots"] == urls
    assert imported[1]["related_document_urls_wayback_snapshots"][-1] == urls[0]
    counts = manifest["counts"]
    assert (counts["repeated_citations_removed"], counts["questions_with_repeated_citations"]) == (2, 1)


def test_a_document_cited_twice_in_the_enriched_form_is_imported_once(tmp_path, real_examples_dir):
    items = enriched(real_examples_dir)
    values = items[2]["related_document_urls_wayback_snapshots"]
    items[2]["related_document_urls_wayback_snapshots"] = [*values, values[3]]
    folder, manifest = import_release([write_rows(tmp_path / "e.jsonl", items)], [], tmp_path / "ds")
    plain, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "plain"
    )
    assert _by_place(folder.documents_path) == _by_place(plain.documents_path)
    assert manifest["counts"]["repeated_citations_removed"] == 1


# --------------------------------------------------------------------------- release artefacts


def test_backslash_escaped_quotes_are_counted_and_kept_as_released(tmp_path, real_examples_dir):
    """The real instance 930014 answers "a friend\\'s house": six such escapes, in one row."""
    src = real_examples_dir / "qa.jsonl"
    folder, manifest = import_release([src], [], tmp_path / "ds")
    assert manifest["release_artefacts"]["escaped_quotes"] == {
        "rows": 1, "escapes": 6, "by_field": {"answer": 6}, "cleaned": False,
    }  # fmt: skip
    assert rows(folder.qa_path) == rows(src)


def test_clean_removes_the_escapes_and_nothing_else_and_records_the_count(tmp_path, real_examples_dir):
    src = real_examples_dir / "qa.jsonl"
    folder, manifest = import_release([src], [], tmp_path / "ds", clean=True)
    assert manifest["release_artefacts"]["escaped_quotes"]["cleaned"] is True
    assert manifest["release_artefacts"]["escaped_quotes"]["escapes"] == 6
    released, cleaned = rows(src), rows(folder.qa_path)
    assert "at a friend's house, wait until they're in a good mood" in cleaned[2]["answer"]
    assert "\\" not in cleaned[2]["answer"]
    assert cleaned[2]["answer"] == released[2]["answer"].replace("\\'", "'")
    assert "\"My friend's birthday is tomorrow" in cleaned[2]["answer"]  # its double quotes stay
    assert cleaned[:2] == released[:2] and {**cleaned[2], "answer": None} == {**released[2], "answer": None}


@pytest.mark.parametrize(
    ("text", "repaired", "count"),
    [
        ("a friend\\'s house", "a friend's house", 1),
        ('she said \\"no\\"', 'she said "no"', 2),
        ("it\\\\'s", "it's", 1),  # a doubly escaped quote: one artefact
        ("C:\\Users\\me and a \\ alone", "C:\\Users\\me and a \\ alone", 0),  # other backslashes are text
    ],
)
def test_only_backslashes_before_a_quote_are_artefacts(text, repaired, count):
    from wikihowqa.core.records import Example
    from wikihowqa.release.importer import escapes_in, without_escapes

    example = Example(1, text, text, ())
    assert escapes_in(example) == ({"question": count, "answer": count} if count else {})
    assert without_escapes(example) == Example(1, repaired, repaired, ())


# --------------------------------------------------------------------------- from the Hub


@pytest.fixture
def hub(real_examples_dir, monkeypatch, tmp_path):
    """The release's repository on a loopback Hub: the JSONL on main; its Parquet conversion (rows without a
    split, as the loader's features may have it) in default/{train,valid,test}/, with one more question in
    valid, the loader's name for validation."""
    from tests.hub_server import REPO, HubServer, go_online, release_repo

    items = rows(real_examples_dir / "qa.jsonl")
    bare = [{k: v for k, v in r.items() if k != "split"} for r in items]
    extra = {**bare[0], "article_id": 1, "question": "How To Seal a Garage Floor"}
    conversion = {
        "train": [b for b, r in zip(bare, items, strict=True) if r["split"] == "train"],
        "valid": [extra],
        "test": [b for b, r in zip(bare, items, strict=True) if r["split"] == "test"],
    }
    with HubServer({REPO: release_repo((real_examples_dir / "qa.jsonl").read_bytes(), conversion)}) as server:
        go_online(monkeypatch, server.url, tmp_path / "cache")
        yield server


def test_import_hub_imports_the_jsonl_of_main_as_qa_does_and_records_its_commit(
    hub, tmp_path, real_examples_dir
):
    from tests.hub_server import REPO
    from wikihowqa.release.importer import import_hub

    folder, manifest = import_hub(REPO, tmp_path / "ds", cache_dir=tmp_path / "cache", clean=True)
    local, _ = import_release([real_examples_dir / "qa.jsonl"], [], tmp_path / "local", clean=True)
    assert rows(folder.qa_path) == rows(local.qa_path)
    assert manifest["origin"]["hub"] == {
        "repo_id": REPO,
        "repo_type": "dataset",
        "revision": "main",
        "commit": hub.commit(REPO, "main"),
        "endpoint": hub.url,
        "form": "jsonl",
        "files": ["WikiHowNFQA.jsonl"],
    }
    assert manifest["counts"]["splits"] == {"train": 2, "test": 1}
    assert manifest["release_artefacts"]["escaped_quotes"]["escapes"] == 6


def test_import_hub_reads_the_parquet_conversion_with_valid_as_validation(hub, tmp_path, real_examples_dir):
    from tests.hub_server import PARQUET_REVISION, REPO
    from wikihowqa.release.importer import import_hub

    folder, manifest = import_hub(
        REPO, tmp_path / "ds", revision=PARQUET_REVISION, cache_dir=tmp_path / "cache"
    )
    local, _ = import_release([real_examples_dir / "qa.jsonl"], [], tmp_path / "local")
    imported = {r["article_id"]: r for r in rows(folder.qa_path)}
    assert {i: imported[i] for i in (704295, 1366001, 930014)} == {
        r["article_id"]: r for r in rows(local.qa_path)
    }
    assert imported[1]["split"] == "validation"
    assert manifest["origin"]["hub"]["commit"] == hub.commit(REPO, PARQUET_REVISION)
    assert manifest["origin"]["hub"]["files"] == [
        "default/test/0000.parquet", "default/train/0000.parquet", "default/valid/0000.parquet",
    ]  # fmt: skip
    assert manifest["counts"]["splits"] == {"test": 1, "train": 2, "validation": 1}


def test_the_split_of_a_hub_file_comes_from_its_name_or_its_folder():
    from wikihowqa.release.importer import split_from_repo_path

    assert split_from_repo_path("default/valid/0000.parquet") == "validation"
    assert split_from_repo_path("default/train/0001.parquet") == "train"
    assert split_from_repo_path("default/wiki_how_nfqa-test.parquet") == "test"
    assert split_from_repo_path("default/partial-train/0000.parquet") == "train"
    assert split_from_repo_path("WikiHowNFQA.jsonl") is None


def test_files_saved_with_a_utf8_byte_order_mark_import_as_without_it(tmp_path, real_examples_dir):
    """Windows tools and some editors open a UTF-8 file with the mark EF BB BF; it is not JSON."""
    plain, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "plain"
    )
    marked = []
    for name in ("qa.jsonl", "documents.jsonl"):
        marked.append(tmp_path / name)
        marked[-1].write_bytes(b"\xef\xbb\xbf" + (real_examples_dir / name).read_bytes())
    folder, manifest = import_release([marked[0]], [marked[1]], tmp_path / "marked")
    assert rows(folder.qa_path) == rows(plain.qa_path) and len(rows(folder.qa_path)) == 3
    assert rows(folder.documents_path) == rows(plain.documents_path)
    assert manifest["counts"]["questions"] == 3


def test_a_byte_order_mark_inside_a_file_is_named_with_its_line(tmp_path, real_examples_dir):
    lines = (real_examples_dir / "qa.jsonl").read_bytes().splitlines(keepends=True)
    joined = tmp_path / "qa.jsonl"
    joined.write_bytes(lines[0] + b"\xef\xbb\xbf" + lines[1])  # two files, each with its mark, joined
    with pytest.raises(DatasetError) as caught:
        import_release([joined], [], tmp_path / "ds")
    assert str(caught.value).startswith(f"{joined}:2: a byte order mark (U+FEFF) starts this line")
