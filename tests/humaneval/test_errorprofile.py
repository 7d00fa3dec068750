"""The errors parts' analysis (``analysis.json`` → ``error_spans``): each figure on planted judgments
against a value computed here by hand, with scipy or with the ``krippendorff`` package."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from scipy.stats import bootstrap

from wikihowqa.humaneval.analysis import analyze, write_analysis
from wikihowqa.humaneval.analysis.errorprofile import CONTROLS_ROW, error_spans_section
from wikihowqa.humaneval.analysis.errorreport import error_spans_markdown, profile_rows
from wikihowqa.humaneval.taxonomy import DEFAULT_TAXONOMY

T1 = "Dry the figs in the sun for two days. Then store them in a jar."  # 15 words
T2 = "Wash the figs. Cut them in half."  # 7 words
T3 = "Never dry the figs. Store them cold."  # 7 words


def _span(text, piece, type_, severity):
    start = text.index(piece)
    return {"start": start, "end": start + len(piece), "text": piece, "type": type_, "severity": severity}


def _planted():
    tasks = {
        t: {"task_id": t, "part": "errors_b", "answer": {"text": text}}
        for t, text in (("t1", T1), ("t2", T2), ("t3", T3))
    }
    key = {
        "t1": {"source": "system", "system": "s1", "edits": []},
        "t2": {"source": "system", "system": "s1", "edits": []},
        "t3": {
            "source": "control",
            "system": None,
            "edits": [
                {"start": 0, "end": 5, "type": "negation"},
                {"start": T3.index("cold"), "end": T3.index("cold") + 4, "type": "unsupported"},
            ],
            "edit_error_types": [
                ["encyclopedic", "commonsense", "contradicts_passages"],
                ["off_prompt", "not_in_passages"],
            ],
        },
    }
    judgments = [
        {"judgment_id": "j1", "task_id": "t1", "assessor_id": "x", "error_spans": [
            _span(T1, "two days", "not_in_passages", "major"),
            _span(T1, "in a jar", "commonsense", "minor")]},
        {"judgment_id": "j2", "task_id": "t1", "assessor_id": "y", "error_spans": [
            _span(T1, "for two days", "not_in_passages", "critical")]},
        {"judgment_id": "j3", "task_id": "t2", "assessor_id": "x", "error_spans": [
            _span(T2, "Cut them in half", "unsafe_step", "minor")]},
        {"judgment_id": "j4", "task_id": "t3", "assessor_id": "x", "error_spans": [
            _span(T3, "Never dry", "contradicts_passages", "major")]},
        {"judgment_id": "j5", "task_id": "t3", "assessor_id": "y", "error_spans": [
            _span(T3, "cold", "commonsense", "minor")]},
    ]  # fmt: skip
    return tasks, key, judgments


@pytest.fixture(scope="module")
def section():
    tasks, key, judgments = _planted()
    return error_spans_section({"errors_b": judgments}, tasks, key, DEFAULT_TAXONOMY, resamples=200, seed=3)


def test_errors_per_100_words_by_type_and_severity_and_the_major_share_equal_hand_counts(section):
    s1 = section["parts"]["errors_b"]["systems"]["s1"]
    words = 15 * 2 + 7  # t1 judged twice, t2 once
    assert (s1["answers"], s1["judgments"], s1["words"], s1["spans"]) == (2, 3, words, 4)
    assert s1["errors_per_100_words"]["value"] == pytest.approx(400 / words)
    assert s1["by_type"]["not_in_passages"]["value"] == pytest.approx(200 / words)
    assert s1["by_type"]["commonsense"]["value"] == pytest.approx(100 / words)
    assert s1["by_type"]["unsafe_step"]["value"] == pytest.approx(100 / words)
    assert set(s1["by_type"]) == {"not_in_passages", "commonsense", "unsafe_step"}
    assert s1["by_severity"]["minor"]["value"] == pytest.approx(200 / words)
    assert s1["by_severity"]["major"]["value"] == pytest.approx(100 / words)
    assert s1["by_severity"]["critical"]["value"] == pytest.approx(100 / words)
    assert s1["major_share"]["value"] == pytest.approx(2 / 3)  # j1 (major), j2 (critical); not j3
    controls = section["parts"]["errors_b"]["systems"][CONTROLS_ROW]
    assert controls["errors_per_100_words"]["value"] == pytest.approx(200 / 14)


def test_the_interval_is_scipy_s_percentile_bootstrap_over_answers_of_the_ratio_of_sums(section):
    s1 = section["parts"]["errors_b"]["systems"]["s1"]
    # clusters by hand: t1 has 3 spans over 2 x 15 words, t2 1 span over 7 words
    spans, words = np.array([3.0, 1.0]), np.array([30.0, 7.0])
    ci = bootstrap(
        (spans, words), lambda a, b, axis=-1: 100 * a.sum(axis) / b.sum(axis), paired=True, vectorized=True,
        n_resamples=200, method="percentile", random_state=np.random.default_rng(3),
    ).confidence_interval  # fmt: skip
    assert (s1["errors_per_100_words"]["low"], s1["errors_per_100_words"]["high"]) == pytest.approx(
        (ci.low, ci.high)
    )
    assert ci.low <= 400 / 37 <= ci.high


def test_agreement_span_f1_per_type_and_token_level_alpha(section):
    a = section["parts"]["errors_b"]["agreement"]
    assert a["pairs"] == 2  # t1 and t3 have two assessors each; t2 one
    # t1: x marks two, days, in, a, jar (5 words); y marks for, two, days (3): 2 shared
    # t3: x marks Never, dry; y marks cold: none shared
    assert a["span_f1"] == pytest.approx(2 * 2 / (5 + 3 + 2 + 1))
    assert a["typed_span_f1"] == pytest.approx(2 * 2 / (5 + 3 + 2 + 1))
    assert a["per_type"]["not_in_passages"]["f1"] == pytest.approx(2 * 2 / (2 + 3))
    assert a["per_type"]["commonsense"]["f1"] == 0.0
    assert a["per_type"]["contradicts_passages"]["f1"] == 0.0
    assert "unsafe_step" not in a["per_type"]  # marked on t2, which has one assessor
    # the reliability matrix by hand: t1's 15 words then t3's 7; 0 none, 1 not_in_passages, 2 commonsense,
    # 3 contradicts_passages
    x = [0] * 7 + [1, 1] + [0] * 3 + [2, 2, 2] + [3, 3] + [0] * 5
    y = [0] * 6 + [1, 1, 1] + [0] * 6 + [0] * 6 + [2]
    data = np.array([x, y], dtype=float)
    assert a["units"] == 22
    assert a["krippendorff_alpha"] == pytest.approx(krippendorff.alpha(data, level_of_measurement="nominal"))
    assert a["alpha_binary"] == pytest.approx(
        krippendorff.alpha((data > 0).astype(float), level_of_measurement="nominal")
    )


def test_identical_markings_agree_perfectly():
    tasks, key, judgments = _planted()
    twin = [dict(judgments[0], assessor_id="y", judgment_id="jy")]
    section = error_spans_section({"errors_b": [judgments[0], *twin]}, tasks, key, DEFAULT_TAXONOMY)
    a = section["parts"]["errors_b"]["agreement"]
    assert (a["span_f1"], a["typed_span_f1"], a["krippendorff_alpha"]) == (1.0, 1.0, 1.0)


def test_planted_edit_recall_and_type_accuracy(section):
    p = section["parts"]["errors_b"]["planted"]
    # x finds the negation with a right type; y finds the unsupported "cold" with a wrong one (commonsense)
    assert (p["all"]["edits"], p["all"]["recall"]["count"], p["all"]["recall"]["n"]) == (4, 2, 4)
    assert (p["all"]["type_accuracy"]["count"], p["all"]["type_accuracy"]["n"]) == (1, 2)
    assert p["negation"]["recall"]["share"] == 0.5 and p["negation"]["type_accuracy"]["share"] == 1.0
    assert p["unsupported"]["recall"]["share"] == 0.5 and p["unsupported"]["type_accuracy"]["share"] == 0.0


def test_real_error_types_against_the_deterioration_types(section):
    c = section["parts"]["errors_b"]["coverage"]
    assert c["spans"] == 4  # the systems' answers only, not the controls
    assert c["by_type"]["unsafe_step"] == {"spans": 1, "share": 0.25, "planted_by": [], "covered": False}
    assert c["by_type"]["not_in_passages"]["planted_by"] == ["unsupported"]
    assert c["uncovered"]["share"] == 0.25 and c["uncovered_types"] == ["unsafe_step"]
    assert "missing_step" in c["never_planted"] and "unsafe_step" in c["never_planted"]


def test_real_judgments_are_not_labelled_simulated_and_sim_ids_are(section):
    assert section["simulated"] is False and "note" not in section
    tasks, key, judgments = _planted()
    sim = [dict(j, judgment_id=f"sim-{k:06d}") for k, j in enumerate(judgments)]
    labelled = error_spans_section({"errors_b": sim}, tasks, key, DEFAULT_TAXONOMY)
    assert labelled["simulated"] is True and "simulated" in labelled["note"]
    assert "(simulated assessors)" in error_spans_markdown(labelled)[0]


def test_the_table_leaves_out_intervals_under_ten_answers_and_says_so(section):
    header, rows = profile_rows(section["parts"]["errors_b"])
    s1 = next(r for r in rows if r[0] == "s1")
    assert s1[header.index("errors/100 words")] == f"{400 / 37:.2f}"  # no [low, high]: 2 answers
    text = "\n".join(error_spans_markdown(section))
    assert "fewer than 10 answers" in text and "unsafe_step" in text


def test_analyze_writes_error_spans_for_a_simulated_errors_study(tmp_path, dataset, predictions):
    from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
    from wikihowqa.humaneval.rank import BM25Ranker
    from wikihowqa.humaneval.simulate import SimulationSettings, simulate_judgments
    from wikihowqa.humaneval.simulate_errors import ErrorSimulation
    from wikihowqa.humaneval.tasks import ERROR_PARTS, StudySettings, build_study

    examples, documents = dataset
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=2))
    study = build_study(
        answers, examples, documents, predictions, BM25Ranker(),
        StudySettings(parts=ERROR_PARTS, error_questions=3, error_controls=3, seed=2), study_id="e",
    )  # fmt: skip
    sim = SimulationSettings(
        errors=ErrorSimulation(recall={"errors_a": 1.0, "errors_b": 1.0}), inattentive=0.0
    )
    judgments = simulate_judgments(study, sim)
    result = analyze(study, judgments)
    section = result["error_spans"]
    assert section["simulated"] is True
    assert set(section["parts"]) == {"errors_a", "errors_b"}
    key = study.key_by_id()
    edits = sum(len(key[j["task_id"]]["edits"]) for j in judgments if key[j["task_id"]]["source"] == "control"
                and j["task_id"].startswith("errors_b"))  # fmt: skip
    planted = section["parts"]["errors_b"]["planted"]["all"]
    assert planted["edits"] == edits and planted["recall"]["share"] == 1.0  # recall set to 1
    written = write_analysis(result, tmp_path)
    assert tmp_path / "error_profile.png" in written
    assert "## Error spans (simulated assessors)" in (tmp_path / "analysis.md").read_text()
    assert json.loads((tmp_path / "analysis.json").read_text())["error_spans"]["simulated"] is True
