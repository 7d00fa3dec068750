"""Automatic detectors against the assessors' error spans (``meta_evaluation.json`` → ``detectors``):
every figure on planted data against scikit-learn, and its interval against a cluster bootstrap written
out here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, precision_recall_fscore_support, roc_auc_score

from wikihowqa.metaeval.agreement import MetaSettings
from wikihowqa.metaeval.detectors import AnswerSentences, answer_level, detectors, locate, sentence_level

S = MetaSettings(resamples=200, seed=5)


def _answer(article, labels, support, words):
    return AnswerSentences(
        article,
        np.array(labels, dtype=bool),
        np.array(support, dtype=float),
        np.array(support) < 0.37,
        np.array(words),
        tuple(f"sentence {article}-{k}" for k in range(len(labels))),
    )


ANSWERS = [
    _answer(1, [1, 0, 0], [0.10, 0.50, 0.80], [12, 5, 9]),
    _answer(2, [0, 1], [0.30, 0.20], [7, 15]),
    _answer(3, [0, 0, 0, 1], [0.60, 0.90, 0.35, 0.40], [4, 6, 8, 20]),
    _answer(4, [1, 1], [0.05, 0.70], [11, 3]),
]


def _pooled(answers):
    return (
        np.concatenate([a.labels for a in answers]),
        np.concatenate([a.support for a in answers]),
        np.concatenate([a.flagged for a in answers]),
    )


@pytest.fixture(scope="module")
def result():
    return sentence_level(ANSWERS, S, seed=5)


def test_grounding_precision_recall_f1_and_areas_equal_sklearn(result):
    y, support, flagged = _pooled(ANSWERS)
    g = result["detectors"]["Grounding"]
    p, r, f, _ = precision_recall_fscore_support(y, flagged, average="binary")
    assert (g["precision"]["value"], g["recall"]["value"], g["f1"]["value"]) == pytest.approx((p, r, f))
    assert g["roc_auc"]["value"] == pytest.approx(roc_auc_score(y, 1 - support))
    assert g["average_precision"]["value"] == pytest.approx(average_precision_score(y, 1 - support))
    assert (result["sentences"], result["positives"], result["grounding_flagged"]) == (11, 5, 5)


def test_the_curve_gives_precision_recall_f1_at_each_threshold(result):
    y, support, _ = _pooled(ANSWERS)
    curve = {round(c["threshold"], 2): c for c in result["detectors"]["Grounding"]["curve"]}
    for t in (0.25, 0.5, 0.75):
        p, r, f, _ = precision_recall_fscore_support(y, support < t, average="binary", zero_division=np.nan)
        assert (curve[t]["precision"], curve[t]["recall"], curve[t]["f1"]) == pytest.approx((p, r, f))
    assert math.isnan(curve[0.0]["precision"]) and curve[0.0]["recall"] == 0.0  # nothing flagged


def test_intervals_are_the_cluster_bootstrap_over_answers(result):
    rng = np.random.default_rng(5)
    rows = np.vstack([np.arange(4)[None, :], rng.integers(0, 4, size=(200, 4))])[1:]
    f1s, aucs = [], []
    for row in rows:
        y, support, flagged = _pooled([ANSWERS[i] for i in row])
        if y.any() or flagged.any():
            f1s.append(precision_recall_fscore_support(y, flagged, average="binary", zero_division=0)[2])
        if 0 < y.sum() < y.size:
            aucs.append(roc_auc_score(y, 1 - support))
    g = result["detectors"]["Grounding"]
    assert (g["f1"]["low"], g["f1"]["high"]) == pytest.approx(tuple(np.percentile(f1s, [2.5, 97.5])))
    assert (g["roc_auc"]["low"], g["roc_auc"]["high"]) == pytest.approx(
        tuple(np.percentile(aucs, [2.5, 97.5]))
    )
    assert g["roc_auc"]["undefined_resamples"] == 200 - len(aucs)


def test_the_controls_a_random_score_and_the_longer_sentence_rule(result):
    y, _, flagged = _pooled(ANSWERS)
    words = np.concatenate([a.words for a in ANSWERS])
    length = result["detectors"]["control: longer sentence"]
    assert length["roc_auc"]["value"] == pytest.approx(roc_auc_score(y, words))
    p, r, f, _ = precision_recall_fscore_support(y, words > np.median(words), average="binary")
    assert (length["precision"]["value"], length["recall"]["value"], length["f1"]["value"]) == pytest.approx(
        (p, r, f)
    )
    rand = result["detectors"]["control: random"]
    assert 0.0 <= rand["roc_auc"]["value"] <= 1.0 and f"{flagged.mean():.3f}" in rand["flags"]


def test_the_judge_at_answer_level_against_answers_with_a_major_error():
    answers = [(1, "a", True), (2, "b", False), (3, "c c c", True), (4, "d d", False), (5, "e", False)]
    consistency = {1: 2.0, 2: 4.0, 3: 3.0, 4: 3.0, 5: 5.0}
    scores = {(a, t): {"judge_consistency": consistency[a]} for a, t, _ in answers}
    out = answer_level(answers, scores, S, seed=1)
    y = [major for *_, major in answers]
    judge = out["detectors"]["Judge: consistency"]
    assert judge["roc_auc"]["value"] == pytest.approx(
        roc_auc_score(y, [-consistency[a] for a, *_ in answers])
    )
    assert "Judge: usefulness" not in out["detectors"]
    longer = out["detectors"]["control: longer answer"]
    assert longer["roc_auc"]["value"] == pytest.approx(
        roc_auc_score(y, [len(t.split()) for _, t, _ in answers])
    )
    assert (out["answers"], out["positives"]) == (5, 2)
    assert answer_level(answers, {}, S) is None  # no judge column: no row


def test_sentences_are_found_in_the_answer_in_order():
    answer = "Mix it. Then mix it. Mix it."
    assert locate(answer, ["Mix it.", "Then mix it.", "Mix it.", "Absent."]) == [
        (0, 7),
        (8, 20),
        (21, 28),
        None,
    ]


def test_a_study_s_grounding_error_spans_label_the_sentences_they_touch():
    from tests.humaneval.conftest import make_dataset
    from wikihowqa.core.records import Prediction
    from wikihowqa.core.sentences import sentences as sentences_of
    from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
    from wikihowqa.humaneval.rank import BM25Ranker
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
    from wikihowqa.humaneval.simulate_errors import ErrorSimulation
    from wikihowqa.humaneval.tasks import ERROR_PARTS, StudySettings, build_study
    from wikihowqa.humaneval.text import overlaps

    examples, documents = make_dataset()
    predictions = [Prediction(e.article_id, "lead", e.answer.split(". ")[0] + ".") for e in examples]
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=2))
    study = build_study(
        answers, examples, documents, predictions, BM25Ranker(),
        StudySettings(parts=ERROR_PARTS, error_questions=3, error_controls=4, seed=2), study_id="d",
    )  # fmt: skip
    sim = SimulationSettings(
        errors=ErrorSimulation(recall={"errors_a": 1.0, "errors_b": 1.0}), inattentive=0.0
    )
    judgments = simulate_judgments(study, sim)
    tasks = study.tasks_by_id()
    grounding, positives, total = {}, 0, 0
    for task in {t["answer"]["text"]: t for t in tasks.values() if t["part"] == "errors_b"}.values():
        text = task["answer"]["text"]
        split = sentences_of(text)
        grounding[(task["article_id"], text)] = [
            {"sentence": s, "support": 0.5, "supported": True} for s in split
        ]
    for task_id, task in tasks.items():
        if task["part"] != "errors_b":
            continue
        text, start = task["answer"]["text"], 0
        marks = [
            (s["start"], s["end"])
            for j in judgments
            if j["task_id"] == task_id
            for s in j["error_spans"]
            if s["type"] in ("contradicts_passages", "not_in_passages")
        ]
        for s in sentences_of(text):
            at = text.index(s, start)
            start = at + len(s)
            total += 1
            positives += any(overlaps((at, at + len(s)), m) for m in marks)
    out = detectors(study, judgments, grounding, {}, S)
    assert out["simulated"] is True and "simulated" in out["note"]
    level = out["sentence_level"]
    assert (level["sentences"], level["positives"]) == (total, positives)
    assert positives > 0  # the planted edits are marked, some with a grounding type
    assert level["detectors"]["Grounding"]["recall"]["value"] == 0.0  # nothing flagged
    assert out["answer_level"] is None  # the evaluation ran no judge


def test_meta_evaluate_folders_adds_detectors_and_study_predictions_holds_the_errors_answers(tmp_path):
    """A study with a trial and the errors parts, written to disk; a report that scored every answer it
    showed (study-predictions), with grounding's sentences and a judge score: meta-evaluate's result and
    report carry the detectors."""
    from tests.humaneval.conftest import make_dataset
    from wikihowqa.core.records import Prediction
    from wikihowqa.core.sentences import sentences as sentences_of
    from wikihowqa.dataset.writers import write_jsonl
    from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
    from wikihowqa.humaneval.rank import BM25Ranker
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
    from wikihowqa.humaneval.simulate_errors import ErrorSimulation
    from wikihowqa.humaneval.tasks import StudySettings, build_study, read_study, write_study
    from wikihowqa.metaeval.join import study_predictions
    from wikihowqa.metaeval.report import render_markdown
    from wikihowqa.metaeval.stage import meta_evaluate_folders

    examples, documents = make_dataset()
    predictions = [Prediction(e.article_id, "lead", e.answer.split(". ")[0] + ".") for e in examples]
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=1))
    study = build_study(
        answers, examples, documents, predictions, BM25Ranker(),
        StudySettings(parts=("trial_a", "errors_a", "errors_b"), error_questions=4, error_controls=4, seed=1),
        study_id="det",
    )  # fmt: skip
    write_study(study, tmp_path / "study")
    sim = SimulationSettings(
        errors=ErrorSimulation(recall={"errors_a": 1.0, "errors_b": 1.0}), inattentive=0.0
    )
    write_jsonl(tmp_path / "study" / "judgments.jsonl", simulate_judgments(study, sim))
    by_system = study_predictions(read_study(tmp_path / "study"))
    shown = {(t["article_id"], t["answer"]["text"]) for t in study.tasks if t["type"] == "errors"}
    written = {(p.article_id, p.answer) for ps in by_system.values() for p in ps}
    assert shown <= written  # before: the errors parts' answers were not written, so never scored
    assert "lead" in by_system
    rows = [
        {
            "article_id": p.article_id,
            "system": system,
            "answer": p.answer,
            "scores": {"grounding_support": 0.5, "judge_consistency": float(len(p.answer) % 5 + 1)},
            "grounding": {
                "sentences": [
                    {"sentence": s, "support": 0.3, "supported": False} for s in sentences_of(p.answer)
                ]
            },
        }
        for system, ps in by_system.items()
        for p in ps
    ]
    (tmp_path / "report").mkdir()
    write_jsonl(tmp_path / "report" / "per_question.jsonl", rows)
    result = meta_evaluate_folders(tmp_path / "study", tmp_path / "report", MetaSettings(resamples=100))
    det = result["detectors"]
    assert det["simulated"] is True
    level = det["sentence_level"]
    assert level["grounding_flagged"] == level["sentences"]  # every sentence flagged: recall 1
    assert level["detectors"]["Grounding"]["recall"]["value"] == 1.0
    assert set(det["answer_level"]["detectors"]) == {
        "Judge: consistency", "control: random", "control: longer answer"
    }  # fmt: skip
    text = render_markdown(result)
    assert "## Error detectors against the assessors' error spans (simulated assessors)" in text
