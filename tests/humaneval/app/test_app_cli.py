"""``wikihowqa serve`` and ``export-judgments`` at the command line."""

from __future__ import annotations

import json
import socket

import pytest
from typer.testing import CliRunner

from wikihowqa.cli import app
from wikihowqa.errors import DatasetError, SettingsError
from wikihowqa.humaneval.app import StudyService
from wikihowqa.humaneval.app.run import bind


def test_serve_help_lists_its_options():
    r = CliRunner().invoke(app, ["serve", "--help"])
    assert r.exit_code == 0
    for option in ("--host", "--port", "--admin-token", "--crowd", "--open", "--completion-url", "--durable"):
        assert option in r.output


def test_export_writes_the_judgments_the_server_stored_and_refuses_to_overwrite(study_dir, valid_body):
    service = StudyService(study_dir)
    a = service.assessors["relevance-001"]
    task = json.loads(service.next_task(a))["task"]
    service.submit(a, valid_body(task))
    service.close()
    target = study_dir / "out" / "judgments.jsonl"
    r = CliRunner().invoke(app, ["export-judgments", str(study_dir), "--out", str(target)])
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in target.read_text().splitlines()]
    assert [j["task_id"] for j in rows] == [task["task_id"]] and rows[0]["assessor_id"] == "relevance-001"
    r = CliRunner().invoke(app, ["export-judgments", str(study_dir), "--out", str(target)])
    assert isinstance(r.exception, DatasetError) and "exists" in str(r.exception)


def test_serving_a_folder_that_is_not_a_study_is_one_clear_error(tmp_path):
    r = CliRunner().invoke(app, ["serve", str(tmp_path)])
    assert isinstance(r.exception, DatasetError) and "not a study folder" in str(r.exception)
    r = CliRunner().invoke(app, ["export-judgments", str(tmp_path)])
    assert isinstance(r.exception, DatasetError) and "server.sqlite" in str(r.exception)


def test_a_port_in_use_is_one_clear_error():
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        with pytest.raises(SettingsError, match="cannot listen"):
            bind("127.0.0.1", taken.getsockname()[1])
    finally:
        taken.close()


def test_task_files_changed_after_judgments_are_refused_but_a_plain_restart_resumes(study_dir, valid_body):
    service = StudyService(study_dir)
    token = service.assessors["trial_a-001"].token
    a = service.assessors["trial_a-001"]
    task = json.loads(service.next_task(a))["task"]
    service.submit(a, valid_body(task))
    service.close()
    again = StudyService(study_dir)  # same files: same tokens, same progress
    assert again.authenticate(token).assessor_id == "trial_a-001"
    assert json.loads(again.next_task(again.assessors["trial_a-001"]))["done"] == 1
    again.close()
    tasks = study_dir / "tasks.jsonl"
    tasks.write_text(tasks.read_text().replace("How To", "How to"))
    with pytest.raises(DatasetError, match="task files changed after 1 judgment"):
        StudyService(study_dir)
