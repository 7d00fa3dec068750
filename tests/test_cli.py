"""The command line: user mistakes are one line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys


def run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "wikihowqa", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


def test_version_and_help():
    from wikihowqa import __version__

    assert run("--version").stdout.strip() == f"wikihowqa {__version__}"
    assert "import" in run("--help").stdout


def test_a_broken_input_file_is_one_line_naming_file_and_line(tmp_path):
    bad = tmp_path / "qa.jsonl"
    bad.write_text('{"article_id": 1}\n')
    result = run("import", str(tmp_path / "out"), "--qa", str(bad))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "qa.jsonl:1: missing field 'question'" in lines[0]
    assert not (tmp_path / "out").exists()


def test_import_writes_a_dataset_folder(tmp_path, real_examples_dir):
    result = run(
        "import",
        str(tmp_path / "ds"),
        "--qa",
        str(real_examples_dir / "qa.jsonl"),
        "--documents",
        str(real_examples_dir / "documents.jsonl"),
    )
    assert result.returncode == 0, result.stderr
    assert "imported 3 questions and 16 documents" in result.stdout
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert manifest["counts"]["questions"] == 3


def test_error_text_is_printed_verbatim_not_as_rich_markup(tmp_path):
    """File names hold "[...]"; the error line must show them as they are, not parse them as styles."""
    missing = run("import", "o6", "--qa", "missing[/].jsonl", cwd=tmp_path)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert missing.stderr.strip() == "error: missing[/].jsonl: no such file"

    (tmp_path / "qa[red].jsonl").write_text("{bad\n")
    broken = run("import", "o7", "--qa", "qa[red].jsonl", cwd=tmp_path)
    assert broken.returncode == 2
    assert broken.stderr.startswith("error: qa[red].jsonl:1: invalid JSON")


def test_import_names_a_bracketed_output_folder_verbatim(tmp_path, real_examples_dir):
    result = run("import", "ds[bold]", "--qa", str(real_examples_dir / "qa.jsonl"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "imported 3 questions and 0 documents into ds[bold]"


def test_demo_table_shows_bracketed_paths_verbatim(tmp_path, monkeypatch):
    """The closing table prints what the steps recorded as text; only the steps are faked here."""
    from rich.console import Console
    from typer.testing import CliRunner

    import wikihowqa.cli.demo as demo_cli
    import wikihowqa.demo.run as demo_run
    from wikihowqa.cli import app

    def fake_run_demo(out, *, progress):
        ctx = demo_run.DemoContext(out=out.resolve())
        progress("step [one]")
        ctx.record("what [/]", ctx.out / "part[red]", "3 [b]items[/b]")
        return ctx

    monkeypatch.setattr(demo_run, "run_demo", fake_run_demo)
    monkeypatch.setattr(demo_cli, "out", Console(width=400))
    monkeypatch.setattr(demo_cli, "console", Console(width=400))
    result = CliRunner().invoke(app, ["demo", "--out", str(tmp_path / "d[x]")])
    assert result.exit_code == 0, result.output
    assert "› step [one]" in result.output
    # The title wraps to the table's width: compare it without the white space.
    assert f"wikihowqademo→{tmp_path / 'd[x]'}" in "".join(result.output.split())
    for cell in ("what [/]", "part[red]", "3 [b]items[/b]"):
        assert cell in result.output


def test_import_into_an_existing_file_is_one_line_of_error(tmp_path, real_examples_dir):
    (tmp_path / "afile").write_text("keep me\n")
    result = run("import", "afile", "--qa", str(real_examples_dir / "qa.jsonl"), cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert (
        result.stderr.strip()
        == "error: afile: exists and is a file, not a folder (choose a new or empty folder)"
    )
    assert (tmp_path / "afile").read_text() == "keep me\n"


def test_import_to_parquet_with_a_mixed_type_field_names_the_field(tmp_path):
    row = {"article_id": 1, "question": "q", "answer": "a", "related_document_urls_wayback_snapshots": []}
    (tmp_path / "qa.jsonl").write_text(
        json.dumps({**row, "x": 1}) + "\n" + json.dumps({**row, "article_id": 2, "x": "a"}) + "\n"
    )
    result = run("import", "pq", "--qa", "qa.jsonl", "--format", "parquet", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("error: qa.parquet: field 'x' mixes value types (int in row 1, str in row 2)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qa.jsonl"]


def test_a_broken_document_line_is_one_line_naming_the_documents_file(tmp_path, real_examples_dir):
    docs = tmp_path / "documents.jsonl"
    good = (real_examples_dir / "documents.jsonl").read_text().splitlines()[0]
    docs.write_text(good + "\n" + json.dumps({**json.loads(good), "passages": "one string"}) + "\n")
    result = run(
        "import", "out", "--qa", str(real_examples_dir / "qa.jsonl"), "--documents", str(docs), cwd=tmp_path
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (f"error: {docs}:2: field 'passages' must be a list of strings, got str")
    assert not (tmp_path / "out").exists()
