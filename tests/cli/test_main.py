"""The command line: user mistakes are one line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests import tiny_fs
from tests.release.test_importer import enriched, write_rows


def test_version_and_help(cli):
    """In a fresh interpreter, as installed (the other tests run the entry point in this process)."""
    from wikihowqa import __version__

    version = subprocess.run(
        [sys.executable, "-m", "wikihowqa", "--version"], capture_output=True, text=True, timeout=120
    )
    assert version.stdout.strip() == f"wikihowqa {__version__}"
    assert "import" in cli("--help").stdout


def test_a_broken_input_file_is_one_line_naming_file_and_line(cli, tmp_path):
    bad = tmp_path / "qa.jsonl"
    bad.write_text('{"article_id": 1}\n')
    result = cli("import", tmp_path / "out", "--qa", bad)
    assert result.exit_code == 2
    assert len(result.lines) == 1 and "qa.jsonl:1: missing field 'question'" in result.lines[0]
    assert not (tmp_path / "out").exists()


def test_import_writes_a_dataset_folder(cli, tmp_path, real_examples_dir):
    result = cli(
        "import",
        str(tmp_path / "ds"),
        "--qa",
        str(real_examples_dir / "qa.jsonl"),
        "--documents",
        str(real_examples_dir / "documents.jsonl"),
    )
    assert result.exit_code == 0, result.stderr
    assert "imported 3 questions and 16 documents" in result.stdout
    manifest = json.loads((tmp_path / "ds" / "manifest.json").read_text())
    assert manifest["counts"]["questions"] == 3


def test_import_counts_the_documents_of_the_enriched_form(cli, tmp_path, real_examples_dir):
    src = write_rows(tmp_path / "enriched.jsonl", enriched(real_examples_dir))
    result = cli("import", tmp_path / "ds", "--qa", src)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("imported 3 questions and 16 documents into ")


def test_error_text_is_printed_verbatim_not_as_rich_markup(cli, tmp_path):
    """File names hold "[...]"; the error line must show them as they are, not parse them as styles."""
    missing = cli("import", "o6", "--qa", "missing[/].jsonl", cwd=tmp_path)
    assert missing.exit_code == 2
    assert missing.stderr.strip() == "error: missing[/].jsonl: no such file"

    (tmp_path / "qa[red].jsonl").write_text("{bad\n")
    broken = cli("import", "o7", "--qa", "qa[red].jsonl", cwd=tmp_path)
    assert broken.exit_code == 2
    assert broken.stderr.startswith("error: qa[red].jsonl:1: invalid JSON")


def test_import_names_a_bracketed_output_folder_verbatim(cli, tmp_path, real_examples_dir):
    result = cli("import", "ds[bold]", "--qa", real_examples_dir / "qa.jsonl", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "imported 3 questions and 0 documents into ds[bold]"


def test_demo_table_shows_bracketed_paths_verbatim(cli, tmp_path, monkeypatch):
    """The closing table prints what the steps recorded as text; only the steps are faked here."""
    from rich.console import Console

    import wikihowqa.cli.demo as demo_cli
    import wikihowqa.demo.run as demo_run

    def fake_run_demo(out, *, progress):
        ctx = demo_run.DemoContext(out=out.resolve())
        progress("step [one]")
        ctx.record("what [/]", ctx.out / "part[red]", "3 [b]items[/b]")
        return ctx

    monkeypatch.setattr(demo_run, "run_demo", fake_run_demo)
    monkeypatch.setattr(demo_cli, "out", Console(width=400))
    monkeypatch.setattr(demo_cli, "console", Console(width=400))
    result = cli("demo", "--out", tmp_path / "d[x]")
    assert result.exit_code == 0, result.output
    assert "› step [one]" in result.output
    # The title wraps to the table's width: compare it without the white space.
    assert f"wikihowqademo→{tmp_path / 'd[x]'}" in "".join(result.output.split())
    for cell in ("what [/]", "part[red]", "3 [b]items[/b]"):
        assert cell in result.output


def test_import_into_an_existing_file_is_one_line_of_error(cli, tmp_path, real_examples_dir):
    (tmp_path / "afile").write_text("keep me\n")
    result = cli("import", "afile", "--qa", real_examples_dir / "qa.jsonl", cwd=tmp_path)
    assert result.exit_code == 2
    assert (
        result.stderr.strip()
        == "error: afile: exists and is a file, not a folder (choose a new or empty folder)"
    )
    assert (tmp_path / "afile").read_text() == "keep me\n"


def test_import_to_parquet_with_a_mixed_type_field_names_the_field(cli, tmp_path):
    row = {"article_id": 1, "question": "q", "answer": "a", "related_document_urls_wayback_snapshots": []}
    (tmp_path / "qa.jsonl").write_text(
        json.dumps({**row, "x": 1}) + "\n" + json.dumps({**row, "article_id": 2, "x": "a"}) + "\n"
    )
    result = cli("import", "pq", "--qa", "qa.jsonl", "--format", "parquet", cwd=tmp_path)
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: qa.parquet: field 'x' mixes value types (int in row 1, str in row 2)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["qa.jsonl"]


def test_a_broken_document_line_is_one_line_naming_the_documents_file(cli, tmp_path, real_examples_dir):
    docs = tmp_path / "documents.jsonl"
    good = (real_examples_dir / "documents.jsonl").read_text().splitlines()[0]
    docs.write_text(good + "\n" + json.dumps({**json.loads(good), "passages": "one string"}) + "\n")
    result = cli("import", "out", "--qa", real_examples_dir / "qa.jsonl", "--documents", docs, cwd=tmp_path)
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"error: {docs}:2: field 'passages' must be a list of strings, got str")
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- write failures


def _one_line(stderr: str) -> str:
    """The one error line (a progress bar's last state may precede it), with no traceback."""
    lines = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def _run_outcome(result) -> tuple[int, str]:
    """(exit status, stderr) of the command a tiny_fs script ran as its last step (``echo rc=$?``)."""
    match = re.search(r"rc=(\d+)", result.stdout)
    assert match, (result.stdout, result.stderr)
    return int(match.group(1)), result.stderr


def test_import_into_a_read_only_folder_is_one_line_naming_it(tmp_path, real_examples_dir):
    qa = real_examples_dir / "qa.jsonl"
    script = f'readonly\nwikihowqa import "$FS/ds" --qa {qa} && echo rc=0 || echo rc=$?'
    result = tiny_fs.run(tmp_path / "mnt", script)
    status, stderr = _run_outcome(result)
    assert status == 2
    assert _one_line(stderr) == f"error: {tmp_path / 'mnt' / 'ds'}: Read-only file system (EROFS)"


def test_import_onto_a_full_disk_is_one_line_naming_the_file_and_leaves_nothing(tmp_path, real_examples_dir):
    script = f"""
fill 16384
wikihowqa import "$FS/ds" --qa {real_examples_dir / "qa.jsonl"} \\
    --documents {real_examples_dir / "documents.jsonl"} && echo rc=0 || echo rc=$?
ls -A "$FS"
"""
    result = tiny_fs.run(tmp_path / "mnt", script, size="256k")
    status, stderr = _run_outcome(result)
    assert status == 2
    line = _one_line(stderr)
    folder = re.escape(str(tmp_path / "mnt" / "ds"))
    assert re.fullmatch(rf"error: {folder}/\w+\.jsonl: No space left on device \(ENOSPC\)", line), line
    assert result.stdout.split("rc=2")[1].split() == [".filler"]  # no half-written folder, no staging left


def test_build_onto_a_full_disk_is_one_line_naming_the_state_database(tmp_path):
    from wikihowqa.demo.paths import corpus_path
    from wikihowqa.replay import ReplaySite

    with ReplaySite(corpus_path()) as site:
        script = (
            f'wikihowqa build "$FS/ds" --api-url {site.mediawiki_url} --wayback-url {site.wayback_url} '
            "--mediawiki-rate 0 --cdx-rate 0 --playback-rate 0 --limit 6 && echo rc=0 || echo rc=$?"
        )
        result = tiny_fs.run(tmp_path / "mnt", script, size="400k")
    status, stderr = _run_outcome(result)
    assert status == 2
    line = _one_line(stderr)
    assert line.startswith(f"error: {tmp_path / 'mnt' / 'ds' / 'build.sqlite'}: "), line
    assert "disk is full" in line and "SQLITE_FULL" in line


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    from tests.humaneval.app.conftest import build_test_study

    return build_test_study(tmp_path_factory.mktemp("study-src"), payloads=False)


@pytest.mark.parametrize("how", ["read-only", "full"])
def test_serve_on_a_read_only_or_full_disk_is_one_line_naming_the_path(tmp_path, study, how):
    prepare = "readonly" if how == "read-only" else "fill 0"
    script = f"""
cp -r {study} "$FS/study"
{prepare}
timeout 60 "$PY" -m wikihowqa serve "$FS/study" --port 0 --admin-token t0k3n-for-the-test \\
    && echo rc=0 || echo rc=$?
"""
    result = tiny_fs.run(tmp_path / "mnt", script, size="2m")
    status, stderr = _run_outcome(result)
    assert status == 2
    line = _one_line(stderr)
    folder = tmp_path / "mnt" / "study"
    if how == "read-only":
        assert re.fullmatch(rf"error: {re.escape(str(folder))}/[\w.]+: Read-only file system \(EROFS\)", line)
    else:
        assert line.startswith(f"error: {folder}/") and ("(ENOSPC)" in line or "SQLITE_FULL" in line), line


def test_export_judgments_into_a_read_only_folder_is_one_line_naming_the_file(tmp_path, study):
    work = tmp_path / "study"
    shutil.copytree(study, work)
    from wikihowqa.humaneval.app.db import StudyDB

    StudyDB(work / "server.sqlite").close()
    script = f'readonly\nwikihowqa export-judgments {work} --out "$FS/j.jsonl" && echo rc=0 || echo rc=$?'
    result = tiny_fs.run(tmp_path / "mnt", script)
    status, stderr = _run_outcome(result)
    assert status == 2
    assert _one_line(stderr) == f"error: {tmp_path / 'mnt' / 'j.jsonl'}: Read-only file system (EROFS)"


def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_an_injected_disk_full_is_one_line_naming_the_file_for_each_writing_command(
    cli, tmp_path, monkeypatch, real_examples_dir
):
    """The same failure as on a real full disk, injected where every atomic write ends (fsync): runs
    everywhere, also where the tmpfs tests skip."""
    from tests.humaneval.app.conftest import build_test_study
    from wikihowqa.core.records import Prediction
    from wikihowqa.dataset.writers import write_predictions
    from wikihowqa.humaneval.app.db import StudyDB
    from wikihowqa.release.importer import import_release

    folder, _ = import_release([real_examples_dir / "qa.jsonl"], [], tmp_path / "ds")
    write_predictions(tmp_path / "p.jsonl", [Prediction(1366001, "echo", "Dry the figs.")])
    (tmp_path / "src").mkdir()
    study = build_test_study(tmp_path / "src", payloads=False)
    StudyDB(study / "server.sqlite").close()
    monkeypatch.setattr(os, "fsync", _disk_full)
    cases = {
        "import": (["import", str(tmp_path / "new"), "--qa", str(real_examples_dir / "qa.jsonl")],
                   tmp_path / "new" / "qa.jsonl"),
        "evaluate": (["evaluate", str(folder.path), str(tmp_path / "p.jsonl"), "--no-bertscore",
                      "--no-grounding", "--resamples", "100", "--out", str(tmp_path / "rep")],
                     tmp_path / "rep" / "evaluation.json"),
        "export-judgments": (["export-judgments", str(study), "--out", str(tmp_path / "j.jsonl")],
                             tmp_path / "j.jsonl"),
    }  # fmt: skip
    for args, path in cases.values():
        result = cli(*args)
        assert result.exit_code == 2
        assert _one_line(result.stderr) == f"error: {path}: No space left on device (ENOSPC)"
    assert not (tmp_path / "new").exists() and not (tmp_path / "j.jsonl").exists()


def test_an_os_error_without_a_file_name_is_named_by_the_file_open_where_it_failed(tmp_path):
    import sqlite3

    from wikihowqa.cli._failures import lost_path

    def append(path):
        with open(path, "a") as fh:
            fh.write("x")
            raise OSError(errno.ENOSPC, "No space left on device")

    def store(path):
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE t (x)")
        raise sqlite3.OperationalError("database or disk is full")

    class Store:  # like collect's StateStore: its connection is closed by the time the error surfaces
        def __init__(self, path):
            self.path, self._db = path, sqlite3.connect(path)

        def put(self):
            self._db.close()
            raise sqlite3.OperationalError("database or disk is full")

    def closed(path):
        Store(path).put()

    def from_descriptor(path):  # os.fdopen: the file's name is a number, the path is beside it
        fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write("x")
            raise OSError(errno.ENOSPC, "No space left on device")

    cases = [(append, "log.txt"), (store, "state.sqlite"), (closed, "build.sqlite"), (from_descriptor, "t")]
    for failing, name in cases:
        try:
            failing(tmp_path / name)
        except (OSError, sqlite3.Error) as exc:
            assert lost_path(exc.__traceback__) == str(tmp_path / name)


def test_an_os_error_that_is_a_bug_keeps_its_traceback(monkeypatch, capsys):
    """Only a disk's or path's state is a user's to fix; e.g. EBADF is the program's fault."""
    import wikihowqa.cli as cli

    def broken():
        raise OSError(errno.EBADF, "Bad file descriptor")

    monkeypatch.setattr(cli, "app", broken)
    with pytest.raises(OSError, match="Bad file descriptor"):
        cli.main()
