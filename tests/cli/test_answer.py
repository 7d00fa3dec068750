"""Spec: `wikihowqa answer` resumes only under the settings its file was answered with (issue 32, item 2),
and a cache path it cannot use is one line naming it and what to do (item 15).

A rerun with another encoder or ``--set extractive.max_words=20`` used to keep the earlier answers and add
new ones under the new settings, exit 0. The file now carries a record of what decided its answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wikihowqa.answer.record import record_path
from wikihowqa.dataset.readers import read_predictions
from wikihowqa.release.importer import import_release

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def dataset(tmp_path, real_examples_dir):
    folder, _ = import_release(
        [real_examples_dir / "qa.jsonl"], [real_examples_dir / "documents.jsonl"], tmp_path / "ds"
    )
    return folder.path


def _answer(cli, dataset, out, *more):
    return cli("answer", dataset, "-s", "bm25+lead", "--split", "train", "--out", out, *more)


def _said(run):
    """The warnings and errors among the command's lines (its progress notes left out)."""
    return [line for line in run.lines if line.startswith(("warning:", "error:"))]


def test_a_changed_setting_refuses_the_resume_in_one_line_naming_it_and_fresh(cli, dataset, tmp_path):
    out = tmp_path / "p.jsonl"
    assert _answer(cli, dataset, out, "--limit", "1").exit_code == 0
    kept = out.read_bytes()
    changed = _answer(cli, dataset, out, "--set", "extractive.max_words=20")
    assert changed.exit_code == 2, changed.output
    assert len(changed.lines) == 1 and changed.lines[0].startswith("error:")
    assert "extractive.max_words: auto → 20" in changed.lines[0] and "--fresh" in changed.lines[0]
    assert out.read_bytes() == kept  # nothing mixed in


def test_limit_workers_and_executor_never_block_a_resume(cli, dataset, tmp_path):
    out = tmp_path / "p.jsonl"
    assert _answer(cli, dataset, out, "--limit", "1", "--workers", "2").exit_code == 0
    more = _answer(cli, dataset, out, "--workers", "1", "--executor", "local")
    assert more.exit_code == 0 and _said(more) == [], more.output
    assert "1 answered now, 1 earlier" in more.stdout


def test_fresh_answers_every_question_anew_under_the_new_settings(cli, dataset, tmp_path):
    out = tmp_path / "p.jsonl"
    assert _answer(cli, dataset, out, "--limit", "1").exit_code == 0
    anew = _answer(cli, dataset, out, "--set", "extractive.max_words=20", "--fresh")
    assert anew.exit_code == 0, anew.output
    assert "2 answered now, 0 earlier" in anew.stdout
    answers = read_predictions(out)
    assert len(answers) == 2 and [p.settings["max_words"] for p in answers] == [20, 20]
    assert json.loads(record_path(out).read_text())["settings"]["extractive"]["max_words"] == 20


def test_changed_documents_refuse_the_resume(cli, dataset, tmp_path):
    out = tmp_path / "p.jsonl"
    assert _answer(cli, dataset, out, "--limit", "1").exit_code == 0
    documents = dataset / "documents.jsonl"
    rows = [json.loads(line) for line in documents.read_text().splitlines()]
    rows[0]["passages"][0] = "An edited passage."
    documents.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = _answer(cli, dataset, out)
    assert result.exit_code == 2 and "documents: sha256:" in result.lines[0], result.output


def test_another_encoder_backend_refuses_the_resume(cli, dataset, tmp_path):
    out = tmp_path / "p.jsonl"
    first = cli("answer", dataset, "-s", "dense+lead", "--split", "train", "--limit", "1", "--out", out,
                "--encoder-backend", "torch", "--device", "cpu")  # fmt: skip
    assert first.exit_code == 0, first.output
    again = cli("answer", dataset, "-s", "dense+lead", "--split", "train", "--out", out,
                "--encoder-backend", "openvino", "--device", "cpu")  # fmt: skip
    assert again.exit_code == 2 and len(again.lines) == 1, again.output
    assert "encoder.backend: torch → openvino" in again.lines[0]
    assert len(read_predictions(out)) == 1


def test_a_file_from_before_the_record_resumes_with_one_warning(cli, dataset, tmp_path):
    out = tmp_path / "p.jsonl"
    assert _answer(cli, dataset, out, "--limit", "1").exit_code == 0
    record_path(out).unlink()
    resumed = _answer(cli, dataset, out)
    assert resumed.exit_code == 0, resumed.output
    (warning,) = _said(resumed)
    assert "no record of the settings" in warning and "--fresh" in warning
    assert "1 answered now, 1 earlier" in resumed.stdout and record_path(out).is_file()


def test_a_cache_folder_that_is_a_file_is_one_line_naming_it_and_what_to_do(cli, dataset, tmp_path):
    """Issue 32, 15: it used to be "[Errno 17] File exists" (or ENOTDIR behind "cannot load the model")."""
    (dataset / "cache").write_text("not a folder")
    result = cli("answer", dataset, "-s", "dense+lead", "--split", "train", "--out", tmp_path / "p.jsonl",
                 "--encoder-backend", "torch", "--device", "cpu")  # fmt: skip
    assert result.exit_code == 2, result.output
    (line,) = _said(result)
    assert f"{dataset / 'cache'} is a file where a folder is needed: move or delete it" in line


def test_an_encoder_cache_home_that_is_a_file_is_named_and_the_model_still_serves(dataset, tmp_path):
    """The OpenVINO model cache under $XDG_CACHE_HOME (a fresh process: models load once per process). A
    cache that cannot be written is named in one warning with what to do, and the run goes on with the
    model converted into a temporary folder (issue 32 item 5), so the answers still come."""
    (tmp_path / "xdg").mkdir()
    (tmp_path / "xdg" / "wikihowqa").write_text("not a folder")
    env = {**os.environ, "PYTHONPATH": str(SRC), "XDG_CACHE_HOME": str(tmp_path / "xdg"), "COLUMNS": "300"}
    command = [sys.executable, "-m", "wikihowqa", "answer", str(dataset), "-s", "dense+lead",
               "--split", "train", "--out", str(tmp_path / "p.jsonl"),
               "--encoder-backend", "openvino", "--device", "cpu"]  # fmt: skip
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and (tmp_path / "p.jsonl").is_file()
    flat = " ".join(run.stderr.split())
    assert f"{tmp_path / 'xdg' / 'wikihowqa'} is a file where a folder is needed" in flat
