"""``wikihowqa serve`` and ``export-judgments`` at the command line."""

from __future__ import annotations

import json

from wikihowqa.humaneval.app import StudyService


def test_serve_help_lists_its_options(cli):
    r = cli("serve", "--help")
    assert r.exit_code == 0
    for option in ("--host", "--port", "--admin-token", "--crowd", "--open", "--completion-url", "--durable"):
        assert option in r.stdout


def test_export_writes_the_judgments_the_server_stored_and_refuses_to_overwrite(cli, study_dir, valid_body):
    service = StudyService(study_dir)
    a = service.assessors["relevance-001"]
    task = json.loads(service.next_task(a))["task"]
    service.submit(a, valid_body(task))
    service.close()
    target = study_dir.parent / "export" / "judgments.jsonl"  # outside the study it reads
    r = cli("export-judgments", study_dir, "--out", target)
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in target.read_text().splitlines()]
    assert [j["task_id"] for j in rows] == [task["task_id"]] and rows[0]["assessor_id"] == "relevance-001"
    r = cli("export-judgments", study_dir, "--out", target)
    assert r.exit_code == 2 and r.lines == [f"error: {target}: exists (use --overwrite to replace it)"]
    r = cli("export-judgments", study_dir, "--out", target, "--overwrite")
    assert r.exit_code == 0 and len(target.read_text().splitlines()) == 1, r.output


def test_serving_a_folder_that_is_not_a_study_is_one_clear_error(cli, tmp_path):
    r = cli("serve", tmp_path)
    assert r.exit_code == 2 and len(r.lines) == 1 and "not a study folder" in r.stderr
    r = cli("export-judgments", tmp_path)
    assert r.exit_code == 2 and len(r.lines) == 1 and "server.sqlite" in r.stderr


def test_serve_at_the_command_line_prints_no_token_into_a_pipe(cli, study_dir, monkeypatch):
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    # uvicorn's logging dictConfig shuts every existing handler down; absl's (rouge-score imports absl)
    # then closes its stream when that is not the current sys.stderr -- pytest's capture, since the
    # in-process runner has swapped sys.stderr -- and the rest of the session loses its stderr.
    monkeypatch.setattr(uvicorn.Config, "configure_logging", lambda self: None)
    monkeypatch.setenv("WIKIHOWQA_ADMIN_TOKEN", "v" * 24)
    r = cli("serve", study_dir, "--port", "0")
    assert r.exit_code == 0, r.output
    assert "v" * 24 not in r.output and "admin-link.txt" in r.output
    assert (study_dir / "admin-link.txt").read_text().strip().endswith("v" * 24)
