"""``wikihowqa parse``: a thin command over reparse_folder; user mistakes are one-line errors."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wikihowqa.cli import app
from wikihowqa.io import read_documents
from wikihowqa.records import Document, Example

from .test_stage import make_dataset


def test_parse_command_reparses_from_a_raw_folder(tmp_path, fixture_bytes):
    folder, raw = make_dataset(tmp_path, {"tents": fixture_bytes("table_article.html")})
    result = CliRunner().invoke(
        app, ["parse", str(folder.path), "--raw", str(raw), "--workers", "1", "--max-words", "30"]
    )
    assert result.exit_code == 0, result.output
    assert "parsed 1 documents" in result.output and "truncated (kept): 0" in result.output
    doc = next(d for d in read_documents(folder.documents_path) if d.original_url.endswith("tents"))
    assert "| Dome | 1.8 kg | Exposed, windy campsites |" in doc.parsed_md
    assert all(len(p.split()) <= 30 for p in doc.passages)
    assert json.loads((folder.path / "manifest.json").read_text())["parse"]["settings"]["max_words"] == 30


def test_parse_command_without_raw_snapshots_names_the_problem(tmp_path):
    from wikihowqa.errors import DatasetError
    from wikihowqa.io import write_dataset_folder

    doc = Document(
        1, "https://a.example/", "https://web.archive.org/web/20200101000000/https://a.example/", "t"
    )
    folder = write_dataset_folder(
        tmp_path / "ds", [Example(1, "q", "a", (doc.archive_url,), "train", 0)], [doc], {}
    )
    result = CliRunner().invoke(app, ["parse", str(folder.path)])
    assert isinstance(result.exception, DatasetError) and "build.sqlite" in str(result.exception)


def test_bad_option_values_are_refused(tmp_path):
    from wikihowqa.errors import SettingsError

    result = CliRunner().invoke(
        app, ["parse", str(tmp_path), "--pagination", "maybe", "--raw", str(tmp_path)]
    )
    assert isinstance(result.exception, SettingsError)
