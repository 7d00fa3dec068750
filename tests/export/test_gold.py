"""The exports' gold check: empty gold answers are refused unless allowed, questions without documents
counted; both exports warn with the counts."""

from __future__ import annotations

import pytest

from tests.export.conftest import with_flaws
from wikihowqa.core.errors import DatasetError
from wikihowqa.core.records import Example
from wikihowqa.export.gold import check_gold, refuse_empty_answers
from wikihowqa.export.hub import HubSettings, export_hub
from wikihowqa.export.lm_eval import LmEvalSettings, export_lm_eval


def test_the_check_names_empty_answers_and_questions_without_documents():
    examples = [
        Example(i, f"How to {i}", answer, ()) for i, answer in enumerate(["Do it.", "", " \n", "Go."])
    ]
    check = check_gold(examples, {0: ["a document"], 1: ["a document"], 2: []})
    assert check.empty_answers == (1, 2) and check.without_documents == (2, 3)
    assert check.warnings() == [
        "2 questions have an empty gold answer (article_id 1, 2): every model scores 0 on them",
        "2 questions have no documents (article_id 2, 3): no passages to prompt with or ground in",
    ]
    assert check_gold(examples[:1], {0: ["a document"]}).warnings() == []


def test_a_long_list_of_ids_is_cut_short():
    examples = [Example(i, "How to", "", ()) for i in range(8)]
    check = check_gold(examples, {i: [1] for i in range(8)})
    assert check.warnings() == [
        "8 questions have an empty gold answer (article_id 0, 1, 2, 3, 4, … 3 more): "
        "every model scores 0 on them"
    ]
    with pytest.raises(
        DatasetError, match=r"^ds: 8 questions have an empty gold answer .*--allow-empty-answers"
    ):
        refuse_empty_answers(check, "ds", allow=False)
    refuse_empty_answers(check, "ds", allow=True)


def test_export_lm_eval_refuses_an_empty_gold_answer_unless_allowed_and_warns(small_dataset, tmp_path):
    """It exported it silently: lm-eval then scored ROUGE 0 on it for every model."""
    dataset = with_flaws(small_dataset)
    with pytest.raises(DatasetError, match=r"1 question has an empty gold answer \(article_id 104\)"):
        export_lm_eval(dataset, tmp_path / "task", LmEvalSettings(grounding=False, passages=False))
    assert not (tmp_path / "task").exists()
    summary = export_lm_eval(
        dataset, tmp_path / "task", LmEvalSettings(grounding=False, passages=False, allow_empty_answers=True)
    )
    assert (summary["questions"], summary["empty_answers"], summary["questions_without_documents"]) == (
        2,
        1,
        1,
    )
    assert summary["warnings"] == [
        "1 question has an empty gold answer (article_id 104): every model scores 0 on them",
        "1 question has no documents (article_id 105): no passages to prompt with or ground in",
    ]


def test_export_hub_refuses_an_empty_gold_answer_unless_allowed_and_warns(small_dataset, tmp_path):
    dataset = with_flaws(small_dataset)
    with pytest.raises(DatasetError, match=r"--allow-empty-answers to export them anyway$"):
        export_hub(dataset, tmp_path / "hub")
    assert not (tmp_path / "hub").exists()
    export = export_hub(dataset, tmp_path / "hub", HubSettings(allow_empty_answers=True))
    assert (export.empty_answers, export.questions_without_documents) == (1, 1)
    assert len(export.warnings) == 2
    card = (tmp_path / "hub" / "README.md").read_text()
    assert "Questions without documents: 1." in card
    assert "Questions with an empty gold answer (exported as asked): 1." in card
