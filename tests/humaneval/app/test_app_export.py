"""``export_judgments``: the server's stored judgments as judgments.jsonl, never over a file by accident."""

from __future__ import annotations

import json

import pytest

from wikihowqa.core.errors import DatasetError
from wikihowqa.humaneval.app import StudyService
from wikihowqa.humaneval.app.export import export_judgments


def test_an_existing_file_is_replaced_only_with_overwrite(study_dir, valid_body):
    service = StudyService(study_dir)
    a = service.assessors["relevance-001"]
    task = json.loads(service.next_task(a))["task"]
    service.submit(a, valid_body(task))
    service.close()
    target = study_dir / "judgments.jsonl"
    target.write_text("kept\n")
    with pytest.raises(DatasetError, match=r"judgments\.jsonl: exists \(use --overwrite to replace it\)"):
        export_judgments(study_dir, target)
    assert target.read_text() == "kept\n"
    assert export_judgments(study_dir, target, overwrite=True) == 1
    assert json.loads(target.read_text())["task_id"] == task["task_id"]
