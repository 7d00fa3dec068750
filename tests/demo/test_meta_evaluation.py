"""The demo's meta-evaluation step on the real release instances: scores the study's answers and prints the
agreement table."""

from __future__ import annotations

import re

import pytest

from tests.evaluate.test_pipeline import fast_models  # noqa: F401  (a fixture: bag-of-words models)


@pytest.mark.usefixtures("fast_models")
def test_demo_step_scores_the_study_answers_and_prints_the_agreement_table(tmp_path, capsys):
    from wikihowqa.demo.paths import real_examples_path
    from wikihowqa.demo.run import DemoContext, human_evaluation, meta_evaluation
    from wikihowqa.release.importer import import_release

    src = real_examples_path()
    import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "real-examples")
    ctx = DemoContext(out=tmp_path)
    human_evaluation(ctx)
    capsys.readouterr()
    meta_evaluation(ctx)
    printed = capsys.readouterr().out
    assert "Metric agreement with the assessors" in printed and "Grounding" in printed
    # the floor and the ceiling beside the metrics, whole in an 80-column terminal (capsys's width): the
    # length rules' rows and the assessors against each other, each with its values
    rows = {line.strip().split("  ")[0]: line for line in printed.splitlines()}
    for label in ("control: longer answer", "control: shorter", "human ceiling (leave"):
        assert label in rows and re.search(r"-?\d\.\d\d", rows[label]), label
    assert "…" not in printed
    # where the commands put them: study-predictions STUDY, evaluate … --out STUDY/report, meta-evaluate
    study = tmp_path / "real-examples" / "study"
    assert sorted(p.name for p in (study / "predictions").glob("*.jsonl")) == [
        "study-deteriorated-answer.jsonl",
        "study-original-answer.jsonl",
    ]
    assert (study / "report" / "meta_evaluation.md").is_file()
    assert (study / "report" / "per_question.jsonl").is_file()
    assert ctx.produced[-1][1] == "real-examples/study/report/meta_evaluation.md"
    from wikihowqa.demo.run import STEPS

    names = [name for name, _ in STEPS]
    meta = names.index("meta-evaluation: which metric agrees with the (simulated) assessors")
    assert names[meta + 1] == "evaluate the predictions (the leaderboard ends the demo)"


@pytest.mark.usefixtures("fast_models")
def test_demo_step_with_systems_measures_grounding_against_the_simulated_error_spans(tmp_path, capsys):
    import json

    from wikihowqa.core.records import Prediction
    from wikihowqa.dataset.folder import DatasetFolder
    from wikihowqa.dataset.writers import write_predictions
    from wikihowqa.demo.paths import real_examples_path
    from wikihowqa.demo.run import DemoContext, human_evaluation, meta_evaluation
    from wikihowqa.release.importer import import_release

    src = real_examples_path()
    import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "real-examples")
    examples = DatasetFolder(tmp_path / "real-examples").examples()
    (tmp_path / "real-examples" / "predictions").mkdir()
    for system, cut in (("bm25+lead", 1), ("llm-passages", 2)):
        write_predictions(
            tmp_path / "real-examples" / "predictions" / f"{system}.jsonl",
            [Prediction(e.article_id, system, ". ".join(e.answer.split(". ")[:cut]) + ".") for e in examples],
        )
    ctx = DemoContext(out=tmp_path)
    human_evaluation(ctx)
    meta_evaluation(ctx)
    capsys.readouterr()
    report = tmp_path / "real-examples" / "study" / "report"
    result = json.loads((report / "meta_evaluation.json").read_text())
    det = result["detectors"]
    assert det["simulated"] is True and det["sentence_level"]["sentences"] > 0
    assert det["answer_level"] is None  # the demo runs no LLM judge
    text = (report / "meta_evaluation.md").read_text()
    assert "## Error detectors against the assessors' error spans (simulated assessors)" in text
