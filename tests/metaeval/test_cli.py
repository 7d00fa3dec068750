"""End to end as a researcher runs it: a study with simulated assessors → study-predictions → evaluate
--split all → meta-evaluate; and the demo step on the real release instances."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from wikihowqa.cli import app
from wikihowqa.io import write_dataset_folder, write_jsonl

from ..evaluate.test_pipeline import fast_models  # noqa: F401  (a fixture: bag-of-words models)
from ..humaneval.conftest import make_dataset


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


def test_study_predictions_evaluate_and_meta_evaluate(simulated_study):
    dataset, study, root = simulated_study
    runner = CliRunner()
    missing = runner.invoke(app, ["meta-evaluate", str(study), str(root / "nowhere")])
    assert missing.exit_code != 0 and "per_question.jsonl" in str(missing.exception)
    made = runner.invoke(app, ["study-predictions", str(study), str(root / "answers")])
    assert made.exit_code == 0, made.output
    files = sorted((root / "answers").glob("*.jsonl"))
    assert [f.name for f in files] == [
        "lead.jsonl",
        "study-deteriorated-answer.jsonl",
        "study-original-answer.jsonl",
    ]
    report = root / "report"
    scored = runner.invoke(
        app,
        [
            "evaluate",
            str(dataset),
            *map(str, files),
            "--split",
            "all",
            "--no-bertscore",
            "--no-grounding",
            "--out",
            str(report),
            "--resamples",
            "200",
        ],
    )
    assert scored.exit_code == 0, scored.output
    result = runner.invoke(app, ["meta-evaluate", str(study), str(report), "--resamples", "300"])
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


def test_a_report_that_scored_none_of_the_study_answers_says_what_to_run(simulated_study):
    _, study, root = simulated_study
    (root / "other").mkdir(exist_ok=True)
    (root / "other" / "per_question.jsonl").write_text(
        json.dumps({"article_id": 1, "system": "x", "answer": "unrelated", "scores": {"rougeL_f": 0.5}})
        + "\n"
    )
    result = CliRunner().invoke(app, ["meta-evaluate", str(study), str(root / "other")])
    assert result.exit_code != 0
    assert "study-predictions" in str(result.exception) and "--split all" in str(result.exception)


@pytest.mark.usefixtures("fast_models")
def test_demo_step_scores_the_study_answers_and_prints_the_agreement_table(tmp_path, capsys):
    from wikihowqa.demo import real_examples_path
    from wikihowqa.demo.run import DemoContext, human_evaluation, meta_evaluation
    from wikihowqa.importer import import_release

    src = real_examples_path()
    import_release([src / "qa.jsonl"], [src / "documents.jsonl"], tmp_path / "real-examples")
    ctx = DemoContext(out=tmp_path)
    human_evaluation(ctx)
    capsys.readouterr()
    meta_evaluation(ctx)
    printed = capsys.readouterr().out
    assert "Metric agreement with the assessors" in printed and "Grounding" in printed
    assert (tmp_path / "meta-evaluation" / "meta_evaluation.md").is_file()
    assert (tmp_path / "meta-evaluation" / "evaluation" / "per_question.jsonl").is_file()
    assert ctx.produced[-1][1] == "meta-evaluation/meta_evaluation.md"
    from wikihowqa.demo.run import STEPS

    names = [name for name, _ in STEPS]
    assert (
        names.index("meta-evaluation: which metric agrees with the (simulated) assessors") == len(names) - 2
    )
