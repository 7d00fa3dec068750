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
