"""One judgment model: the study server's rows and the analysis' screening are the same contract."""

from __future__ import annotations

import re

import pytest

from wikihowqa.humaneval import analysis
from wikihowqa.humaneval.app import submission
from wikihowqa.humaneval.judgment import EVENT_KINDS, Judgment, judgment_problem

TEXT = "Use cold water. Bake for 2 hours."
TASK = {
    "task_id": "trial_b:1",
    "part": "trial_b",
    "type": "answer",
    "article_id": 1,
    "attention_check": None,
    "answer": {"text": TEXT, "sentences": [{"start": 0, "end": 15}, {"start": 16, "end": len(TEXT)}]},
    "passages": [{"sentence": 0, "groups": [{"passages": [{"passage_id": "1:0:0"}]}]}],
}


def _body(**change):
    body = {
        "judgment_id": "j-00000001",
        "familiarity": 4,
        "usefulness": 2,
        "spans": [{"start": 4, "end": 8, "label": "misleading"}],
        "events": [
            {"t_ms": 10, "kind": "sentence_open", "sentence": 0, "side": None},
            {"t_ms": 20, "kind": "passage_view", "sentence": 0, "side": None, "passage_id": "1:0:0"},
        ],
        "duration_ms": 1000,
    }
    body.update(change)
    return body


def _row(**change):
    return submission.build_judgment(
        TASK,
        _body(**change),
        study_id="s",
        assessor_id="trial_b-001",
        started_at=None,
        submitted_at="2024-01-01T00:00:00Z",
        elapsed_ms=1200,
    )


def test_there_is_one_list_of_event_kinds():
    assert analysis.EVENT_KINDS is EVENT_KINDS
    assert not hasattr(submission, "EVENT_KINDS") or submission.EVENT_KINDS is EVENT_KINDS


def test_a_server_row_is_the_model_s_row_field_for_field_in_order():
    row = _row()
    assert list(row) == [
        "format_version",
        "judgment_id",
        "study_id",
        "task_id",
        "assessor_id",
        "started_at",
        "submitted_at",
        "duration_ms",
        "client_duration_ms",
        "attention",
        "familiarity",
        "usefulness",
        "spans",
        "events",
    ]
    assert row["duration_ms"] == 1200 and row["client_duration_ms"] == 1000
    assert row["spans"] == [{"start": 4, "end": 8, "label": "misleading", "text": "cold"}]
    assert list(row["events"][1]) == ["t_ms", "kind", "sentence", "side", "passage_id"]
    assert Judgment.model_validate(row).row() == row
    assert judgment_problem(row, TASK) is None


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"usefulness": 6}, "usefulness must be an integer from 1 to 5, got 6"),
        ({"familiarity": True}, "familiarity must be an integer from 1 to 5, got True"),
        ({"spans": [{"start": 4, "end": 99, "label": "useful"}]}, "spans[0] 4:99 is outside the text"),
        (
            {"spans": [{"start": 0, "end": 3, "label": "wrong"}]},
            "spans[0] label must be one of useful",
        ),
    ],
)
def test_the_server_and_the_analysis_refuse_a_bad_value_in_the_same_words(change, words):
    with pytest.raises(submission.SubmissionError, match="^" + re.escape(words)):
        _row(**change)
    row = {**_row(), **{k: v for k, v in change.items() if k != "events"}}
    assert judgment_problem(row, TASK).startswith(words)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"format_version": 3}, "unsupported format_version 3"),
        ({"assessor_id": ""}, "missing assessor_id"),
        ({"duration_ms": -1}, "duration_ms must be a non-negative number or null"),
        ({"events": [{"kind": "scroll"}]}, "events[0].kind must be one of " + ", ".join(EVENT_KINDS)),
        ({"events": "all"}, "events must be a list or null"),
    ],
)
def test_the_model_names_the_field_a_row_breaks(change, problem):
    row = {**_row(), **change}
    assert judgment_problem(row, TASK) == problem


def test_a_row_without_an_assessor_is_refused_and_an_unknown_task_named():
    row = _row()
    del row["assessor_id"]
    assert judgment_problem(row, TASK) == "missing assessor_id"
    assert judgment_problem(_row(), None) == "unknown task 'trial_b:1'"
    assert judgment_problem({**_row(), "format_version": 9}, None) == "unsupported format_version 9"


def test_fields_a_later_writer_adds_are_kept():
    row = {**_row(), "device": "tablet"}
    assert judgment_problem(row, TASK) is None
    assert Judgment.model_validate(row).row()["device"] == "tablet"
