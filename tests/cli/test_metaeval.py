"""End to end as a researcher runs it: a study with simulated assessors → study-predictions → evaluate
--split all → meta-evaluate."""

from __future__ import annotations

import json

import pytest

from tests.humaneval.conftest import make_dataset
from wikihowqa.io import write_dataset_folder, write_jsonl


@pytest.fixture(scope="module")
def simulated_study(tmp_path_factory):
    """The human-evaluation stage's own pipeline (deteriorate, tasks, simulated assessors) on 114 answers
    over the 19 categories, with a lead-sentence system in the A/B part."""
    from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
    from wikihowqa.humaneval.rank import make_ranker
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
    from wikihowqa.humaneval.tasks import StudySettings, build_study, write_study
    from wikihowqa.records import Prediction

    root = tmp_path_factory.mktemp("sim")
    examples, documents = make_dataset()
    dataset = write_dataset_folder(
        root / "ds", examples, [d for docs in documents.values() for d in docs], {"kind": "test"}
    ).path
    predictions = [Prediction(e.article_id, "lead", e.answer.split(". ")[0] + ".") for e in examples]
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=0))
    study = build_study(
        answers,
        examples,
        documents,
        predictions,
        make_ranker("bm25"),
        StudySettings(seed=0, parts=("trial_a", "trial_b", "preference"), preference_questions=30),
        study_id="sim",
    )
    write_study(study, root / "study", extra_files={"deteriorated.jsonl": [a.to_dict() for a in answers]})
    write_jsonl(root / "study" / "judgments.jsonl", simulate_judgments(study, SimulationSettings(seed=0)))
    return dataset, root / "study", root


def test_study_predictions_evaluate_and_meta_evaluate(cli, simulated_study):
    dataset, study, root = simulated_study
    missing = cli("meta-evaluate", study, root / "nowhere")
    assert missing.exit_code == 2 and "per_question.jsonl" in missing.stderr
    made = cli("study-predictions", study, "--out", root / "answers")
    assert made.exit_code == 0, made.output
    files = sorted((root / "answers").glob("*.jsonl"))
    assert [f.name for f in files] == [
        "lead.jsonl",
        "study-deteriorated-answer.jsonl",
        "study-original-answer.jsonl",
    ]
    report = root / "report"
    scored = cli(
        "evaluate", dataset, *files, "--split", "all", "--no-bertscore", "--no-grounding",
        "--out", report, "--resamples", "200",
    )  # fmt: skip
    assert scored.exit_code == 0, scored.output
    result = cli("meta-evaluate", study, report, "--resamples", "300")
    assert result.exit_code == 0, result.output
    assert "Metric agreement with the assessors" in result.output
    meta = json.loads((report / "meta_evaluation.json").read_text())
    assert not meta["unscored_answers"]
    assert meta["answers"]["trial_b"]["answers"] == 95 and meta["preference_tasks"] == 30
    # what the simulator plants: errors found follow the edits; nothing follows a random score
    for part in ("trial_a", "trial_b"):
        key = meta["answer_level"][part]["control: −edits (key)"]["fewer_errors_found"]["kendall"]
        rnd = meta["answer_level"][part]["control: random"]["fewer_errors_found"]["kendall"]
        assert key["value"] > 0.35 and key["low"] > 0.15, key  # clearly positive
        assert rnd["low"] < 0 < rnd["high"] and abs(rnd["value"]) < 0.05, rnd
    assert meta["pairs"]["control: −edits (key)"]["auc"]["value"] == 1.0
    # ROUGE scores against the original itself: flagged as reference-based
    assert next(m for m in meta["metrics"] if m["label"] == "R-L")["reference_based"]
    assert "R-L†" in (report / "meta_evaluation.md").read_text()


def test_a_report_that_scored_none_of_the_study_answers_says_what_to_run(cli, simulated_study):
    _, study, root = simulated_study
    (root / "other").mkdir(exist_ok=True)
    (root / "other" / "per_question.jsonl").write_text(
        json.dumps({"article_id": 1, "system": "x", "answer": "unrelated", "scores": {"rougeL_f": 0.5}})
        + "\n"
    )
    result = cli("meta-evaluate", study, root / "other")
    assert result.exit_code == 2 and len(result.lines) == 1
    assert "study-predictions" in result.stderr and "--split all" in result.stderr


def _scored_everything(study, report):
    """A report that scored every answer the study showed (a score drawn per text: what is tested here is
    which judgments are joined, not how well a metric agrees)."""
    import random

    from wikihowqa.humaneval.tasks import read_study
    from wikihowqa.metaeval.join import study_predictions

    rng = random.Random(0)
    rows = [
        {
            "article_id": p.article_id,
            "system": system,
            "answer": p.answer,
            "scores": {"rougeL_f": rng.random()},
        }
        for system, predictions in study_predictions(read_study(study)).items()
        for p in predictions
    ]
    report.mkdir(exist_ok=True)
    write_jsonl(report / "per_question.jsonl", rows)
    return report


def _judgments(study):
    return [json.loads(line) for line in (study / "judgments.jsonl").read_text().splitlines() if line]


def test_judgments_of_another_study_are_refused_naming_both_studies(cli, simulated_study, tmp_path):
    _, study, root = simulated_study
    report = _scored_everything(study, root / "scored-all")
    foreign = [{**j, "study_id": "other-study"} for j in _judgments(study)]
    write_jsonl(tmp_path / "judgments.jsonl", foreign)
    result = cli("meta-evaluate", study, report, "--judgments", tmp_path / "judgments.jsonl")
    assert result.exit_code == 2 and len(result.lines) == 1, result.output
    assert "'other-study'" in result.stderr and "'sim'" in result.stderr
    assert not (report / "meta_evaluation.json").exists()


def test_judgments_of_unknown_tasks_are_counted_in_a_warning(cli, simulated_study, tmp_path):
    _, study, root = simulated_study
    report = _scored_everything(study, root / "scored-all")
    own = _judgments(study)
    strays = [{**j, "judgment_id": f"stray-{n}", "task_id": f"trial_a:9{n}:0"} for n, j in enumerate(own[:7])]
    write_jsonl(tmp_path / "judgments.jsonl", own + strays)
    result = cli(
        "meta-evaluate", study, report, "--judgments", tmp_path / "judgments.jsonl", "--resamples", "100",
        "--out", tmp_path / "meta",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"warning: 7 of {len(own) + 7} judgments name a task" in " ".join(result.stderr.split())
    meta = json.loads((tmp_path / "meta" / "meta_evaluation.json").read_text())
    assert meta["judgments"]["unknown_task"] == 7


def test_judgments_of_none_of_the_studys_tasks_fail_in_one_line(cli, simulated_study, tmp_path):
    _, study, root = simulated_study
    report = _scored_everything(study, root / "scored-all")
    strays = [{**j, "task_id": f"trial_a:9{n}:0"} for n, j in enumerate(_judgments(study)[:5])]
    write_jsonl(tmp_path / "judgments.jsonl", strays)
    result = cli("meta-evaluate", study, report, "--judgments", tmp_path / "judgments.jsonl")
    assert result.exit_code == 2 and len(result.lines) == 1, result.output
    assert "5 of tasks the study lacks" in result.stderr
