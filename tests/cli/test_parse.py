"""``wikihowqa parse``: a thin command over reparse_folder; user mistakes are one-line errors."""

from __future__ import annotations

import json

from tests.parse.conftest import FIXTURES
from tests.parse.test_stage import make_dataset
from wikihowqa.core.records import Document, Example
from wikihowqa.dataset.folder import write_dataset_folder
from wikihowqa.dataset.readers import read_documents


def test_parse_command_reparses_from_a_raw_folder(cli, tmp_path):
    folder, raw = make_dataset(tmp_path, {"tents": (FIXTURES / "table_article.html").read_bytes()})
    result = cli("parse", folder.path, "--raw", raw, "--workers", "1", "--max-words", "30")
    assert result.exit_code == 0, result.output
    assert "parsed 1 documents" in result.output and "truncated (kept): 0" in result.output
    doc = next(d for d in read_documents(folder.documents_path) if d.original_url.endswith("tents"))
    assert "| Dome | 1.8 kg | Exposed, windy campsites |" in doc.parsed_md
    assert all(len(p.split()) <= 30 for p in doc.passages)
    assert json.loads((folder.path / "manifest.json").read_text())["parse"]["settings"]["max_words"] == 30


def test_parse_command_without_raw_snapshots_names_the_problem(cli, tmp_path):
    doc = Document(
        1, "https://a.example/", "https://web.archive.org/web/20200101000000/https://a.example/", "t"
    )
    folder = write_dataset_folder(
        tmp_path / "ds", [Example(1, "q", "a", (doc.archive_url,), "train", 0)], [doc], {}
    )
    result = cli("parse", folder.path)
    assert result.exit_code == 2 and len(result.lines) == 1 and "build.sqlite" in result.lines[0]


def test_bad_option_values_are_refused(cli, tmp_path):
    result = cli("parse", tmp_path, "--pagination", "maybe", "--raw", tmp_path)
    assert result.exit_code == 2 and result.lines[0].startswith("error: ") and "maybe" in result.stderr
