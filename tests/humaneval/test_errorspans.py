"""The ``errors`` part's judgment rows: typed error spans, severities, notes, antecedents; format version 2
written, version 1 still read."""

from __future__ import annotations

import pytest

from wikihowqa.humaneval.errorspans import error_spans_problem, normalised, task_error_types
from wikihowqa.humaneval.judgment import Judgment, judgment_problem
from wikihowqa.humaneval.taxonomy import DEFAULT_TAXONOMY

TEXT = "Dry the figs in the sun. Never put the figs in the sun. Bake for 36 days."
PASSAGE = "Dry the figs in the oven for 24 to 36 hours."


def _task(passages: bool) -> dict:
    return {
        "task_id": "errors_b:1:abc" if passages else "errors_a:1:abc",
        "part": "errors_b" if passages else "errors_a",
        "type": "errors",
        "article_id": 1,
        "question": "How to Dry Figs",
        "attention_check": None,
        "answer": {"text": TEXT, "sentences": [{"start": 0, "end": 24}, {"start": 25, "end": 55}]},
        "passages": (
            [
                {
                    "sentence": 2,
                    "start": 56,
                    "end": len(TEXT),
                    "chars": len(PASSAGE),
                    "groups": [
                        {
                            "doc_index": 0,
                            "title": "t",
                            "url": "u",
                            "passages": [
                                {
                                    "passage_id": "1:0:3",
                                    "text": PASSAGE,
                                    "highlight": {"start": 0, "end": len(PASSAGE)},
                                }
                            ],
                        }
                    ],
                }
            ]
            if passages
            else None
        ),
        "error_types": task_error_types(DEFAULT_TAXONOMY, passages),
    }


A, B = _task(False), _task(True)
CONTRA = {
    "start": 25,
    "end": 55,
    "type": "self_contradiction",
    "severity": "major",
    "antecedent": {"source": "answer", "start": 0, "end": 24},
}
D, H = TEXT.index("days"), PASSAGE.index("hours")
DAYS = {
    "start": D,
    "end": D + 4,
    "type": "contradicts_passages",
    "severity": "critical",
    "note": "hours",
    "antecedent": {"source": "passage", "passage_id": "1:0:3", "start": H, "end": H + 5},
}


def _row(task, spans, version=2):
    return {
        "format_version": version,
        "judgment_id": "j-1",
        "study_id": "s",
        "task_id": task["task_id"],
        "assessor_id": "errors_a-001",
        "duration_ms": 10,
        "attention": None,
        "error_spans": spans,
        "events": [],
    }


def test_a_well_formed_error_span_row_passes_and_keeps_its_fields_in_order():
    row = _row(B, [CONTRA, DAYS])
    assert judgment_problem(row, B) is None
    model = Judgment.model_validate(row)
    assert list(model.row()).index("error_spans") == list(model.row()).index("attention") + 1


def test_normalised_spans_carry_their_text_and_their_antecedent_s_text_sorted():
    out = normalised([DAYS, CONTRA], B)
    assert [s["start"] for s in out] == [25, D] and out[1]["text"] == "days"
    assert out[0]["text"] == "Never put the figs in the sun." and out[0]["antecedent"]["text"] == TEXT[:24]
    assert out[1]["antecedent"] == {
        "source": "passage",
        "passage_id": "1:0:3",
        "start": H,
        "end": H + 5,
        "text": "hours",
    }
    assert out[0]["note"] is None and out[1]["note"] == "hours"
    assert error_spans_problem(out, B) is None


@pytest.mark.parametrize(
    ("task", "span", "message"),
    [
        (A, {**DAYS, "antecedent": None, "type": "not_in_passages"}, "type must be one of"),
        (A, {**CONTRA, "severity": "huge"}, "severity must be one of"),
        (A, {**CONTRA, "antecedent": None}, "needs an antecedent"),
        (A, {**CONTRA, "antecedent": {"source": "answer", "start": 30, "end": 40}}, "overlaps the span"),
        (
            A,
            {**CONTRA, "antecedent": {"source": "passage", "passage_id": "1:0:3", "start": 0, "end": 3}},
            "source must be answer",
        ),
        (
            B,
            {**DAYS, "antecedent": {**DAYS["antecedent"], "passage_id": "9:9:9"}},
            "not a passage of this task",
        ),
        (B, {**DAYS, "antecedent": {**DAYS["antecedent"], "end": 999}}, "outside the text"),
        (
            A,
            {
                "start": 0,
                "end": 3,
                "type": "grammar_usage",
                "severity": "minor",
                "antecedent": {"source": "answer", "start": 5, "end": 8},
            },
            "does not take",
        ),
        (A, {**CONTRA, "note": "two\nlines"}, "one line"),
        (A, {**CONTRA, "end": 200}, "outside the text"),
        (A, {**CONTRA, "text": "something else"}, "does not match"),
    ],
)
def test_a_broken_error_span_is_named(task, span, message):
    problem = judgment_problem(_row(task, [span]), task)
    assert problem is not None and message in problem and "error_spans[0]" in problem


def test_the_same_span_twice_with_one_type_is_refused_but_two_types_on_one_span_are_fine():
    assert "repeats" in error_spans_problem([CONTRA, CONTRA], A)
    other = {"start": 25, "end": 55, "type": "commonsense", "severity": "minor"}
    assert error_spans_problem([CONTRA, other], A) is None


def test_an_answer_without_errors_is_an_empty_list_and_version_1_rows_are_still_read():
    assert judgment_problem(_row(A, []), A) is None
    trial = {
        "task_id": "trial_a:1",
        "part": "trial_a",
        "type": "answer",
        "article_id": 1,
        "answer": {"text": TEXT, "sentences": []},
    }
    v1 = {
        "format_version": 1,
        "judgment_id": "j",
        "study_id": "s",
        "task_id": "trial_a:1",
        "assessor_id": "a",
        "duration_ms": 1,
        "attention": None,
        "familiarity": 3,
        "usefulness": 3,
        "spans": [{"start": 0, "end": 3, "label": "useful"}],
        "events": [],
    }
    assert judgment_problem(v1, trial) is None
    assert "unsupported format_version 3" in judgment_problem({**v1, "format_version": 3}, trial)
