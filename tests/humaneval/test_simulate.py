"""Round trip: the analysis recovers the rates planted in simulated assessors, within sampling error."""

from __future__ import annotations

import json
import math

import pytest
from pydantic import ValidationError

from wikihowqa.humaneval.analysis import StudyAnalysis, analyze, write_analysis
from wikihowqa.humaneval.deteriorate import DeteriorationSettings, deteriorate_examples
from wikihowqa.humaneval.rank import BM25Ranker
from wikihowqa.humaneval.simulate import DEFAULT_DETECTION, SimulationSettings, simulate_judgments
from wikihowqa.humaneval.tasks import StudySettings, build_study

Z = 4.0  # tolerance in binomial standard errors (fixed seed; a false alarm has odds below 1e-4 per check)


def _within(estimate: float, p: float, n: int) -> bool:
    return abs(estimate - p) <= Z * math.sqrt(p * (1 - p) / n) + 1e-9


@pytest.fixture(scope="module")
def round_trip(dataset, predictions):
    examples, documents = dataset
    answers = deteriorate_examples(examples, DeteriorationSettings(seed=4))
    study = build_study(
        answers,
        examples,
        documents,
        predictions,
        BM25Ranker(),
        StudySettings(assessors_per_item=8, relevance_questions=114, preference_questions=40, seed=4),
    )
    settings = SimulationSettings(
        inattentive=0.1, preference={"lead": (0.2, 0.1, 0.7), "lead-copy": (0.5, 0.2, 0.3)}, seed=9
    )
    judgments = simulate_judgments(study, settings)
    return study, settings, judgments, analyze(study, judgments)


def test_planted_detection_rates_are_recovered_per_type_and_trial(round_trip):
    _, _, _, result = round_trip
    checked = 0
    for part in ("trial_a", "trial_b"):
        for kind, row in result["trials"][part]["by_type"].items():
            pooled = row["pooled"]
            assert _within(pooled["share"], DEFAULT_DETECTION[part][kind], pooled["n"]), (part, kind, pooled)
            checked += 1
    assert checked >= 12
    assert result["trials"]["t_test_b_vs_a"]["idr"]["p"] < 0.001  # trial B's planted rates are higher


def test_false_positive_and_inattentive_rates_are_recovered(round_trip):
    _, settings, judgments, result = round_trip
    for part in ("trial_a", "trial_b"):
        fp = result["trials"][part]["false_positives"]
        assert _within(fp["share"], settings.false_positive[part], fp["n"])
    rejected = result["judgments"]["rejected_by_reason"]
    assert set(rejected) == {"inattentive"}
    assert _within(rejected["inattentive"] / len(judgments), 0.1, len(judgments))


def test_preference_shares_and_relevance_agreement_are_recovered(round_trip):
    _, settings, _, result = round_trip
    for system, (model, tie, gold) in settings.preference.items():
        r = result["preference"][system]
        for outcome, p in (("model", model), ("tie", tie), ("gold", gold)):
            assert _within(r[outcome]["share"], p, r["n"]), (system, outcome)
    rel = result["relevance"]
    a = settings.relevance_agreement
    latent_mean = sum(k * q for k, q in enumerate(settings.relevance_levels))
    expected_mean = a * latent_mean + (1 - a) * 2.0
    assert abs(rel["rating"]["mean"] - expected_mean) < Z * 1.5 / math.sqrt(rel["rating"]["n"])
    # kappa: observed agreement a^2 + (1 - a^2)/5 under the model; chance agreement from the marginals
    marginal = [a * q + (1 - a) / 5 for q in settings.relevance_levels]
    p_e = sum(m * m for m in marginal)
    p_o = a * a + (1 - a * a) / 5
    assert rel["cohen_kappa"] == pytest.approx((p_o - p_e) / (1 - p_e), abs=0.06)


def test_the_report_is_a_typed_object_that_is_exactly_its_analysis_json(round_trip, tmp_path):
    _, _, _, result = round_trip
    assert isinstance(result, StudyAnalysis)
    assert isinstance(result.trials.trial_b.idr.mean, float) and result.relevance.cohen_kappa_pairs > 0
    write_analysis(result, tmp_path)
    written = json.loads((tmp_path / "analysis.json").read_text())
    assert result.preference["lead"].model.share == written["preference"]["lead"]["model"]["share"]
    assert written == json.loads(json.dumps(result.to_dict()))
    assert StudyAnalysis.model_validate(written).to_dict() == written  # the model describes the file
    with pytest.raises(ValidationError):
        StudyAnalysis.model_validate({**written, "judgments": {**written["judgments"], "totl": 1}})
